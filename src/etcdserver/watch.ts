// Mirrors etcd etcdserver/api/v3rpc/watch.go (serverWatchStream) without the transport: turns watch
// requests into mvcc watchers and store responses into WatchResponses (headers, prev_kv, fragments).
// The gRPC service and the embedded API both drive it, so both speak exactly the same protocol.
import { toRangeEnd, type RangeEnd } from '../pkg/bytes.js'
import { ERROR_MESSAGES, EtcdError, type ErrorCode } from '../pkg/errors.js'
import { watchResponseSize } from '../wire/watch.js'
import { CompactedError } from '../mvcc/errors.js'
import type { Event, KV, ReadView } from '../mvcc/kv.js'
import { checkWatchRange, INVALID_WATCH_ID, watchFilters, type StoreWatchResponse, type WatchSink, type WatchStream } from '../mvcc/watcher.js'
import type { WatchableStore } from '../mvcc/watchable-store.js'
import type { CallCredentials } from './types/credentials.js'
import type { ResponseHeader } from './types/header.js'
import type { WatchCreateRequest, WatchEvent, WatchRequest, WatchResponse } from './types/watch.js'
import type { WatchId } from '../pkg/watch-id.js'

/**
 * Where a ServerWatchStream writes. `trySend` carries watcher responses and may refuse (the consumer is
 * full: nothing taken, the watcher becomes a victim and is retried). `sendControl` carries created and
 * canceled responses and the rest of a fragmented batch, and always takes them; a transport bounds those
 * by reading no more requests while it is full.
 */
export interface WatchResponseSink {
  /** True while trySend would refuse: checked first, so a victim retry costs nothing while its stream is full. */
  isFull(): boolean
  trySend(resp: WatchResponse): boolean
  sendControl(resp: WatchResponse): void
  /** The server is shutting down and has removed the stream's watchers; end the stream. */
  end(): void
}

/** What the watch half of the server needs of the rest of it (EtcdServer provides it). */
export interface WatchHost {
  /** The store: watched by the watchable store, read for prev_kv, counting events in its metrics. */
  readonly kv: KV
  header(revision: number): ResponseHeader
  /** Responses of a watcher created with `fragment` are split at this many bytes. */
  readonly fragmentBytes: number
  /**
   * Throws unless the caller may read [key, rangeEnd) (etcd's isWatchPermitted; rangeEnd empty: the key
   * alone, "\0": every key from `key` on). No-op while auth is disabled.
   */
  checkWatchPermitted(creds: CallCredentials | undefined, key: Uint8Array, rangeEnd: Uint8Array): void
}

/** What a watch stream needs from the server (WatchServer, watch-server.ts, provides it). */
export interface WatchServerContext extends WatchHost {
  readonly watchable: WatchableStore
  /** The stream ended; the server stops tracking it. */
  streamClosed(s: ServerWatchStream): void
}

/**
 * The cancel_reason of a watch create refused by auth: etcd's recvLoop puts the gRPC error's Go text there
 * (`rpc error: code = … desc = …`). Three auth failures keep their own; any other is "permission denied".
 */
const grpcErrorText = (code: string, e: ErrorCode): string => `rpc error: code = ${code} desc = ${ERROR_MESSAGES[e]}`
const AUTH_CANCEL_REASONS: Partial<Readonly<Record<ErrorCode, string>>> = {
  INVALID_AUTH_TOKEN: grpcErrorText('Unauthenticated', 'INVALID_AUTH_TOKEN'),
  AUTH_OLD_REVISION: grpcErrorText('InvalidArgument', 'AUTH_OLD_REVISION'),
  USER_EMPTY: grpcErrorText('InvalidArgument', 'USER_EMPTY'),
}
const PERMISSION_DENIED_REASON = grpcErrorText('PermissionDenied', 'PERMISSION_DENIED')
const EMPTY = new Uint8Array(0)

interface WatcherFlags {
  readonly prevKv: boolean
  readonly fragment: boolean
  readonly progressNotify: boolean
}

const KEY_ZERO: Uint8Array = Uint8Array.of(0)

/** The eight flag combinations, shared by every watcher (a stream may hold many thousands). */
const FLAG_SETS: readonly WatcherFlags[] = Array.from({ length: 8 }, (_, i) => ({ prevKv: (i & 1) !== 0, fragment: (i & 2) !== 0, progressNotify: (i & 4) !== 0 }))
const watcherFlags = (prevKv: boolean, fragment: boolean, progressNotify: boolean): WatcherFlags =>
  FLAG_SETS[(prevKv ? 1 : 0) + (fragment ? 2 : 0) + (progressNotify ? 4 : 0)] as WatcherFlags
