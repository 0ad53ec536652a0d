// The Watch service (etcd v3rpc/watch.go, transport half): one bidirectional stream per call, carrying any
// number of watchers. Requests are decoded by hand (wire/watch.ts) and handed to the server's
// ServerWatchStream; responses are encoded by hand and written in batches (stream-writer.ts: one HTTP/2
// write per fan-out round, at most 128 KiB, one batch in flight) with real backpressure: once 128 responses
// wait behind the batch in flight the stream takes no more watcher responses (their watchers become victims
// and are retried from the store) and reads no more requests, until that batch is written.
//
// While a watcher's last events response still waits in the queue (not yet encoded), the next revision's
// events join it (watch-merger.ts). How this fits with the other layers that batch or keep watch
// responses, and why only gRPC merges, is told in etcdserver/watch-server.ts.
import type { handleBidiStreamingCall, ServerDuplexStream, ServiceDefinition, UntypedServiceImplementation } from '@grpc/grpc-js'
import type { EtcdServer } from '../etcdserver/etcd-server.js'
import type { WatchResponse } from '../etcdserver/types/watch.js'
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
import { isPlainEvents, ResponseMerger } from './watch-merger.js'

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
  const watch: handleBidiStreamingCall<DecodedWatchRequest, WatchResponse> = (call) => serveWatch(server, call, report, calls)
  return { Watch: watch }
}

function serveWatch(server: EtcdServer, call: ServerDuplexStream<DecodedWatchRequest, WatchResponse>, report: ErrorReporter, calls: WatchCalls): void {
  let blocked = false
  let done = false
  let stream: ServerWatchStream | undefined
  const merger = new ResponseMerger()
  const stopAppending = (): void => merger.seal()
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
    stream?.resume()
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
      const plain = isPlainEvents(resp)
      if (plain && merger.append(resp)) return true
      if (full()) return false
      if (!plain) {
        writeOther(resp)
        return true
      }
      write(merger.queued(resp))
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
