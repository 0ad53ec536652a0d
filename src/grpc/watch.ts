// The Watch service (etcd v3rpc/watch.go, transport half): one bidirectional stream per call, carrying any
// number of watchers. Requests are decoded by hand (wire/watch.ts) and handed to the server's
// ServerWatchStream; responses are encoded by hand and written in batches (stream-writer.ts: one HTTP/2
// write per fan-out round, at most 128 KiB, one batch in flight) with real backpressure: once 128 responses
// wait behind the batch in flight the stream takes no more watcher responses (their watchers become victims
// and are retried from the store) and reads no more requests, until that batch is written.
//
// While a watcher's last events response still waits in the queue (not yet encoded), the next revision's
// events are appended to it (up to MERGE_MAX_REVS revisions) instead of queuing another message: what
// etcd does for a watcher that fell behind (one response, several revisions), without the detour through
// the victim batch and the revision log.
import type { handleBidiStreamingCall, ServerDuplexStream, ServiceDefinition, UntypedServiceImplementation } from '@grpc/grpc-js'
import type { EtcdServer } from '../etcdserver/etcd-server.js'
import type { WatchEvent, WatchResponse } from '../etcdserver/types/watch.js'
import { EtcdError } from '../pkg/errors.js'
import { WATCH_CHAN_BUF_LEN, type ServerWatchStream, type WatchResponseSink } from '../etcdserver/watch.js'
import { encodeWatchResponseTransient } from '../wire/watch-fanout.js'
import { decodeWatchRequest, type DecodedWatchRequest } from '../wire/watch.js'
import { toServiceError, type ErrorReporter } from './status.js'
import { credentialsOf } from './interceptor.js'
import { batchOutOf, SendError, StreamWriter } from './stream-writer.js'
import { onClientGone } from './call-liveness.js'
import { grpcMetricsFor } from './metrics.js'
import { serverMetrics } from '../etcdserver/metrics.js'
import type { WatchId } from '../pkg/watch-id.js'

/** Most revisions appended into one queued response (bounds what a backlogged stream holds). */
const MERGE_MAX_REVS = 16

/** A response as queued on the call: events may still be appended until the writer seals its batch. */
interface QueuedResponse extends WatchResponse {
  header: WatchResponse['header']
  events: readonly WatchEvent[]
  revs?: number
  /** Our own copy of the events once something was appended (the first array is shared with other watchers). */
  merged?: WatchEvent[]
}

/** The Watch service definition with the hand-written codec. */
export function watchServiceDefinition(base: ServiceDefinition): ServiceDefinition {
  const watch = base['Watch']
  if (watch === undefined) throw new Error('Watch service definition lacks Watch')
  return { ...base, Watch: { ...watch, requestDeserialize: decodeWatchRequest, responseSerialize: encodeWatchResponseTransient } }
}

/** The Watch calls a gRPC server has open, so shutdown can end them instead of waiting for clients. */
export class WatchCalls {
  private readonly enders = new Set<() => void>()
  private stopping = false

  /** @internal */
  add(end: () => void): boolean {
    if (this.stopping) return false
    this.enders.add(end)
    return true
  }

  /** @internal */
  remove(end: () => void): void {
    this.enders.delete(end)
  }

  /**
   * End every open long-lived call (Watch and LeaseKeepAlive streams) with UNAVAILABLE "etcdserver: server
   * stopped"; refuse new ones.
   */
  endAll(): void {
    this.stopping = true
    for (const end of [...this.enders]) end()
  }
}

export function watchHandlers(server: EtcdServer, report: ErrorReporter, calls: WatchCalls): UntypedServiceImplementation {
  const watch: handleBidiStreamingCall<DecodedWatchRequest, QueuedResponse> = (call) => serveWatch(server, call, report, calls)
  return { Watch: watch }
}