const NO_FLAGS = watcherFlags(false, false, false)

/** Watcher responses a stream holds for its consumer before its watchers become victims (etcd's chanBufLen). */
export const WATCH_CHAN_BUF_LEN = 128

/**
 * The watched range and start revision of a create request, as etcd's recvLoop reads them: an empty key is
 * "\0" (the smallest key), range_end goes through toRangeEnd. Throws CompactedError for a negative start
 * revision (as later etcd releases do; 3.4.23 accepted it and misbehaved) and EmptyWatcherRangeError for key >= end.
 * A start revision of 0 stays 0 (from the next revision), as in etcd 3.4.38+: such a watcher is never a
 * "future" watcher, so it gets progress at once.
 */
export function normalizeWatchCreate(r: WatchCreateRequest): { key: Uint8Array; end: RangeEnd; startRevision: number } {
  const key = r.key.length === 0 ? KEY_ZERO : r.key
  const end = toRangeEnd(r.rangeEnd)
  const startRevision = r.startRevision ?? 0
  if (startRevision < 0) throw new CompactedError()
  checkWatchRange(key, end)
  return { key, end, startRevision }
}

/** A PUT that created its key has no previous value (etcd's isCreateEvent). */
const isCreate = (e: Event): boolean => e.type === 'PUT' && e.kv.createRevision === e.kv.modRevision

/** The key's value just before the event; omitted when that revision is compacted (etcd does the same). */
function withPrevKv(view: ReadView, e: Event): WatchEvent {
  if (isCreate(e)) return e
  try {
    const prev = view.range(e.kv.key, undefined, { rev: e.kv.modRevision - 1 }).kvs[0]
    return prev === undefined ? e : { type: e.type, kv: e.kv, prevKv: prev }
  } catch (err) {
    if (err instanceof CompactedError) return e
    throw err
  }
}

export class ServerWatchStream implements WatchSink {
  private readonly ctx: WatchServerContext
  private readonly out: WatchResponseSink
  private readonly ws: WatchStream
  private readonly flags = new Map<WatchId, WatcherFlags>()
  /** progress_notify watchers: true = nothing sent since the last tick, so the next tick reports progress. */
  private readonly progress = new Map<WatchId, boolean>()
  private closed = false
  /** The credentials the stream was opened with; each create is checked with them as they stand then. */
  private readonly creds: CallCredentials | undefined
  /**
   * The last two headers used. Responses alternate between a few revisions (live events at the newest,
   * catch-up and victim batches at older ones) while the server keeps only its latest header object; reusing
   * ours keeps the encoder's per-header-object cache hitting. ctx.header(rev) depends on rev alone (the IDs
   * and raft term are fixed for the server's life).
   */
  private header0: ResponseHeader | undefined
  private header1: ResponseHeader | undefined

  constructor(ctx: WatchServerContext, out: WatchResponseSink, creds?: CallCredentials) {
    this.ctx = ctx
    this.out = out
    this.creds = creds
    this.ws = ctx.watchable.newWatchStream(this)
  }

  /** Handle one request from the client (etcd's recvLoop body). Never throws for bad input. */
  handle(req: WatchRequest): void {
    if (this.closed) return
    switch (req.type) {
      case 'create':
        this.create(req.request)
        return
      case 'cancel':
        this.cancel(req.watchId)
        return
      case 'progress':
        this.ws.requestProgressAll()
        return
    }
  }

  /** The server's progress ticker: progress for each progress_notify watcher that got nothing since the last tick. */
  tickProgress(): void {
    for (const [id, due] of this.progress) {
      if (due) this.ws.requestProgress(id)
      this.progress.set(id, true)
    }
  }

  /** How many watchers the stream has. */
  get size(): number {
    return this.ws.size
  }

  /**
   * The sink refused a response (its trySend returned false) and has room again: its watchers, now
   * victims, are retried at once instead of on the victim loop's next tick. Every transport calls this.
   */
  resume(): void {
    this.ws.resume()
  }

  /** The server is stopping: remove the watchers and tell the transport to end the stream. */
  stop(): void {
    if (this.closed) return
    this.close()
    this.out.end()
  }

  /** End the stream (the client went away): every watcher goes away. Idempotent. */
  close(): void {
    if (this.closed) return
    this.closed = true
    this.ws.close()
    this.flags.clear()
    this.progress.clear()
    this.ctx.streamClosed(this)
  }

