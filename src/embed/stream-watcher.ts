// One watcher on a watch stream of its own: what the embedded Watcher (over WatchStream) and the remote
// client's watcher (over its reconnecting stream) share. Iterating yields event responses (and progress
// responses, with no events); the iteration ends when the watcher is canceled, compacted away, aborted or
// its stream closes, and `closed` says which. `break` cancels it.
import type { WatchRequest, WatchResponse } from '../etcdserver/types/watch.js'
import { normalizeWatchCreate } from '../etcdserver/watch.js'
import { prefixEnd } from '../pkg/bytes.js'
import type { Input } from './input.js'
import type { WatchEnd, WatchOptions } from './watch.js'

/** The stream a watcher drives: the embedded WatchStream or the remote client's. */
export interface WatcherStream {
  readonly closed: Promise<void>
  send(req: Input<WatchRequest>): void
  next(): Promise<IteratorResult<WatchResponse, undefined>>
  return(): Promise<IteratorResult<WatchResponse, undefined>>
  close(): void
}

/** The watched range of `o`: `prefix` turns into its range end. */
export function watchedRange(o: WatchOptions): { readonly key: Uint8Array; readonly rangeEnd: Uint8Array | undefined } {
  return { key: o.key, rangeEnd: o.prefix === true ? prefixEnd(o.key) : o.rangeEnd }
}

export abstract class StreamWatcher implements AsyncIterableIterator<WatchResponse>, AsyncDisposable {
  readonly closed: Promise<WatchEnd>
  private end: WatchEnd | undefined
  private resolveClosed!: (e: WatchEnd) => void
  private readonly signal: AbortSignal | undefined
  private readonly onAbort = (): void => this.finish({ reason: 'aborted' })

  /** Creates the watcher on `stream`; throws etcd's errors for an empty range or a negative start revision. */
  protected constructor(private readonly stream: WatcherStream, o: WatchOptions) {
    const { key, rangeEnd } = watchedRange(o)
    normalizeWatchCreate({ key, ...(rangeEnd === undefined ? {} : { rangeEnd }), startRevision: o.startRevision ?? 0 })
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve))
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
        key,
        ...(rangeEnd === undefined ? {} : { rangeEnd }),
        startRevision: o.startRevision ?? 0,
        prevKv: o.prevKv ?? false,
        filters: o.filters ?? [],
        progressNotify: o.progressNotify ?? false,
      },
    })
  }

  /**
   * The error a canceled response ends the iteration with (a refusal of the create), or undefined when the
   * iteration just ends.
   */
  protected abstract canceledError(resp: WatchResponse): Error | undefined

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
        const err = this.canceledError(resp)
        if (err !== undefined) throw err
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
