// The Watch service (etcd v3rpc/watch.go, transport half): one bidirectional stream per call, carrying any
// number of watchers. Requests are decoded by hand (watch-codec.ts) and handed to the server's
// ServerWatchStream; responses are encoded by hand and written with real backpressure: once
// `call.write()` returns false the stream takes no more watcher responses (their watchers become victims
// and are retried from the store) and reads no more requests, until 'drain'.
import type { handleBidiStreamingCall, ServerDuplexStream, ServiceDefinition, UntypedServiceImplementation } from '@grpc/grpc-js'
import type { EtcdServer } from '../etcdserver/etcd-server.js'
import type { WatchResponse } from '../etcdserver/types.js'
import { EtcdError } from '../pkg/errors.js'
import { WATCH_CHAN_BUF_LEN, type ServerWatchStream, type WatchResponseSink } from '../etcdserver/watch.js'
import { decodeWatchRequest, encodeWatchResponseMessage, type DecodedWatchRequest } from './watch-codec.js'
import { toServiceError, type ErrorReporter } from './status.js'

/** The Watch service definition with the hand-written codec. */
export function watchServiceDefinition(base: ServiceDefinition): ServiceDefinition {
  const watch = base['Watch']
  if (watch === undefined) throw new Error('Watch service definition lacks Watch')
  return { ...base, Watch: { ...watch, requestDeserialize: decodeWatchRequest, responseSerialize: encodeWatchResponseMessage } }
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

  /** End every open Watch call with UNAVAILABLE "etcdserver: server stopped"; refuse new ones. */
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
  const finish = (): void => {
    calls.remove(stop)
    if (done) return
    done = true
    stream?.close()
  }
  /** End the call from the server side (shutdown). */
  const stop = (): void => {
    finish()
    call.emit('error', toServiceError(new EtcdError('STOPPED')))
  }
  // Full = etcd's 128 responses not yet handed to HTTP/2 (grpc-js's duplex itself says "full" at 16; one
  // put fanning out to many watchers of a stream queues one response each). Checked live, so victims get
  // back in (on the victim loop's next tick) as soon as there is room, not only once the queue is empty.
  const full = (): boolean => call.writableLength >= WATCH_CHAN_BUF_LEN
  const write = (resp: WatchResponse): void => {
    if (done) return
    call.write(resp)
    if (blocked || !full()) return
    blocked = true
    // Reading no more requests bounds the control responses a client can make us queue while it reads nothing.
    call.pause()
    call.once('drain', () => {
      blocked = false
      if (done) return
      call.resume()
      server.watchable.kickVictims()
    })
  }
  const sink: WatchResponseSink = {
    isFull: full,
    trySend(resp) {
      if (full()) return false
      write(resp)
      return true
    },
    sendControl: write,
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
    stream = server.newWatchStream(sink)
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
  // The client half-closed: etcd's recvLoop sees EOF and the call ends with OK.
  call.on('end', () => {
    finish()
    call.end()
  })
  call.on('cancelled', finish)
  call.on('error', finish)
  call.on('close', finish)
}