  private create(r: WatchCreateRequest): void {
    const wsrev = this.ws.rev()
    let id: WatchId
    try {
      // Before the range and revision checks, as etcd's recvLoop. Unlike 3.4.23, a range_end of "\0" is
      // checked as the range to the last key, not as the single key `key` (see docs/DEVIATIONS.md).
      this.ctx.checkWatchPermitted(this.creds, r.key.length === 0 ? KEY_ZERO : r.key, r.rangeEnd ?? EMPTY)
    } catch (err) {
      if (!(err instanceof EtcdError)) throw err
      const cancelReason = AUTH_CANCEL_REASONS[err.code] ?? PERMISSION_DENIED_REASON
      this.out.sendControl(this.response(wsrev, INVALID_WATCH_ID, { created: true, canceled: true, cancelReason }))
      return
    }
    try {
      const { key, end, startRevision } = normalizeWatchCreate(r)
      const filters = watchFilters(r.filters?.includes('NOPUT') ?? false, r.filters?.includes('NODELETE') ?? false)
      id = this.ws.watch(r.watchId ?? 0, key, end, startRevision, filters)
    } catch (err) {
      if (!(err instanceof EtcdError)) throw err
      this.out.sendControl(this.response(wsrev, INVALID_WATCH_ID, { created: true, canceled: true, cancelReason: err.message }))
      return
    }
    // Only watchers with a flag set get an entry: most have none, and a stream may hold many thousands.
    const flags = watcherFlags(r.prevKv === true, r.fragment === true, r.progressNotify === true)
    if (flags !== NO_FLAGS) this.flags.set(id, flags)
    if (r.progressNotify === true) this.progress.set(id, true)
    // Sent before the watcher can produce anything: its events come from a later turn of the event loop.
    this.out.sendControl(this.response(wsrev, id, { created: true }))
  }

  private cancel(id: WatchId): void {
    if (this.ws.get(id) === undefined) return // etcd ignores a cancel of an unknown ID
    this.ws.cancel(id)
    this.flags.delete(id)
    this.progress.delete(id)
    this.out.sendControl(this.response(this.ws.rev(), id, { canceled: true }))
  }

  /** WatchSink: a store response becomes a WatchResponse (etcd's sendLoop body). */
  trySend(r: StoreWatchResponse): boolean {
    if (this.out.isFull()) return false
    const flags = this.flags.get(r.watchId)
    let events: readonly WatchEvent[] = r.events
    if (flags?.prevKv === true) {
      const view = this.ctx.kv.read()
      events = r.events.map((e) => withPrevKv(view, e))
    }
    const compacted = r.compactRevision !== 0
    const resp = this.response(r.revision, r.watchId, { canceled: compacted, compactRevision: r.compactRevision, events })
    let ok: boolean
    if (flags?.fragment === true && events.length >= 2 && watchResponseSize(resp) >= this.ctx.fragmentBytes) ok = this.sendFragments(resp)
    else ok = this.out.trySend(resp)
    if (!ok) return false
    // etcd counts events as its stream takes them off the watcher's channel; here the store hands them over.
    this.ctx.kv.metrics.events += events.length
    if (events.length !== 0 && this.progress.has(r.watchId)) this.progress.set(r.watchId, false)
    if (compacted) {
      this.flags.delete(r.watchId)
      this.progress.delete(r.watchId)
    }
    return true
  }

  /** etcd's sendFragments: consecutive responses under the limit, all but the last flagged `fragment`. */
  private sendFragments(whole: WatchResponse): boolean {
    const parts: WatchResponse[] = []
    let cur: WatchEvent[] = []
    for (const ev of whole.events) {
      cur.push(ev)
      if (cur.length > 1 && watchResponseSize({ ...whole, fragment: true, events: cur }) >= this.ctx.fragmentBytes) {
        cur.pop()
        parts.push({ ...whole, fragment: true, events: cur })
        cur = [ev]
      }
    }
    parts.push({ ...whole, fragment: false, events: cur })
    const [first, ...rest] = parts
    if (first === undefined || !this.out.trySend(first)) return false
    for (const p of rest) this.out.sendControl(p)
    return true
  }

  private header(revision: number): ResponseHeader {
    const h0 = this.header0
    if (h0?.revision === revision) return h0
    const h1 = this.header1
    this.header1 = h0
    if (h1?.revision === revision) return (this.header0 = h1)
    return (this.header0 = this.ctx.header(revision))
  }

  private response(revision: number, watchId: WatchId, o: Partial<Omit<WatchResponse, 'header' | 'watchId'>>): WatchResponse {
    return {
      header: this.header(revision),
      watchId,
      created: o.created ?? false,
      canceled: o.canceled ?? false,
      compactRevision: o.compactRevision ?? 0,
      cancelReason: o.cancelReason ?? '',
      fragment: o.fragment ?? false,
      events: o.events ?? [],
    }
  }
}