function serveWatch(server: EtcdServer, call: ServerDuplexStream<DecodedWatchRequest, QueuedResponse>, report: ErrorReporter, calls: WatchCalls): void {
  let blocked = false
  let done = false
  let stream: ServerWatchStream | undefined
  /** Each watcher's last queued events response, which later events may join until the writer seals it. */
  const lastEvents = new Map<WatchId, QueuedResponse>()
  /** Nothing queued so far may take more events (Map.clear() allocates a fresh table even when empty). */
  const stopAppending = (): void => {
    if (lastEvents.size !== 0) lastEvents.clear()
  }
  const sent = (err: Error | undefined): void => {
    if (err !== undefined) {
      if (err instanceof SendError) {
        // A response that could not be sent (not a client that went away): etcd counts the send failure.
        grpcMetricsFor(serverMetrics(server)).streamFailed({ type: 'send', api: 'watch' })
        call.emit('error', { code: err.code, details: err.message })
      } else finish()
      return
    }
    if (!blocked || full()) return
    blocked = false
    if (done) return
    call.resume()
    server.watchable.kickVictims()
  }
  const writer = new StreamWriter<WatchResponse>(batchOutOf(call), sent, stopAppending)
  let unwatchClient: () => void = () => undefined
  const finish = (): void => {
    calls.remove(stop)
    unwatchClient()
    if (done) return
    done = true
    writer.close()
    stream?.close()
  }
  /** End the call from the server side (shutdown), after what is queued. */
  const stop = (): void => {
    writer.flushNow()
    finish()
    call.emit('error', toServiceError(new EtcdError('STOPPED')))
  }
  // Full = etcd's 128 responses (its watch stream's channel) not yet handed to HTTP/2. Responses queue only
  // while a batch is in flight, so this counts what piled up behind a slow write. Checked live, so victims
  // get back in (on the victim loop's next tick) as soon as there is room, not only once the queue is empty.
  const full = (): boolean => writer.unsent >= WATCH_CHAN_BUF_LEN
  const write = (resp: WatchResponse): void => {
    if (done) return
    writer.push(resp)
    if (blocked || !full()) return
    blocked = true
    // Reading no more requests bounds the control responses a client can make us queue while it reads nothing.
    call.pause()
  }
  /** Anything but a plain events response is ordered against every watcher's events: stop appending. */
  const writeOther = (resp: WatchResponse): void => {
    stopAppending()
    write(resp)
  }
  const sink: WatchResponseSink = {
    isFull: full,
    trySend(resp) {
      const plain = resp.events.length !== 0 && !resp.created && !resp.canceled && !resp.fragment
      if (plain) {
        const q = lastEvents.get(resp.watchId)
        if (q !== undefined && (q.revs ?? 1) < MERGE_MAX_REVS) {
          if (q.merged === undefined) q.events = q.merged = q.events.slice()
          for (const e of resp.events) q.merged.push(e)
          q.header = resp.header
          q.revs = (q.revs ?? 1) + 1
          return true
        }
      }
      if (full()) return false
      if (!plain) {
        writeOther(resp)
        return true
      }
      // ServerWatchStream builds a fresh object per response: it is ours to append to.
      const q = resp as QueuedResponse
      lastEvents.set(resp.watchId, q)
      write(q)
      return true
    },
    sendControl: writeOther,
    end() {
      if (!done) stop()
    },
  }
  if (!calls.add(stop)) {
    done = true
    call.emit('error', toServiceError(new EtcdError('STOPPED')))
    return
  }
  try {
    stream = server.newWatchStream(sink, credentialsOf(call))
  } catch (err) {
    calls.remove(stop)
    done = true
    call.emit('error', toServiceError(err, report))
    return
  }
  call.on('data', (req: DecodedWatchRequest) => {
    if (req.type === 'none') return
    try {
      stream?.handle(req)
    } catch (err) {
      report(err)
    }
  })
  // No 'end' handler: when the client half-closes, etcd's recvLoop returns on EOF without ending the call,
  // so the stream stays open and its watchers go on sending until the client cancels or goes away
  // (grpc-gateway's watch half-closes once it has sent its create request).
  // A client that dies while a write waits for flow-control window is never reported by grpc-js.
  unwatchClient = onClientGone(call, finish)
  call.on('cancelled', finish)
  call.on('error', finish)
  call.on('close', finish)
}
