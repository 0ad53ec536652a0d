// An informer's options, the checks that turn bad ones into TypeErrors at construction, and the decoders.
import type { Clock } from '../pkg/clock.js'
import type { IndexFunc } from './indexer.js'
import type { SourceKeyValue } from './source.js'

/** Turns a stored value into the cached object; a throw leaves the key out of the cache (reported). */
export type Decoder<T> = (value: Uint8Array, kv: SourceKeyValue) => T

const UTF8 = new TextDecoder('utf-8', { fatal: true })

/** Values as UTF-8 JSON. */
export function jsonDecoder<T = unknown>(): Decoder<T> {
  return (value) => JSON.parse(UTF8.decode(value)) as T
}

/** Values as UTF-8 text. */
export function textDecoder(): Decoder<string> {
  return (value) => UTF8.decode(value)
}

export interface SharedInformerOptions<T> {
  /** Watch every key with this prefix ("" or absent with no key: every key). */
  readonly prefix?: string | Uint8Array
  /** Or a range [key, rangeEnd) (rangeEnd "\0": every key >= key; absent: the single key). */
  readonly key?: string | Uint8Array
  readonly rangeEnd?: string | Uint8Array
  readonly decode: Decoder<T>
  /** Named index functions, for Indexer.byIndex(). */
  readonly indexers?: Readonly<Record<string, IndexFunc<T>>>
  /** Time for progress requests, retries and resyncs (default: the real clock). */
  readonly clock?: Clock
  /** Keys per list page (default 500, as client-go's). */
  readonly pageSize?: number
  /** Ask for progress after this long without a watch response (default 30 s). */
  readonly progressIntervalMs?: number
  /** Also take the server's periodic progress notifications (default true). */
  readonly progressNotify?: boolean
  /** Retry delays after a failed list or a lost watch: doubling from 100 ms up to 10 s by default. */
  readonly retryInitialMs?: number
  readonly retryMaxMs?: number
  /** The cache key of an etcd key (default: the key as UTF-8; a key that is not UTF-8 is reported and skipped). */
  readonly keyOf?: (key: Uint8Array) => string
  /** Failures the informer survives: list and watch errors (it retries), decode and handler errors. Default: process.emitWarning. */
  readonly onError?: (err: unknown, context: string) => void
}

export interface HandlerOptions {
  /** Re-deliver the whole cache to this handler every so often, as updates marked `resync`. */
  readonly resyncPeriodMs?: number
  /**
   * Notifications queued in order before the queue coalesces by key (default 10,000). Past it, memory is
   * bounded by the number of keys, and the handler sees each key's latest state.
   */
  readonly maxBuffered?: number
}

type Bytes = string | Uint8Array

function bytes(field: string, v: Bytes | undefined): Uint8Array | undefined {
  if (v === undefined) return undefined
  if (typeof v === 'string') return new TextEncoder().encode(v)
  if (v instanceof Uint8Array) return v
  throw new TypeError(`SharedInformer: ${field} must be a string or a Uint8Array`)
}

function positive(call: string, field: string, v: unknown, integer: boolean): void {
  if (v === undefined) return
  if (typeof v !== 'number' || !(v > 0) || !Number.isFinite(v) || (integer && !Number.isInteger(v))) {
    throw new TypeError(`${call}: ${field} must be a positive ${integer ? 'integer' : 'number'}, got ${typeof v === 'number' ? v : typeof v}`)
  }
}

export interface CheckedInformerOptions<T> extends Omit<SharedInformerOptions<T>, 'prefix' | 'key' | 'rangeEnd'> {
  readonly prefix?: Uint8Array
  readonly key?: Uint8Array
  readonly rangeEnd?: Uint8Array
}

export function checkInformerOptions<T>(o: SharedInformerOptions<T>): CheckedInformerOptions<T> {
  if (typeof o !== 'object' || o === null) throw new TypeError('SharedInformer: options must be an object')
  if (typeof o.decode !== 'function') throw new TypeError('SharedInformer: decode must be a function (jsonDecoder() for JSON)')
  if (o.prefix !== undefined && (o.key !== undefined || o.rangeEnd !== undefined)) {
    throw new TypeError('SharedInformer: give either prefix or key/rangeEnd, not both')
  }
  for (const f of ['pageSize'] as const) positive('SharedInformer', f, o[f], true)
  for (const f of ['progressIntervalMs', 'retryInitialMs', 'retryMaxMs'] as const) positive('SharedInformer', f, o[f], false)
  if (o.progressNotify !== undefined && typeof o.progressNotify !== 'boolean') throw new TypeError('SharedInformer: progressNotify must be a boolean')
  for (const f of ['keyOf', 'onError'] as const) {
    if (o[f] !== undefined && typeof o[f] !== 'function') throw new TypeError(`SharedInformer: ${f} must be a function`)
  }
  if (o.clock !== undefined && (typeof o.clock.now !== 'function' || typeof o.clock.after !== 'function')) {
    throw new TypeError('SharedInformer: clock must be a Clock')
  }
  const { prefix: p, key: k, rangeEnd: e, ...rest } = o
  const prefix = bytes('prefix', p)
  const key = bytes('key', k)
  const rangeEnd = bytes('rangeEnd', e)
  return {
    ...rest,
    ...(prefix === undefined ? {} : { prefix }),
    ...(key === undefined ? {} : { key }),
    ...(rangeEnd === undefined ? {} : { rangeEnd }),
  }
}

export function checkHandlerOptions(o: HandlerOptions): HandlerOptions {
  if (typeof o !== 'object' || o === null) throw new TypeError('addEventHandler: options must be an object')
  positive('addEventHandler', 'resyncPeriodMs', o.resyncPeriodMs, false)
  positive('addEventHandler', 'maxBuffered', o.maxBuffered, true)
  return o
}
