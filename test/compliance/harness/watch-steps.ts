// Watch steps: the builders the watch case tables are written with, and WatchSession, which runs the
// watch steps of one case over the named streams it opens on the client under test.
import assert from 'node:assert/strict'
import { inspect } from 'node:util'
import type { ResponseHeader } from '../../../src/etcdserver/types/header.js'
import type { KeyValue } from '../../../src/etcdserver/types/kv.js'
import type {
  WatchCreateRequest, WatchEvent, WatchRequest, WatchResponse,
} from '../../../src/etcdserver/types/watch.js'
import { WatchStreamEnded, type TestWatchStream } from '../../helpers/watch-stream.js'
import type { EtcdTestClient } from './client.js'
import { b, type Step, type View, type WantWatch, type WatchStep } from './case.js'
import { errorMessage } from '../../../src/pkg/as-error.js'

/**
 * How long `expect` waits for one response. etcd's unsynced watchers catch up every 100 ms and the
 * reference runs 8 servers at once on 2 cores, so this is generous; it only bounds a failing case.
 */
const NEXT_TIMEOUT_MS = 5000
/** The window of a `silent` step: long enough for a stray response to show up, short enough to be cheap. */
export const SILENCE_MS = 250

// Requests

/** A create request on [key, rangeEnd) (rangeEnd absent: the single key; "\0": every key >= key). */
export const watchKey = (key: string, rangeEnd?: string, o: Omit<WatchCreateRequest, 'key' | 'rangeEnd'> = {}): WatchRequest =>
  ({ type: 'create', request: rangeEnd === undefined ? { ...o, key: b(key) } : { ...o, key: b(key), rangeEnd: b(rangeEnd) } })
export const cancelWatch = (watchId: number): WatchRequest => ({ type: 'cancel', watchId })
export const PROGRESS: WatchRequest = { type: 'progress' }

// Expected responses

const BASE = { watchId: 0, created: false, canceled: false, compactRevision: 0, cancelReason: '', fragment: false, events: [] }

/** The answer to a successful create: the ID and the store revision before the watch was made. */
export const created = (watchId: number, rev: number): WantWatch => ({ ...BASE, watchId, created: true, rev })
/** The answer to a refused create: created and canceled at once, watch_id -1, and etcd's reason. */
export const refused = (rev: number, cancelReason: string): WantWatch =>
  ({ ...BASE, watchId: -1, created: true, canceled: true, cancelReason, rev })
/** One response of events for one watcher; `rev` is the header revision. */
export const events = (watchId: number, rev: number, ...evs: View<WatchEvent>[]): WantWatch => ({ ...BASE, watchId, events: evs, rev })
/** The answer to a cancel request. */
export const canceled = (watchId: number, rev: number): WantWatch => ({ ...BASE, watchId, canceled: true, rev })
/** The end of a watcher whose start revision was compacted away. */
export const compacted = (watchId: number, compactRevision: number, rev: number): WantWatch =>
  ({ ...BASE, watchId, canceled: true, compactRevision, rev })
/** The answer to a progress request: watch_id -1, no events, the revision everything up to was sent. */
export const progress = (rev: number): WantWatch => ({ ...BASE, watchId: -1, rev })

/** A PUT event of a key-value as the suite compares it (from kv()), with the previous one if asked for. */
export const putEv = (kv: View<KeyValue>, prevKv?: View<KeyValue>): View<WatchEvent> =>
  prevKv === undefined ? { type: 'PUT', kv } : { type: 'PUT', kv, prevKv }
/** A DELETE event: only the key and the revision of the delete are set in its kv. */
export const delEv = (key: string, modRevision: number, prevKv?: View<KeyValue>): View<WatchEvent> => {
  const kv = { key, createRevision: 0, modRevision, version: 0, value: '', lease: 0n }
  return prevKv === undefined ? { type: 'DELETE', kv } : { type: 'DELETE', kv, prevKv }
}

// Steps

