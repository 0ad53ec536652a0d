// The batch of writes LevelBackend buffers between commits (etcd's batchTx with its txWriteBuffer): the ops
// go straight into a chained batch, and reads of keys written but not yet durable are answered from it.
import { deferred, type Deferred } from '../pkg/deferred.js'
import type { Chain } from './level-db.js'

/**
 * A batch being filled or in flight: a chained batch that takes each op as it comes (an array batch costs
 * about six times as much CPU on the main thread in classic-level), its ops in order for reads, and the
 * waiters of its commit.
 */
export interface Batch {
  /** Created on the first write; undefined means the batch is empty. */
  chain: Chain | undefined
  /** The prefixed key of every op, in order. */
  readonly keys: Buffer[]
  /** The value of every op (null for a delete), parallel to `keys`. */
  readonly values: (Uint8Array | null)[]
  /**
   * Read index over the ops, built by the first read that needs it and kept up to date from then on
   * (prefixed key as latin1 -> value, or null for a delete; the newest write wins). Writes that nobody reads
   * before they are durable (a put-only load) never pay for a latin1 key and a map entry.
   */
  index: Map<string, Uint8Array | null> | undefined
  /** How many ops of `keys`/`values` are in `index`. */
  indexed: number
  /** What the ops add to LevelDB's write-ahead log: key, value and OP_OVERHEAD each (a delete has no value). */
  logBytes: number
  readonly done: Deferred<void>
}

export function newBatch(): Batch {
  const done = deferred<void>()
  // A batch may complete with nobody waiting on it; never let that become an unhandled rejection.
  done.promise.catch(() => undefined)
  return { chain: undefined, keys: [], values: [], index: undefined, indexed: 0, logBytes: 0, done }
}

/** The batch's newest buffered write of a prefixed key: a value, null (deleted), or undefined (not written). */
export function lookup(b: Batch, key: Buffer): Uint8Array | null | undefined {
  const n = b.keys.length
  if (n === 0) return undefined
  const index = (b.index ??= new Map<string, Uint8Array | null>())
  for (let i = b.indexed; i < n; i++) index.set((b.keys[i] as Buffer).toString('latin1'), b.values[i] ?? null)
  b.indexed = n
  return index.get(key.toString('latin1'))
}
