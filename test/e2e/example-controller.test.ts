// examples/controller.ts runs as the README says: in process with openEtcd(), and the same code against the
// etcdlite command and the real etcd through connect() (ETCD_ENDPOINTS).
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { haveEtcd, startEtcdliteProcess, startReferenceEtcd, type ServerProcess } from '../helpers/processes.js'

const EXAMPLE = fileURLToPath(new URL('../../examples/controller.js', import.meta.url))

function runExample(endpoint?: string): string {
  const env = { ...process.env }
  if (endpoint === undefined) delete env['ETCD_ENDPOINTS']
  else env['ETCD_ENDPOINTS'] = endpoint
  const r = spawnSync(process.execPath, [EXAMPLE], { encoding: 'utf8', timeout: 60_000, env })
  assert.equal(r.status, 0, r.stderr)
  return r.stdout
}

const WANT = "deployments with 1 replica: [ 'deployments/web' ]"

describe('examples/controller.ts', () => {
  it('runs in process with openEtcd()', () => {
    assert.ok(runExample().includes(WANT))
  })

  const servers: Array<[string, () => Promise<ServerProcess>, boolean]> = [
    ['the etcdlite command', () => startEtcdliteProcess({ memory: true }), true],
    ['the real etcd', () => startReferenceEtcd(), haveEtcd()],
  ]
  for (const [name, start, available] of servers) {
    it(`runs unchanged against ${name} through connect()`, { skip: !available && 'etcd is not installed' }, async () => {
      const server = await start()
      try {
        assert.ok(runExample(server.endpoint).includes(WANT))
      } finally {
        await server.dispose()
      }
    })
  }
})
