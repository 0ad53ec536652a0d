// A minimal ListWatchSource over gRPC for tests, built on the raw test clients: range() and watch() on
// whatever endpoint `endpoint()` names now, so a test can restart a server on a new port and the
// informer follows. It stands in for the package's remote client (connect()) until that exists; the
// informer only needs range() and watch() of this shape from it.
import type { ListWatchSource, SourceRangeRequest, SourceRangeResponse, SourceWatchEnd, SourceWatcher, SourceWatchOptions, SourceWatchResponse } from '../../src/informer/source.js'
import { fromPbRange, toPbRange } from '../compliance/adapters/pb.js'
import { rawClient, type RawClient } from './grpc-client.js'
import { rawWatchClient, WatchStreamEnded } from './watch-stream.js'

/** No timeout: a quiet watch is not a failure (the stream's end or cancel() ends the wait). */
const FOREVER_MS = 2 ** 31 - 1

export class GrpcTestSource implements ListWatchSource {
  private readonly endpoint: () => string
  private client: { endpoint: string; raw: RawClient } | undefined
  private readonly open = new Set<SourceWatcher>()

  constructor(endpoint: () => string) {
    this.endpoint = endpoint
  }

  /** The raw KV client of the current endpoint (for the test's own writes too). */
  kv(): RawClient['kv'] {
    const ep = this.endpoint()
    if (this.client?.endpoint !== ep) {
      this.client?.raw.close()
      this.client = { endpoint: ep, raw: rawClient(ep) }
    }
    return this.client.raw.kv
  }

  async range(req: SourceRangeRequest): Promise<SourceRangeResponse> {
    return fromPbRange(await this.kv().Range(toPbRange(req)))
  }

  watch(opts: SourceWatchOptions): SourceWatcher {
    const client = rawWatchClient(this.endpoint())
    const stream = client.open()
    let resolveClosed!: (e: SourceWatchEnd) => void
    const closed = new Promise<SourceWatchEnd>((resolve) => (resolveClosed = resolve))
    let ended = false
    const end = (e: SourceWatchEnd): void => {
      if (ended) return
      ended = true
      stream.close()
      client.close()
      resolveClosed(e)
    }
    stream.send({ type: 'create', request: { key: opts.key, rangeEnd: opts.rangeEnd, startRevision: opts.startRevision, prevKv: opts.prevKv, progressNotify: opts.progressNotify } })
    async function* responses(): AsyncGenerator<SourceWatchResponse> {
      try {
        while (!ended) {
          let r: SourceWatchResponse
          try {
            r = await stream.next(FOREVER_MS)
          } catch (err) {
            end({ reason: err instanceof WatchStreamEnded ? 'closed' : 'error' })
            return
          }
          if (r.created === true && r.canceled !== true) continue
          if ((r.compactRevision ?? 0) !== 0) {
            end({ reason: 'compacted', compactRevision: r.compactRevision ?? 0 })
            yield r
            return
          }
          if (r.canceled === true) {
            end({ reason: 'canceled' })
            return
          }
          yield r
        }
      } finally {
        end({ reason: 'canceled' })
      }
    }
    const w: SourceWatcher = {
      closed,
      requestProgress: () => {
        if (!ended) stream.send({ type: 'progress' })
      },
      cancel: () => {
        end({ reason: 'canceled' })
        return Promise.resolve()
      },
      [Symbol.asyncIterator]: () => responses(),
    }
    this.open.add(w)
    void closed.then(() => this.open.delete(w))
    return w
  }

  close(): void {
    for (const w of this.open) void w.cancel()
    this.client?.raw.close()
  }
}
