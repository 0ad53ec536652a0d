// Election Observe over a remote server-streaming call, carried across reconnects: a new stream starts
// with the current leader again, which is passed on only if it differs from the last one delivered, so a
// reconnect repeats nothing.
import type * as grpc from '@grpc/grpc-js'
import type { LeaderRequest, LeaderResponse } from '../etcdserver/types/concurrency.js'
import type { LeaderResponse__Output as PbLeaderResponse } from '../grpc/generated/v3electionpb/LeaderResponse.js'
import { fromPbLeaderResponse } from '../grpc/convert-concurrency.js'
import type { Connection } from './connection.js'
import { closedError, toClientError, transportFailure } from './grpc-error.js'

const sameLeader = (a: LeaderResponse | undefined, b: LeaderResponse): boolean =>
  a !== undefined && a.kv.modRevision === b.kv.modRevision && Buffer.compare(a.kv.key, b.kv.key) === 0

/** Every change of leader of `req.name`, starting with the current one, until the signal aborts (its reason is thrown). */
export async function* observe(conn: Connection, req: LeaderRequest, signal: AbortSignal | undefined): AsyncGenerator<LeaderResponse, void, undefined> {
  const backoff = conn.newBackoff()
  let last: LeaderResponse | undefined
  let renewed = false
  for (;;) {
    signal?.throwIfAborted()
    const channel = conn.pick()
    const rpc = conn.rpc.observe
    const call: grpc.ClientReadableStream<PbLeaderResponse> = channel.client.makeServerStreamRequest(
      rpc.path, rpc.serialize, rpc.deserialize, { name: req.name }, conn.metadata(), {},
    )
    const cancel = (): void => call.cancel()
    signal?.addEventListener('abort', cancel, { once: true })
    const disown = conn.own({ close: cancel })
    try {
      for await (const m of call as AsyncIterable<PbLeaderResponse>) {
        backoff.reset()
        renewed = false
        const r = fromPbLeaderResponse(m)
        if (sameLeader(last, r)) continue
        last = r
        yield r
      }
      // The server ended the stream without an error: observe again.
      conn.failed(channel)
    } catch (e) {
      signal?.throwIfAborted()
      if (conn.closed) throw closedError()
      if (transportFailure(e).retry) conn.failed(channel)
      else {
        const err = toClientError(e)
        if (renewed || !conn.tokenRefused(err)) throw err
        renewed = true
        await conn.renewToken()
        continue
      }
    } finally {
      signal?.removeEventListener('abort', cancel)
      disown()
      call.cancel()
    }
    if (!(await conn.sleep(backoff.next()))) throw closedError()
  }
}
