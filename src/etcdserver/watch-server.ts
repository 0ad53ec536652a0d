// The watch half of the server (etcd's v3rpc watchServer without the transport): the watchable store, the
// open watch streams and the progress ticker that serves their progress_notify watchers.
//
// How a change reaches a watcher, and the four places along the way that batch or keep responses:
//
//   write txn end() ──durable──> WatchableStore.notify ──> ServerWatchStream ──> transport sink ──> client
//                                   │  (victims, unsynced)        (headers, prev_kv,   (gRPC: merge, then
//                                   └─> CatchUpLog ──────────────> fragments)           StreamWriter)
//
// 1. Recent events (mvcc/watchable-store-recent.ts, used by mvcc/watchable-store-catchup.ts). Holds the
//    events of the newest notified revisions, up to 8 MiB, while any watch stream is open. It exists so a
//    watcher that fell a little behind (a victim, a stream that was full for a moment) catches up without
//    reading the backend, and gets the very Event objects its neighbours got, which the encoder has already
//    encoded.
// 2. The log cache (mvcc/watchable-store-catchup.ts). Holds the last span of the revision log a catch-up
//    round decoded, up to 64 MiB, until no watcher is unsynced. It exists because catch-up serves at most
//    512 watchers per round: the next rounds read the same history for the next watchers, and reuse it
//    instead of scanning and decoding it again.
// 3. Response merging (grpc/watch-merger.ts, gRPC only). Holds, per watcher, its last events response
//    while it is still queued on the call (until the next tick, or until the HTTP/2 write in flight is
//    done); the next revision's events join it (at most 16 revisions) instead of queuing another message.
//    It exists to save a message's encoding and framing for each revision that reaches a watcher while an
//    earlier one still waits: revisions made durable by one commit, or written faster than the client
//    reads, as etcd packs a lagging watcher's revisions into one response. The embedded API does not merge:
//    its consumer takes response objects from a queue, with no encoding or write to save, and sees one
//    response per revision while it keeps up, as etcd's clientv3 delivers one WatchResponse per server
//    message; a consumer that falls behind makes its watchers victims, which catch up in multi-revision
//    responses from the store (layers 1 and 2), over every front end.
// 4. StreamWriter (grpc/stream-writer.ts, gRPC only). Holds the responses queued on one Watch call while a
//    write is in flight, and frames them into one HTTP/2 write of at most 128 KiB. It exists because
//    grpc-js makes and awaits one write per message, which costs more than encoding the response.
//
// What bounds each stream is the same everywhere: at most WATCH_CHAN_BUF_LEN (128, etcd's chanBufLen)
// watcher responses wait for the consumer; the next one is refused, its watcher becomes a victim holding
// that one batch, and the stream's owner calls ServerWatchStream.resume() once it has room again.
import type { Clock } from '../pkg/clock.js'
import { Ticker } from '../pkg/ticker.js'
import { WatchableStore } from '../mvcc/watchable-store.js'
import type { CallCredentials } from './types/credentials.js'
import type { ResponseHeader } from './types/header.js'
import { ServerWatchStream, type WatchHost, type WatchResponseSink, type WatchServerContext } from './watch.js'

export interface WatchServerOptions {
  /** How often progress_notify watchers hear the current revision (etcd's --experimental-watch-progress-notify-interval). */
  readonly progressIntervalMs: number
  /** The progress ticker's clock. */
  readonly clock: Clock
  /** The clock of the watchable store's loops, whose delays are internal retries rather than time a test drives. */
  readonly storeClock: Clock
  /** Receives errors thrown by the background loops (which keep going). */
  readonly onError: (err: unknown) => void
}

/** The watchable store over the server's store, every open ServerWatchStream, and the progress ticker. */
export class WatchServer implements WatchServerContext {
  /** Watchers over the store (synced/unsynced groups, victims). */
  readonly watchable: WatchableStore
  private readonly streams = new Set<ServerWatchStream>()
  private readonly progressTicker: Ticker

  constructor(
    private readonly host: WatchHost,
    opts: WatchServerOptions,
  ) {
    this.watchable = new WatchableStore(host.kv, { clock: opts.storeClock, onError: opts.onError })
    this.progressTicker = new Ticker(
      () => {
        for (const s of this.streams) s.tickProgress()
        return undefined
      },
      opts.progressIntervalMs,
      opts.clock,
      opts.onError,
    )
    this.progressTicker.start()
  }

  get kv(): WatchHost['kv'] {
    return this.host.kv
  }

  get fragmentBytes(): number {
    return this.host.fragmentBytes
  }

  /** Open a watch stream: requests go to its `handle()`, responses to `out`. */
  newWatchStream(out: WatchResponseSink, creds?: CallCredentials): ServerWatchStream {
    const s = new ServerWatchStream(this, out, creds)
    this.streams.add(s)
    return s
  }

  /** @internal WatchServerContext */
  header(revision: number): ResponseHeader {
    return this.host.header(revision)
  }

  /** @internal WatchServerContext */
  checkWatchPermitted(creds: CallCredentials | undefined, key: Uint8Array, rangeEnd: Uint8Array): void {
    this.host.checkWatchPermitted(creds, key, rangeEnd)
  }

  /** @internal WatchServerContext */
  streamClosed(s: ServerWatchStream): void {
    this.streams.delete(s)
  }

  /** Stop the progress ticker (awaiting a tick in flight), so no stream hears of progress any more. */
  stopProgress(): Promise<void> {
    return this.progressTicker.stop()
  }

  /** End every stream (each tells its transport to end the call), then stop the watchable store's loops. */
  async close(): Promise<void> {
    await this.progressTicker.stop()
    for (const s of [...this.streams]) s.stop()
    await this.watchable.close()
  }
}
