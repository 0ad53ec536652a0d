// Watch in process: the same protocol as the gRPC Watch stream (WatchStream), and a one-watcher
// convenience (Watcher). Both are async iterables with bounded buffering: when the consumer falls behind,
// its watchers become victims and later catch up from the store, as over gRPC. Unlike gRPC, responses
// are not merged while queued: the consumer gets one response per revision while it keeps up, as etcd's
// clientv3 delivers one per server message (etcdserver/watch-server.ts tells why only gRPC merges).
import type { EtcdServer } from '../etcdserver/etcd-server.js'
import type { CallCredentials } from '../etcdserver/types/credentials.js'
import type { WatchFilter, WatchRequest, WatchResponse } from '../etcdserver/types/watch.js'
import { WATCH_CHAN_BUF_LEN, type ServerWatchStream } from '../etcdserver/watch.js'
import { QueueIterator } from '../pkg/queue-iterator.js'
import { checkRequest, type Input } from './input.js'
import { StreamWatcher, watchedRange } from './stream-watcher.js'

/** Watcher responses buffered per stream before its watchers become victims (etcd's chanBufLen). */
export const WATCH_STREAM_BUFFER = WATCH_CHAN_BUF_LEN

/**
 * One watch stream, as a gRPC Watch call: `send()` create/cancel/progress requests, iterate the responses
 * (created, events, progress, canceled, compacted) in order. `close()` (or `break`, or `await using`)
 * removes its watchers; responses already buffered are still delivered after close(), not after break.
 */
export class WatchStream extends QueueIterator<WatchResponse> {
  /** Resolves when the stream has ended (closed by either side); never rejects. */
  readonly closed: Promise<void>
  private readonly stream: ServerWatchStream
  private ended = false
  private resolveClosed!: () => void

  /** @internal use Etcd.watchStream() */
  constructor(server: EtcdServer, buffer = WATCH_STREAM_BUFFER, creds?: CallCredentials) {
    super(buffer)
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve))
    this.stream = server.newWatchStream({
      isFull: () => this.queue.isFull(),
      trySend: (r) => this.queue.tryPush(r),
      sendControl: (r) => this.queue.pushForce(r),
      end: () => this.finish(),
    }, creds)
  }

  /**
   * Send a request; throws once the stream is closed, and a TypeError for a request of the wrong types
   * (keys may be strings, sent as UTF-8).
   */
  send(req: Input<WatchRequest>): void {
    const r = checkRequest('watchStream.send', req)
    if (this.ended) throw new Error('etcdlite: watch stream is closed')
    this.stream.handle(r)
  }

  /** End the stream: its watchers go away; responses already queued can still be read. Idempotent. */
  close(): void {
    if (this.ended) return
    this.stream.close()
    this.finish()
  }

  protected stop(): void {
    this.close()
  }

  protected override onSpace(): void {
    this.stream.resume()
  }

  private finish(): void {
    if (this.ended) return
    this.ended = true
    this.queue.close()
    this.resolveClosed()
  }
}

/** What to watch (WatchCreateRequest in embedded form). */
export interface WatchOptions {
  readonly key: Uint8Array
  /** End of the range (exclusive); `"\0"` means every key >= key. Absent: the single key (or `prefix`). */
  readonly rangeEnd?: Uint8Array
  /** Watch every key starting with `key` (sets rangeEnd). */
  readonly prefix?: boolean
  /** First revision to report; 0 or absent: from the next write. Below the compacted revision: ends with 'compacted'. */
  readonly startRevision?: number
  readonly prevKv?: boolean
  readonly filters?: readonly WatchFilter[]
  /** Receive progress responses (no events) at the server's progress interval when idle. */
  readonly progressNotify?: boolean
  /** Aborting cancels the watcher; `closed` then resolves with reason 'aborted'. */
  readonly signal?: AbortSignal
}

/** Why a Watcher ended. */
export interface WatchEnd {
  readonly reason: 'canceled' | 'compacted' | 'aborted' | 'closed'
  /** For 'compacted': the compacted revision; restart from it or later. */
  readonly compactRevision?: number
}

/**
 * One watcher on a stream of its own (see StreamWatcher). Iterating yields event responses (and progress
 * responses, with no events); the iteration ends when the watcher is canceled, compacted away, aborted or
 * the server closes, and `closed` says which. `break` cancels it.
 */
export class Watcher extends StreamWatcher {
  /** @internal use Etcd.watch(). Throws etcd's errors for an empty range or a negative start revision. */
  constructor(server: EtcdServer, o: WatchOptions, creds?: CallCredentials) {
    const { key, rangeEnd } = watchedRange(o)
    // The stream would refuse these in-band; an embedded caller gets the error at once instead.
    server.checkWatchPermitted(creds, key.length === 0 ? Uint8Array.of(0) : key, rangeEnd ?? new Uint8Array(0))
    super(new WatchStream(server, WATCH_STREAM_BUFFER, creds), o)
  }

  /** A refusal was thrown by the constructor already: a canceled response just ends the iteration. */
  protected canceledError(): undefined {
    return undefined
  }
}
