// A TestWatchStream over the `etcd3` npm client's own wire path: its RPC-layer WatchClient opens the
// Watch call through etcd3's connection pool with etcd3's protos (enums renamed: events arrive as
// 'Put'/'Delete'), so a real client's decoder parses every response. Requests are written with proto
// field names and numeric enums, which etcd3's proto accepts as ours does.
import type { Etcd3, IWatchRequest } from 'etcd3'
import { ResponseQueue, WatchStreamEnded, type TestWatchStream } from '../../../helpers/watch-stream.js'
import { fromPbWatchResponse, toPbWatchRequest } from './pb.js'
import { errorMessage } from '../../../../src/pkg/as-error.js'

type Duplex = Awaited<ReturnType<Etcd3['watchClient']['watch']>>

/** etcd3's EventType names (kv.proto as etcd3 ships it) -> etcd's. */
const EVENT_TYPE: Readonly<Record<string, string>> = { Put: 'PUT', Delete: 'DELETE' }

function isRecord(x: unknown): x is Readonly<Record<string, unknown>> {
  return typeof x === 'object' && x !== null && !Array.isArray(x)
}

/**
 * An etcd3 WatchResponse in the shape fromPbWatchResponse reads: only the event type names differ. A
 * shape that is off in any other way is left as is, for fromPbWatchResponse to reject.
 */
export function fromEtcd3WatchResponse(x: unknown): ReturnType<typeof fromPbWatchResponse> {
  if (!isRecord(x) || !Array.isArray(x['events'])) return fromPbWatchResponse(x)
  const evs: unknown[] = x['events']
  const events = evs.map((e) => {
    if (!isRecord(e)) return e
    const t = e['type']
    return typeof t === 'string' && EVENT_TYPE[t] !== undefined ? { ...e, type: EVENT_TYPE[t] } : e
  })
  return fromPbWatchResponse({ ...x, events })
}

function ended(e: unknown): WatchStreamEnded {
  if (e instanceof Error) {
    const code = (e as Error & { code?: unknown }).code
    return new WatchStreamEnded(e.message, typeof code === 'number' ? code : undefined)
  }
  return new WatchStreamEnded(String(e))
}

/**
 * Open one Watch call with `client.watchClient.watch()`. etcd3 resolves the call asynchronously (it
 * picks a pooled connection first), so requests sent before that are queued and written in order.
 */
export function etcd3WatchStream(client: Etcd3): TestWatchStream {
  const q = new ResponseQueue()
  const queued: IWatchRequest[] = []
  let call: Duplex | undefined
  let closed = false
  const end = (c: Duplex): void => {
    c.end()
    c.cancel()
  }
  client.watchClient.watch().then(
    (c) => {
      if (closed) {
        end(c)
        return
      }
      call = c
      c.on('data', (d: unknown) => {
        try {
          q.push(fromEtcd3WatchResponse(d))
        } catch (e) {
          // A response etcd3 decoded into a shape we do not accept fails the case loudly.
          q.end(new WatchStreamEnded(`unreadable watch response: ${errorMessage(e)}`))
        }
      })
      c.on('error', (e: Error) => q.end(ended(e)))
      c.on('end', () => q.end(new WatchStreamEnded('stream ended')))
      for (const r of queued.splice(0)) c.write(r)
    },
    (e: unknown) => q.end(ended(e)),
  )
  return {
    send: (req) => {
      const pb: IWatchRequest = toPbWatchRequest(req)
      if (call === undefined) queued.push(pb)
      else call.write(pb)
    },
    next: (t) => q.next(t),
    get buffered() {
      return q.length
    },
    close: () => {
      closed = true
      if (call !== undefined) end(call)
    },
  }
}
