// Watch IDs (etcd's int64 WatchID): a client may choose any int64 for its watcher, negative ones and -1
// included, and etcd answers with that very ID.

/**
 * A watch ID: a safe integer as a number (every ID the server picks, and almost every one a client
 * chooses), any other int64 as a bigint. One representation per ID, so IDs compare (and key Maps) as
 * they should: see watchIdOf.
 */
export type WatchId = number | bigint

/** The WatchId of an int64 read off the wire. */
export function watchIdOf(n: bigint): WatchId {
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n
}
