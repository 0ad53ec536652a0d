// One watcher on a remote stream of its own: the embedded Watcher's semantics (embed/watch.ts) over
// RemoteWatchStream, which carries it across reconnects. A create the server refuses (no permission, a
// token that cannot be renewed) rejects the iteration with the typed error the embedded watch() throws.
import type { WatchResponse } from '../etcdserver/types.js'
import { normalizeWatchCreate } from '../etcdserver/watch.js'
import type { WatchEnd, WatchOptions } from '../embed/watch.js'
import { prefixEnd } from '../pkg/bytes.js'
import { EtcdError } from '../pkg/errors.js'
import { fromCancelReason } from './typed-errors.js'
import type { Connection } from './connection.js'
import type { EtcdWatcher } from './etcd-client.js'
import { RemoteWatchStream } from './watch-stream.js'

/** The error behind a refusal's cancel_reason, or a plain Error with its text. */
const refusal = (reason: string): Error => fromCancelReason(reason) ?? new Error(reason === '' ? 'etcdlite: watch canceled by the server' : reason)

export class RemoteWatcher implements EtcdWatcher {
  readonly closed: Promise<WatchEnd>
  private readonly stream: RemoteWatchStream
  private end: WatchEnd | undefined
  private resolveClosed!: (e: WatchEnd) => void
  private readonly signal: AbortSignal | undefined
  private readonly onAbort = (): void => this.finish({ reason: 'aborted' })

  /** @internal use Client.watch(). Throws etcd's errors for an empty range or a negative start revision. */
  constructor(conn: Connection, o: WatchOptions) {
    const rangeEnd = o.prefix === true ? prefixEnd(o.key) : o.rangeEnd
    normalizeWatchCreate({ key: o.key, ...(rangeEnd === undefined ? {} : { rangeEnd }), startRevision: o.startRevision ?? 0 })
    if (conn.closed) throw new EtcdError('STOPPED')
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve))
    this.stream = new RemoteWatchStream(conn)
    this.signal = o.signal
    if (o.signal?.aborted === true) {
      this.finish({ reason: 'aborted' })
      return
    }
    o.signal?.addEventListener('abort', this.onAbort, { once: true })
    void this.stream.closed.then(() => this.finish({ reason: 'closed' }))
    this.stream.send({
      type: 'create',
      request: {
        key: o.key,
        ...(rangeEnd === undefined ? {} : { rangeEnd }),
        startRevision: o.startRevision ?? 0,
        prevKv: o.prevKv ?? false,
        filters: o.filters ?? [],
        progressNotify: o.progressNotify ?? false,
      },
    })
  }

  /** Ask for a progress response (sent once every event up to the current revision has been delivered). */
  requestProgress(): void {
    if (this.end === undefined) this.stream.send({ type: 'progress' })
  }

  /** Stop watching; the iteration ends. */
  cancel(): Promise<void> {
    this.finish({ reason: 'canceled' })
    return Promise.resolve()
  }

  async next(): Promise<IteratorResult<WatchResponse, undefined>> {
    for (;;) {
      const r = await this.stream.next()
      if (r.done === true) return r
      const resp = r.value
      if (resp.compactRevision !== 0) {
        this.finish({ reason: 'compacted', compactRevision: resp.compactRevision })
        return { done: false, value: resp }
      }
      if (resp.canceled) {
        this.finish({ reason: 'canceled' })
        if (resp.cancelReason !== '' || resp.created) throw refusal(resp.cancelReason)
        return { done: true, value: undefined }
      }
      if (resp.created) continue
      return r
    }
  }

  return(): Promise<IteratorResult<WatchResponse, undefined>> {
    this.finish({ reason: 'canceled' })
    return this.stream.return()
  }

  [Symbol.asyncIterator](): this {
    return this
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.cancel()
  }

  private finish(e: WatchEnd): void {
    if (this.end !== undefined) return
    this.end = e
    this.signal?.removeEventListener('abort', this.onAbort)
    this.stream.close()
    this.resolveClosed(e)
  }
}
