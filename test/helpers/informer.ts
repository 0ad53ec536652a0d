// Helpers for informer tests: a source that can be cut off and re-pointed (a network partition, a server
// restart), and a handler that records what it is told.
import assert from 'node:assert/strict'
import type { ListWatchSource, SourceKeyValue, SourceRangeRequest, SourceRangeResponse, SourceWatcher, SourceWatchOptions } from '../../src/informer/source.js'
import type { SharedInformer } from '../../src/informer/shared-informer.js'

/** What the test decoder makes of a value: its text and the revision it was written at. */
export interface Obj {
  readonly value: string
  readonly rev: number
}

export const objDecoder = (value: Uint8Array, kv: SourceKeyValue): Obj => ({ value: Buffer.from(value).toString(), rev: kv.modRevision })

/**
 * Forwards to `target`; disconnect() ends every open watcher and fails calls until connect() gives it a
 * target again (the same or another server).
 */
export class SwitchableSource implements ListWatchSource {
  private target: ListWatchSource | undefined
  private readonly open = new Set<SourceWatcher>()
  ranges = 0
  watches = 0

  constructor(target: ListWatchSource) {
    this.target = target
  }

  range(req: SourceRangeRequest): Promise<SourceRangeResponse> {
    this.ranges++
    if (this.target === undefined) return Promise.reject(new Error('disconnected'))
    return this.target.range(req)
  }

  watch(opts: SourceWatchOptions): SourceWatcher {
    if (this.target === undefined) throw new Error('disconnected')
    this.watches++
    const w = this.target.watch(opts)
    this.open.add(w)
    void w.closed.then(() => this.open.delete(w))
    return w
  }

  async disconnect(): Promise<void> {
    this.target = undefined
    await Promise.all([...this.open].map((w) => w.cancel()))
  }

  connect(target: ListWatchSource): void {
    this.target = target
  }
}

export interface Recorded {
  readonly kind: 'add' | 'update' | 'delete'
  readonly key: string
  readonly old?: Obj
  readonly obj: Obj
  readonly initial?: boolean
  readonly resync?: boolean
  readonly finalStateUnknown?: boolean
}

/** Records every notification; `spurious()` lists updates whose mod revision did not change (resyncs aside). */
export class Recorder {
  readonly events: Recorded[] = []
  readonly handler = {
    onAdd: (obj: Obj, i: { key: string; initial: boolean }) => void this.events.push({ kind: 'add', key: i.key, obj, initial: i.initial }),
    onUpdate: (old: Obj, obj: Obj, i: { key: string; resync: boolean }) => void this.events.push({ kind: 'update', key: i.key, old, obj, resync: i.resync }),
    onDelete: (obj: Obj, i: { key: string; finalStateUnknown: boolean }) =>
      void this.events.push({ kind: 'delete', key: i.key, obj, finalStateUnknown: i.finalStateUnknown }),
  }

  count(kind: Recorded['kind'], filter: (e: Recorded) => boolean = () => true): number {
    return this.events.filter((e) => e.kind === kind && filter(e)).length
  }

  spurious(): Recorded[] {
    return this.events.filter((e) => e.kind === 'update' && e.resync !== true && e.old?.rev === e.obj.rev)
  }

  /** The state the handler was told, key by key, from its events. */
  view(): Map<string, Obj> {
    const m = new Map<string, Obj>()
    for (const e of this.events) {
      if (e.kind === 'delete') m.delete(e.key)
      else m.set(e.key, e.obj)
    }
    return m
  }
}

/** Every key of a fresh range as key -> {value, rev}. */
export async function freshRange(source: ListWatchSource, key: Uint8Array, rangeEnd: Uint8Array): Promise<Map<string, Obj>> {
  const r = await source.range({ key, rangeEnd, limit: 0, revision: 0 })
  return new Map(r.kvs.map((kv) => [Buffer.from(kv.key).toString(), objDecoder(kv.value, kv)]))
}

/** The informer's cache as key -> object. */
export function cacheOf(informer: SharedInformer<Obj>): Map<string, Obj> {
  return new Map([...informer.indexer.entries()].map((e) => [e.key, e.object]))
}

/** Assert that the cache and `want` hold the same keys and objects (compact message on failure). */
export function assertSameState(got: Map<string, Obj>, want: Map<string, Obj>, what: string): void {
  const diff: string[] = []
  for (const [k, v] of want) {
    const g = got.get(k)
    if (g === undefined || g.value !== v.value || g.rev !== v.rev) diff.push(`${k}: ${JSON.stringify(g)} != ${JSON.stringify(v)}`)
  }
  for (const k of got.keys()) if (!want.has(k)) diff.push(`${k}: extra`)
  assert.deepEqual(diff.slice(0, 10), [], `${what}: ${diff.length} differences`)
}