export const send = (stream: string, req: WatchRequest): Step => ({ stream, send: req })
export const expect = (stream: string, ...want: WantWatch[]): Step => ({ stream, expect: want })
export const expectAnyOrder = (stream: string, ...want: WantWatch[]): Step => ({ stream, expect: want, anyOrder: true })
export const silent = (stream: string): Step => ({ stream, silentMs: SILENCE_MS })
export const closeStream = (stream: string): Step => ({ stream, close: true })
/** Create a watcher and take its created response (so later writes cannot race the registration). */
export const watch = (stream: string, req: WatchRequest, watchId: number, rev: number): Step[] =>
  [send(stream, req), expect(stream, created(watchId, rev))]

// Running

/** The suite's view(): the compared form of a response (bytes as latin1 strings, no undefined fields). */
export type Viewer = (x: unknown) => unknown
export type HeaderCheck = (h: ResponseHeader, where: string) => void

export function isWatchStep(s: Step): s is WatchStep {
  return 'stream' in s
}

/** A total order on compared responses, for `anyOrder` (bigint-safe). */
function sortKey(x: unknown): string {
  return JSON.stringify(x, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))
}

/** The watch streams of one case, opened on first use, all closed by close(). */
export class WatchSession {
  private readonly streams = new Map<string, TestWatchStream>()
  private readonly client: EtcdTestClient
  private readonly view: Viewer
  private readonly checkHeader: HeaderCheck

  constructor(client: EtcdTestClient, view: Viewer, checkHeader: HeaderCheck) {
    this.client = client
    this.view = view
    this.checkHeader = checkHeader
  }

  private stream(name: string): TestWatchStream {
    let s = this.streams.get(name)
    if (s === undefined) {
      s = this.client.watch()
      this.streams.set(name, s)
    }
    return s
  }

  /** Run one watch step; `where` names it in failures. */
  async run(step: WatchStep, where: string): Promise<void> {
    const s = this.stream(step.stream)
    if ('send' in step) {
      s.send(step.send)
    } else if ('expect' in step) {
      const got: unknown[] = []
      for (const [i, want] of step.expect.entries()) got.push(await this.take(s, `${where}: response ${i + 1} of ${step.expect.length}`, want))
      if (step.anyOrder === true) {
        const order = (xs: readonly unknown[]): unknown[] => [...xs].sort((x, y) => (sortKey(x) < sortKey(y) ? -1 : sortKey(x) > sortKey(y) ? 1 : 0))
        assert.deepStrictEqual(order(got), order(step.expect), `${where}: want responses (any order)`)
      } else {
        assert.deepStrictEqual(got, step.expect, `${where}: want responses`)
      }
    } else if ('silentMs' in step) {
      let r: WatchResponse
      try {
        r = await s.next(step.silentMs)
      } catch (e) {
        if (e instanceof WatchStreamEnded) assert.fail(`${where}: want silence, but the stream ended: ${e.message}`)
        return // the window passed with nothing
      }
      assert.fail(`${where}: want silence for ${step.silentMs} ms, got ${inspect(this.compared(r), { depth: 6 })}`)
    } else {
      s.close()
      this.streams.delete(step.stream)
    }
  }

  /** The next response in compared form, its header checked. */
  private async take(s: TestWatchStream, where: string, want: WantWatch): Promise<unknown> {
    let r: WatchResponse
    try {
      r = await s.next(NEXT_TIMEOUT_MS)
    } catch (e) {
      const why = errorMessage(e)
      assert.fail(`${where}: no response (${why}); wanted ${inspect(want, { depth: 6 })}`)
    }
    this.checkHeader(r.header, where)
    return this.compared(r)
  }

  private compared(r: WatchResponse): unknown {
    const { header, ...rest } = r
    return { ...(this.view(rest) as object), rev: header.revision }
  }

  /** After the last step: no stream may hold a response the case did not expect. */
  assertDrained(): void {
    for (const [name, s] of this.streams) {
      assert.equal(s.buffered, 0, `stream ${name}: ${s.buffered} response(s) arrived that no step expected`)
    }
  }

  close(): void {
    for (const s of this.streams.values()) s.close()
    this.streams.clear()
  }
}
