// Random watch traffic for the watch differential test, and the model of what a watcher must receive (used
// only to know when the reference has delivered everything; the comparison itself is server against server).
// Generation depends only on the PRNG and on state observed from the reference, so a seed replays exactly.
import type { Prng } from '../helpers/prng.js'
import type { WatchCreateRequest, WatchFilter } from '../../src/etcdserver/types/watch.js'
import { prefixEnd } from '../../src/pkg/bytes.js'
import { b, KEYS, RequestGen, type GenState, type Op } from './gen.js'
import type { WatchId } from '../../src/pkg/watch-id.js'

/** Streams the generator drives, besides stream 0 (the history stream, which only the harness touches). */
export const RANDOM_STREAMS = 3

export type WatchOp =
  | { readonly kind: 'write'; readonly op: Op }
  | { readonly kind: 'create'; readonly stream: number; readonly req: WatchCreateRequest }
  | { readonly kind: 'cancel'; readonly stream: number; readonly watchId: WatchId }
  | { readonly kind: 'compact'; readonly op: Op }
  | { readonly kind: 'reopen'; readonly stream: number }

export interface WatchGenState extends GenState {
  /** Per stream: watch IDs registered on the reference (compacted watchers included: etcd keeps their IDs). */
  readonly liveIds: WatchId[][]
}

/** IDs a client may pick itself: small ones collide with auto-assigned IDs on purpose. */
const EXPLICIT_IDS = [1, 2, 3, 7, 100] as const

export class WatchOpGen {
  private readonly kv: RequestGen

  constructor(
    private readonly r: Prng,
    private readonly s: WatchGenState,
  ) {
    this.kv = new RequestGen(r, s)
  }

  private stream(): number {
    return 1 + this.r.int(RANDOM_STREAMS)
  }

  /** A put, delete or txn from the KV generator (reads and compactions are drawn again). */
  private write(): Op {
    for (;;) {
      const op = this.kv.op()
      if (op.kind === 'put' || op.kind === 'deleteRange' || op.kind === 'txn') return op
    }
  }

  /** key + rangeEnd: single key, prefix, from-key, [key, other) (possibly empty or inverted), all, empty key. */
  private keyRange(): { key: Uint8Array; rangeEnd?: Uint8Array } {
    const key = this.r.pick(KEYS)
    const shape = this.r.weighted<'single' | 'prefix' | 'from' | 'between' | 'all' | 'emptyKey'>([
      [35, 'single'], [20, 'prefix'], [10, 'from'], [20, 'between'], [10, 'all'], [5, 'emptyKey'],
    ])
    switch (shape) {
      case 'single': return { key }
      case 'prefix': return { key, rangeEnd: prefixEnd(key) }
      case 'from': return { key, rangeEnd: b('\x00') }
      case 'between': return { key, rangeEnd: this.r.pick(KEYS) }
      case 'all': return { key: b('\x00'), rangeEnd: b('\x00') }
      // An empty key is read as "\0"; with no range end that is the single key "\0" (which is in KEYS).
      case 'emptyKey': return this.r.chance(0.5) ? { key: b('') } : { key: b(''), rangeEnd: this.r.pick(KEYS) }
    }
  }

  /** 0 (from now), history, exactly the compact revision, below it, the first revision, or the future. */
  private startRevision(): number {
    const { rev, compactRev } = this.s
    const pick = this.r.weighted<'now' | 'past' | 'edge' | 'compacted' | 'first' | 'future'>([
      [40, 'now'], [25, 'past'], [compactRev > 0 ? 8 : 0, 'edge'], [compactRev > 1 ? 7 : 0, 'compacted'], [5, 'first'], [15, 'future'],
    ])
    switch (pick) {
      case 'now': return 0
      case 'past': return this.r.between(Math.max(1, compactRev), Math.max(1, rev))
      case 'edge': return compactRev
      case 'compacted': return this.r.between(1, compactRev - 1)
      case 'first': return 1
      case 'future': return rev + this.r.between(1, 3)
    }
  }

  private create(): WatchCreateRequest {
    const filters = this.r.weighted<readonly WatchFilter[]>([[75, []], [10, ['NOPUT']], [10, ['NODELETE']], [5, ['NOPUT', 'NODELETE']]])
    return {
      ...this.keyRange(),
      startRevision: this.startRevision(),
      prevKv: this.r.chance(0.35),
      ...(filters.length > 0 ? { filters } : {}),
      ...(this.r.chance(0.2) ? { watchId: this.r.pick(EXPLICIT_IDS) } : {}),
      // With the default 10-minute interval a progress notification never fires within a test: the flag
      // must simply be accepted and change nothing.
      ...(this.r.chance(0.1) ? { progressNotify: true } : {}),
      // Responses here stay far below the 1.5 MiB fragment threshold: the flag must change nothing.
      ...(this.r.chance(0.1) ? { fragment: true } : {}),
    }
  }

