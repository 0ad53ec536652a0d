// --grpc-keepalive-min-time: a client that pings too often is sent GOAWAY(ENHANCE_YOUR_CALM,
// "too_many_pings") and disconnected, one that keeps to the interval is not; checked on etcdlite's command
// and on the real etcd with the same flags.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { connect, type ClientHttp2Session } from 'node:http2'
import { setTimeout as sleep } from 'node:timers/promises'
import { haveEtcd, startEtcdliteProcess, startReferenceEtcd, type ServerProcess } from '../helpers/processes.js'

interface Outcome {
  /** The GOAWAY received, if any. */
  readonly goaway?: { readonly code: number; readonly data: string }
  /** Pings answered before it. */
  readonly answered: number
}

/** Open a connection (with one gRPC stream left open, or none) and ping it `count` times, `gapMs` apart. */
async function pingServer(endpoint: string, count: number, gapMs: number, withStream: boolean): Promise<Outcome> {
  const session: ClientHttp2Session = connect(`http://${endpoint}`)
  session.on('error', () => undefined)
  let goaway: Outcome['goaway']
  session.on('goaway', (code: number, _last: number, data?: Buffer) => {
    goaway = { code, data: data?.toString() ?? '' }
  })
  await new Promise<void>((resolve, reject) => {
    session.once('connect', () => resolve())
    session.once('error', reject)
  })
  if (withStream) {
    // A Watch call that sends nothing: open until the connection ends.
    const stream = session.request({ ':method': 'POST', ':path': '/etcdserverpb.Watch/Watch', 'content-type': 'application/grpc', te: 'trailers' })
    stream.on('error', () => undefined)
    stream.resume()
    await new Promise((r) => setTimeout(r, 50))
  }
  let answered = 0
  try {
    for (let i = 0; i < count && goaway === undefined && !session.destroyed; i++) {
      const ok = await new Promise<boolean>((resolve) => {
        try {
          session.ping((err) => resolve(err === null))
        } catch {
          resolve(false)
        }
      })
      if (ok) answered++
      await sleep(gapMs)
    }
    // A GOAWAY may trail the last ping's answer.
    await sleep(200)
    return goaway === undefined ? { answered } : { goaway, answered }
  } finally {
    session.destroy()
  }
}

const servers: Array<{ name: string; start: (minTime: string) => Promise<ServerProcess> }> = [
  { name: 'etcdlite', start: (minTime) => startEtcdliteProcess({ memory: true, args: ['--grpc-keepalive-min-time', minTime] }) },
  ...(haveEtcd() ? [{ name: 'etcd', start: (minTime: string) => startReferenceEtcd(['--grpc-keepalive-min-time', minTime]) }] : []),
]

for (const { name, start } of servers) {
  describe(`keep-alive enforcement (${name})`, () => {
    let strict: ServerProcess
    let lenient: ServerProcess
    before(async () => {
      strict = await start('5s')
      lenient = await start('100ms')
    })
    after(async () => {
      await strict.dispose()
      await lenient.dispose()
    })

    it('sends a client that pings sooner than the minimum time away with too_many_pings', async () => {
      const r = await pingServer(strict.endpoint, 10, 10, true)
      assert.deepEqual(r.goaway, { code: 11, data: 'too_many_pings' })
    })

    it('sends away a client that pings without open streams', async () => {
      const r = await pingServer(lenient.endpoint, 10, 200, false)
      assert.deepEqual(r.goaway, { code: 11, data: 'too_many_pings' })
    })

    it('keeps a client that pings no sooner than the minimum time while a stream is open', async () => {
      const r = await pingServer(lenient.endpoint, 5, 250, true)
      assert.equal(r.goaway, undefined)
      assert.equal(r.answered, 5)
    })
  })
}
