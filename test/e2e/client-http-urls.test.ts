// --listen-client-http-urls (etcd 3.5): the client URLs serve gRPC only and these URLs HTTP only, each
// closing a connection of the other kind; one host:port cannot be in both lists. And --enable-log-rotation
// writes the start-up log to its rotated file.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, readFileSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { join } from 'node:path'
import { spawnEtcdlite, type CliProcess } from '../helpers/cli-process.js'
import { rawClient } from '../helpers/grpc-client.js'
import { ETCDLITE_BIN } from '../helpers/processes.js'
import { tempDir } from '../helpers/tmp.js'
import { until } from '../helpers/until.js'

/** A port that was free a moment ago. */
async function freePort(): Promise<number> {
  const s = createServer()
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r))
  const { port } = s.address() as AddressInfo
  await new Promise((r) => s.close(r))
  return port
}

/** The address of the "serving client traffic" line for `traffic`, from the CLI's log. */
function servingAddress(log: string, traffic: string): string | undefined {
  for (const line of log.split('\n')) {
    if (!line.includes('serving client traffic')) continue
    const entry = JSON.parse(line) as { traffic?: string; address?: string }
    if (entry.traffic === traffic) return entry.address
  }
  return undefined
}

describe('--listen-client-http-urls', () => {
  let cli: CliProcess
  let httpAddress: string
  before(async () => {
    const port = await freePort()
    cli = await spawnEtcdlite(['--memory', '--listen-client-http-urls', `http://127.0.0.1:${port}`, '--advertise-client-urls', 'http://127.0.0.1:2379'])
    httpAddress = `127.0.0.1:${port}`
  })
  after(async () => {
    await cli.stop('SIGKILL')
  })

  it('logs each listener with what it serves, without the single-port warning', async () => {
    await until(() => servingAddress(cli.stderr(), 'http') !== undefined, 'the HTTP listener\'s serving line', 10_000)
    assert.equal(servingAddress(cli.stderr(), 'grpc'), cli.endpoint)
    assert.equal(servingAddress(cli.stderr(), 'http'), httpAddress)
    assert.doesNotMatch(cli.stderr(), /Running http and grpc server on single port/)
  })

  it('serves gRPC on the client URL and not on the HTTP URL', async () => {
    const ok = rawClient(cli.endpoint)
    try {
      await ok.kv.Put({ key: Buffer.from('k'), value: Buffer.from('v') })
    } finally {
      ok.close()
    }
    const refused = rawClient(httpAddress)
    try {
      await assert.rejects(refused.kv.Range({ key: Buffer.from('k') }), { code: 14 })
    } finally {
      refused.close()
    }
  })

  it('serves HTTP on the HTTP URL and not on the client URL', async () => {
    const res = await fetch(`http://${httpAddress}/health`)
    assert.equal(res.status, 200)
    assert.deepEqual(await res.json(), { health: 'true', reason: '' })
    await assert.rejects(fetch(`http://${cli.endpoint}/health`))
  })

  it('serves the JSON gateway on the HTTP URL, reaching gRPC through the client URL', async () => {
    const res = await fetch(`http://${httpAddress}/v3/kv/range`, { method: 'POST', body: JSON.stringify({ key: Buffer.from('k').toString('base64') }) })
    assert.equal(res.status, 200)
    const body = (await res.json()) as { kvs?: Array<{ value?: string }> }
    assert.equal(body.kvs?.[0]?.value, Buffer.from('v').toString('base64'))
  })

  it('refuses a host:port in both lists, as etcd words it', async () => {
    const port = await freePort()
    const r = spawnSync(process.execPath, [ETCDLITE_BIN, '--memory', '--listen-client-urls', `http://127.0.0.1:${port}`, '--advertise-client-urls', `http://127.0.0.1:${port}`, '--listen-client-http-urls', `http://127.0.0.1:${port}`], { encoding: 'utf8', timeout: 20_000 })
    assert.equal(r.status, 1)
    assert.match(r.stderr, new RegExp(`cannot bind both --client-listen-urls and --client-listen-http-urls on the same url http://127\\.0\\.0\\.1:${port}`))
  })
})

describe('--enable-log-rotation', () => {
  it('writes the log to the rotated file', async () => {
    const dir = await tempDir('etcdlite-log-rotation-')
    try {
      const file = join(dir.path, 'etcd.log')
      const proc = spawn(process.execPath, [ETCDLITE_BIN, '--memory', '--listen-client-urls', 'http://127.0.0.1:0', '--enable-log-rotation', '--log-outputs', file, '--log-rotation-config-json', '{"maxsize": 1, "maxbackups": 2}'], { stdio: 'ignore' })
      const exited = once(proc, 'exit')
      try {
        await until(() => existsSync(file) && readFileSync(file, 'utf8').includes('"msg":"ready to serve client requests"'), 'the ready line in the log file', 20_000)
      } finally {
        proc.kill('SIGTERM')
        await exited
      }
      assert.match(readFileSync(file, 'utf8'), /"msg":"closed etcd server"/)
    } finally {
      await dir.remove()
    }
  })

  it('refuses rotation without a file output, as etcd does', () => {
    const r = spawnSync(process.execPath, [ETCDLITE_BIN, '--memory', '--enable-log-rotation', '--log-outputs', 'stderr'], { encoding: 'utf8', timeout: 20_000 })
    assert.equal(r.status, 1)
    assert.match(r.stderr, /--log-outputs requires a single file path when --log-rotate-config-json is defined/)
  })
})