  private cancelId(stream: number): WatchId {
    const live = this.s.liveIds[stream] ?? []
    // Mostly a registered ID; sometimes any small ID (unknown or already canceled: no answer expected).
    return live.length > 0 && this.r.chance(0.8) ? this.r.pick(live) : this.r.int(10)
  }

  /** A compaction into the older half of the live history, always physical (see the test file). */
  private compact(): Op {
    const { rev, compactRev } = this.s
    const revision = this.r.between(compactRev + 1, compactRev + Math.ceil((rev - compactRev) / 2))
    return { kind: 'compact', req: { revision: String(revision), physical: true } }
  }

  op(): WatchOp {
    const canCompact = this.s.compactRev < this.s.rev - 1
    const kind = this.r.weighted<WatchOp['kind']>([[55, 'write'], [24, 'create'], [10, 'cancel'], [canCompact ? 5 : 0, 'compact'], [2, 'reopen']])
    switch (kind) {
      case 'write': return { kind, op: this.write() }
      case 'create': return { kind, stream: this.stream(), req: this.create() }
      case 'cancel': {
        const stream = this.stream()
        return { kind, stream, watchId: this.cancelId(stream) }
      }
      case 'compact': return { kind, op: this.compact() }
      case 'reopen': return { kind, stream: this.stream() }
    }
  }
}

// The model: how many events a watcher must have received

/** One event as the history watcher saw it. */
export interface HistoryEvent {
  readonly rev: number
  readonly type: 'PUT' | 'DELETE'
  readonly key: Uint8Array
}

function cmp(a: Uint8Array, c: Uint8Array): number {
  return Buffer.compare(a, c)
}

/** A create request's key range as etcd's v3rpc normalizes it: empty key -> "\0"; range end "\0" -> +inf. */
export function watchRange(req: WatchCreateRequest): { key: Uint8Array; end: Uint8Array | undefined | 'inf' } {
  const key = req.key.length === 0 ? b('\x00') : req.key
  const re = req.rangeEnd
  if (re === undefined || re.length === 0) return { key, end: undefined }
  if (re.length === 1 && re[0] === 0) return { key, end: 'inf' }
  return { key, end: re }
}

export function matches(req: WatchCreateRequest, key: Uint8Array): boolean {
  const r = watchRange(req)
  if (r.end === undefined) return cmp(key, r.key) === 0
  if (cmp(key, r.key) < 0) return false
  return r.end === 'inf' || cmp(key, r.end) < 0
}

export interface WatcherFacts {
  readonly req: WatchCreateRequest
  /** header.revision of the reference's created response (the store revision at creation). */
  readonly createdRev: number
  /** The compact revision when it was created. */
  readonly compactRevAtCreate: number
  /** Store revision when it was canceled (or its stream closed); undefined while it lives. */
  readonly endRev: number | undefined
}

export interface Expectation {
  readonly events: number
  readonly compacted: boolean
}

/**
 * What etcd 3.4 delivers to a watcher (etcd mvcc/watchable_store.go), given that the test never writes
 * while a watcher catches up:
 * - start 0 -> from createdRev+1; a future start waits for it; both are "synced" and see every event from
 *   their minimum revision on.
 * - start <= createdRev is "unsynced": below the compact revision it gets one compacted response and
 *   nothing else; otherwise the catch-up reads the revision log from start, where a compaction has removed
 *   every tombstone AT the compact revision (keyIndex.compact drops a generation's last tombstone), so a
 *   watcher starting exactly at the compact revision misses those DELETEs (fixed in etcd 3.4.36, #19251).
 * - filters drop events, not revisions.
 */
export function expected(w: WatcherFacts, history: readonly HistoryEvent[]): Expectation {
  const start = w.req.startRevision ?? 0
  const historical = start !== 0 && start <= w.createdRev
  if (historical && start < w.compactRevAtCreate) return { events: 0, compacted: true }
  const minRev = start === 0 ? w.createdRev + 1 : start
  const noPut = w.req.filters?.includes('NOPUT') === true
  const noDelete = w.req.filters?.includes('NODELETE') === true
  let events = 0
  for (const e of history) {
    if (e.rev < minRev || (w.endRev !== undefined && e.rev > w.endRev)) continue
    if (!matches(w.req, e.key)) continue
    if ((e.type === 'PUT' && noPut) || (e.type === 'DELETE' && noDelete)) continue
    if (historical && e.type === 'DELETE' && e.rev === w.compactRevAtCreate) continue
    events++
  }
  return { events, compacted: false }
}
