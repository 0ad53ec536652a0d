// --cors and --host-whitelist on the client URL's HTTP, compared with the real etcd given the same flags:
// a plaintext request naming a host outside the whitelist gets 421 with etcd's explanation, CORS headers
// name an allowed origin (or "*"), and OPTIONS is answered at once.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { request } from 'node:http'
import { haveEtcd, startEtcdliteProcess, startReferenceEtcd, type ServerProcess } from '../helpers/processes.js'

interface Answer {
  readonly status: number
  readonly cors: readonly (string | undefined)[]
  readonly body: string
}

/** One request with the given Host and Origin; what access control decides shows in status, CORS headers and 421's body. */
function ask(endpoint: string, method: string, host: string, origin?: string): Promise<Answer> {
  const [hostname, port] = [endpoint.slice(0, endpoint.lastIndexOf(':')), Number(endpoint.slice(endpoint.lastIndexOf(':') + 1))]
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, method, path: '/version', headers: { host, ...(origin === undefined ? {} : { origin }) } }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (d: string) => (body += d))
      res.on('end', () => resolve({
        status: res.statusCode ?? 0,
        cors: ['access-control-allow-origin', 'access-control-allow-methods', 'access-control-allow-headers'].map((h) => res.headers[h] as string | undefined),
        body: res.statusCode === 421 ? body : '',
      }))
    })
    req.on('error', reject)
    req.end()
  })
}

const FLAGS = ['--cors', 'http://a.example:8080,http://b.example:8080', '--host-whitelist', 'localhost,127.0.0.1,example.org']
const CASES: ReadonlyArray<readonly [string, string, string, string | undefined]> = [
  ['whitelisted IP with port', 'GET', '127.0.0.1:1', undefined],
  ['whitelisted name', 'GET', 'example.org', 'http://a.example:8080'],
  ['other origin', 'GET', 'localhost:2379', 'http://c.example:8080'],
  ['unlisted host', 'GET', 'evil.example:2379', 'http://a.example:8080'],
  ['unlisted IPv6 host', 'GET', '[::1]:2379', undefined],
  ['OPTIONS from an allowed origin', 'OPTIONS', 'localhost', 'http://b.example:8080'],
  ['OPTIONS from another origin', 'OPTIONS', 'localhost', 'http://c.example:8080'],
]

describe('--cors and --host-whitelist', () => {
  let ours: ServerProcess
  let open: ServerProcess
  let ref: ServerProcess | undefined
  before(async () => {
    ours = await startEtcdliteProcess({ memory: true, args: FLAGS })
    open = await startEtcdliteProcess({ memory: true })
    if (haveEtcd()) ref = await startReferenceEtcd(FLAGS)
  })
  after(async () => {
    await ours.dispose()
    await open.dispose()
    await ref?.dispose()
  })

  for (const [name, method, host, origin] of CASES) {
    it(`${name}: as etcd answers`, async (t) => {
      const got = await ask(ours.endpoint, method, host, origin)
      if (ref === undefined) {
        t.skip('the real etcd is not installed')
        return
      }
      assert.deepEqual(got, await ask(ref.endpoint, method, host, origin))
    })
  }

  it('refuses an unlisted host with 421 and names it in the advice', async () => {
    const a = await ask(ours.endpoint, 'GET', 'evil.example:2379')
    assert.equal(a.status, 421)
    assert.match(a.body, /etcd --host-whitelist "evil\.example"/)
  })

  it('echoes an allowed origin and leaves other origins without CORS headers', async () => {
    assert.deepEqual((await ask(ours.endpoint, 'GET', 'localhost', 'http://a.example:8080')).cors, ['http://a.example:8080', 'POST, GET, OPTIONS, PUT, DELETE', 'accept, content-type, authorization'])
    assert.deepEqual((await ask(ours.endpoint, 'GET', 'localhost', 'http://c.example:8080')).cors, [undefined, undefined, undefined])
  })

  it('allows every host and origin by default', async () => {
    const a = await ask(open.endpoint, 'GET', 'evil.example', 'http://c.example:8080')
    assert.equal(a.status, 200)
    assert.equal(a.cors[0], '*')
  })
})
