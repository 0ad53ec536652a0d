// v2 watches over HTTP, against etcdlite and (when installed) the real etcd with --enable-v2: a long poll
// answered by the next change, recursive streams (hidden names left out, a stream hearing its own key's
// deletion twice, as etcd's does), answers from history with a waitIndex, the history's 1000-event limit,
// and watchers going away with their clients. Each step waits for the server's watcher count (from
// /v2/stats/store), never for time.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { request, type ClientRequest, type IncomingMessage } from 'node:http'
import { openEtcd } from '../../src/embed/etcd.js'
import { haveEtcd, startReferenceEtcd } from '../helpers/processes.js'
import { clusterVersionDecided, normalizeBody, send } from '../helpers/v2-http.js'

interface WatchStream {
  readonly res: IncomingMessage
  /** The next line of the body (an event), or undefined once the response ended. */
  next(): Promise<string | undefined>
  close(): void
}

function openWatch(endpoint: string, path: string): Promise<WatchStream> {
  const i = endpoint.lastIndexOf(':')
  return new Promise((resolve, reject) => {
    let req: ClientRequest | undefined = undefined
    req = request({ host: endpoint.slice(0, i), port: Number(endpoint.slice(i + 1)), path, agent: false }, (res) => {
      const lines: string[] = []
      let buf = ''
      let ended = false
      let waiter: (() => void) | undefined
      res.setEncoding('utf8')
      res.on('data', (d: string) => {
        buf += d
        for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
          lines.push(buf.slice(0, nl))
          buf = buf.slice(nl + 1)
        }
        waiter?.()
      })
      const finish = (): void => {
        ended = true
        waiter?.()
      }
      res.on('end', finish)
      res.on('close', finish)
      resolve({
        res,
        next: async () => {
          while (lines.length === 0 && !ended) await new Promise<void>((r) => (waiter = r))
          return lines.shift()
        },
        close: () => req?.destroy(),
      })
    })
    req.on('error', reject)
    req.end()
  })
}

async function watchers(endpoint: string): Promise<number> {
  return (JSON.parse((await send(endpoint, { method: 'GET', path: '/v2/stats/store' })).body) as { watchers: number }).watchers
}

async function untilWatchers(endpoint: string, n: number): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if ((await watchers(endpoint)) === n) return
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  assert.fail(`the server never had ${n} watchers`)
}

const putKey = (endpoint: string, key: string, value: string): Promise<unknown> => send(endpoint, { method: 'PUT', path: `/v2/keys/${key}`, body: `value=${value}` })

/** The scenario, as lines of what each step showed; both servers must show exactly these. */
async function scenario(endpoint: string): Promise<string[]> {
  const out: string[] = []
  // A long poll: headers at once (X-Etcd-Index: the index the watch began at), then the next change.
  const poll = await openWatch(endpoint, '/v2/keys/w?wait=true')
  out.push(`poll ${poll.res.statusCode ?? 0} ${String(poll.res.headers['x-etcd-index'])} ${String(poll.res.headers['content-type'])}`)
  await untilWatchers(endpoint, 1)
  await putKey(endpoint, 'other', '1')
  await putKey(endpoint, 'w', '1')
  out.push(normalizeBody((await poll.next()) ?? 'none'), `then ${(await poll.next()) ?? 'end'}`)
  await untilWatchers(endpoint, 0)

  // A recursive stream: changes under it, not under a hidden name; the stream stays open.
  const stream = await openWatch(endpoint, '/v2/keys/s?wait=true&recursive=true&stream=true')
  await untilWatchers(endpoint, 1)
  await putKey(endpoint, 's/a', '1')
  await putKey(endpoint, 's/_h/x', '1')
  await putKey(endpoint, 's/b', '2')
  await send(endpoint, { method: 'DELETE', path: '/v2/keys/s/a' })
  for (let k = 0; k < 3; k++) out.push(`stream ${(await stream.next()) ?? 'end'}`)
  // A stream on a key hears its deletion twice.
  const key = await openWatch(endpoint, '/v2/keys/s/b?wait=true&stream=true')
  await untilWatchers(endpoint, 2)
  await send(endpoint, { method: 'DELETE', path: '/v2/keys/s/b' })
  for (let k = 0; k < 2; k++) out.push(`key ${(await key.next()) ?? 'end'}`)
  out.push(`stream ${(await stream.next()) ?? 'end'}`)
  stream.close()
  key.close()
  await untilWatchers(endpoint, 0)

  // From history: the first change at or after the index, at once.
  const hist = await send(endpoint, { method: 'GET', path: '/v2/keys/s?wait=true&recursive=true&waitIndex=7' })
  out.push(`history ${hist.status} ${String(hist.headers['x-etcd-index'])} ${hist.body}`)
  // Past the 1000 events the history keeps, a waitIndex is refused.
  for (let batch = 0; batch < 20; batch++) await Promise.all(Array.from({ length: 50 }, (_, j) => putKey(endpoint, `many/${j}`, String(batch))))
  const cleared = await send(endpoint, { method: 'GET', path: '/v2/keys/s?wait=true&waitIndex=5' })
  out.push(`cleared ${cleared.status} ${cleared.body}`)
  return out
}

const EXPECTED = [
  'poll 200 3 application/json',
  '{"action":"set","node":{"key":"/w","value":"1","modifiedIndex":5,"createdIndex":5}}',
  'then end',
  'stream {"action":"set","node":{"key":"/s/a","value":"1","modifiedIndex":6,"createdIndex":6}}',
  'stream {"action":"set","node":{"key":"/s/b","value":"2","modifiedIndex":8,"createdIndex":8}}',
  'stream {"action":"delete","node":{"key":"/s/a","modifiedIndex":9,"createdIndex":6},"prevNode":{"key":"/s/a","value":"1","modifiedIndex":6,"createdIndex":6}}',
  'key {"action":"delete","node":{"key":"/s/b","modifiedIndex":10,"createdIndex":8},"prevNode":{"key":"/s/b","value":"2","modifiedIndex":8,"createdIndex":8}}',
  'key {"action":"delete","node":{"key":"/s/b","modifiedIndex":10,"createdIndex":8},"prevNode":{"key":"/s/b","value":"2","modifiedIndex":8,"createdIndex":8}}',
  'stream {"action":"delete","node":{"key":"/s/b","modifiedIndex":10,"createdIndex":8},"prevNode":{"key":"/s/b","value":"2","modifiedIndex":8,"createdIndex":8}}',
  'history 200 10 {"action":"set","node":{"key":"/s/_h/x","value":"1","modifiedIndex":7,"createdIndex":7}}\n',
  'cleared 400 {"errorCode":401,"message":"The event in requested index is outdated and cleared","cause":"the requested history has been cleared [11/5]","index":1010}\n',
]

describe('v2 watches over HTTP', () => {
  it('etcdlite', async () => {
    const etcd = await openEtcd({ memory: true, enableV2: true })
    try {
      const { endpoint } = await etcd.listen({ port: 0 })
      assert.deepEqual(await scenario(endpoint), EXPECTED)
    } finally {
      await etcd.close()
    }
  })

  it('the real etcd with --enable-v2, alike', { skip: !haveEtcd() && 'no etcd binary' }, async () => {
    const ref = await startReferenceEtcd(['--enable-v2'])
    try {
      await clusterVersionDecided(ref.endpoint)
      assert.deepEqual(await scenario(ref.endpoint), EXPECTED)
    } finally {
      await ref.dispose()
    }
  })
})
