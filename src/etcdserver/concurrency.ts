// Mirrors etcd 3.4 clientv3/concurrency (session.go, key.go, and the shared parts of mutex.go and
// election.go) as etcd's v3lock and v3election servers use it, on EtcdServer's own API instead of a
// loopback client. Deviations (early end of a wait whose own key is deleted) are in docs/DEVIATIONS.md.
import { equalBytes, prefixEnd } from '../pkg/bytes.js'
import { AsyncQueue } from '../pkg/async-queue.js'
import { EtcdError } from '../pkg/errors.js'
import { CompactedError } from '../mvcc/errors.js'
import type { EtcdServer } from './etcd-server.js'
import type { KvService } from './kv-service.js'
import type { LeaseService } from './lease-service.js'
import { WATCH_CHAN_BUF_LEN, type ServerWatchStream, type WatchResponseSink } from './watch.js'
import type { CallCredentials } from './types/credentials.js'
import type { ResponseHeader } from './types/header.js'
import type { KeyValue, RangeRequest, RangeResponse, ResponseOp } from './types/kv.js'
import type { WatchCreateRequest, WatchResponse } from './types/watch.js'
import { asError } from '../pkg/as-error.js'

/** What the lock and election services use of the server: the calls their caller could make. */
export type ConcurrencyServer = Pick<KvService, 'range' | 'txn' | 'deleteRange'> & Pick<LeaseService, 'leaseGrant'> &
  Pick<EtcdServer, 'newWatchStream'>

/**
 * The server's calls as a caller with `creds` makes them. v3lock and v3election act for their caller, so the
 * caller's permissions apply to every key they touch (etcd's v3client passes the caller's context through).
 */
export function asCaller(
  server: Pick<EtcdServer, 'kvService' | 'leaseService' | 'newWatchStream'>, creds: CallCredentials | undefined,
): ConcurrencyServer {
  const { kvService: kv, leaseService: lease } = server
  return {
    range: (r) => kv.range(r, creds),
    txn: (r) => kv.txn(r, creds),
    deleteRange: (r) => kv.deleteRange(r, creds),
    newWatchStream: (out) => server.newWatchStream(out, creds),
    leaseGrant: (r) => lease.leaseGrant(r, creds),
  }
}

/** concurrency.defaultSessionTTL: the TTL of the lease a session grants when it is given none. */
export const DEFAULT_SESSION_TTL = 60

const SLASH = 0x2f
const EMPTY = new Uint8Array(0)

/** Long calls take `{ signal }` so a caller can give up on them; an abort ends the wait and cleans up as etcd does on a canceled context. */
export interface CallOptions {
  readonly signal?: AbortSignal
}

/**
 * The lease a session works with (concurrency.NewSession): the given one, or for 0n (or none) a fresh lease
 * of DEFAULT_SESSION_TTL seconds. The server-side session is orphaned at once (v3lock and v3election call
 * Orphan()), so nothing keeps that lease alive: it expires after 60 s. A lease given is not checked here;
 * a put with it fails with "requested lease not found" if it does not exist.
 */
export async function sessionLease(server: ConcurrencyServer, lease: bigint | undefined): Promise<bigint> {
  if (lease !== undefined && lease !== 0n) return lease
  return (await server.leaseGrant({ ttl: DEFAULT_SESSION_TTL })).id
}

/** `name + "/"`: the prefix every key of a lock or election lives under (NewMutex, NewElection). */
export function keyPrefix(name: Uint8Array): Uint8Array {
  const p = new Uint8Array(name.length + 1)
  p.set(name)
  p[name.length] = SLASH
  return p
}

/** `prefix + lease ID in hex`, as Go's `fmt.Sprintf("%s%x", pfx, leaseID)` (lowercase; a negative ID keeps its sign). */
export function sessionKey(prefix: Uint8Array, lease: bigint): Uint8Array {
  const hex = Buffer.from(lease.toString(16), 'latin1')
  const k = new Uint8Array(prefix.length + hex.length)
  k.set(prefix)
  k.set(hex, prefix.length)
  return k
}

/** A range over every key under `prefix`, sorted by create revision (clientv3 WithFirstCreate / WithLastCreate). */
export function byCreate(prefix: Uint8Array, order: 'ASCEND' | 'DESCEND', maxCreateRevision?: number): RangeRequest {
  const r: RangeRequest = { key: prefix, rangeEnd: prefixEnd(prefix), sortTarget: 'CREATE', sortOrder: order, limit: 1 }
  return maxCreateRevision === undefined ? r : { ...r, maxCreateRevision }
}

/** The range response of a txn's response op (the ops are the txn's own, so the kind is known). */
export function rangeOf(op: ResponseOp | undefined): RangeResponse {
  if (op?.type !== 'range') throw new Error(`concurrency: expected a range response, got ${op?.type ?? 'none'}`)
  return op.response
}

/** A value for put ops: absent is empty. */
export const valueOr = (v: Uint8Array | undefined): Uint8Array => v ?? EMPTY

/**
 * Watch responses from one server watch stream as an async iterable, buffered up to WATCH_CHAN_BUF_LEN
 * responses: past that the watchers become victims and are retried from the store, as for any slow
 * consumer. Iteration ends after a compaction response (error COMPACTED), when the server stops (error
 * STOPPED), or on abort (the signal's reason); break, close() or an error removes the watchers.
 */
export class WatchFeed implements AsyncIterable<WatchResponse> {
  private readonly queue: AsyncQueue<WatchResponse>
  private readonly ws: ServerWatchStream
  private readonly signal: AbortSignal | undefined
  private readonly onAbort = (): void => this.fail(this.signal?.reason)
  private error: Error | undefined
  private closed = false

  constructor(server: ConcurrencyServer, watchers: readonly WatchCreateRequest[], signal?: AbortSignal) {
    signal?.throwIfAborted()
    this.signal = signal
    // Room again: the watchers that became victims meanwhile are retried now rather than on the next tick.
    this.queue = new AsyncQueue<WatchResponse>({ capacity: WATCH_CHAN_BUF_LEN, onSpace: () => this.ws.resume() })
    const sink: WatchResponseSink = {
      isFull: () => this.queue.isFull(),
      trySend: (resp) => {
        if (!this.queue.tryPush(resp)) return false
        if (resp.canceled) this.fail(new CompactedError())
        return true
      },
      sendControl: (resp) => {
        if (resp.canceled) this.fail(new Error(`concurrency: watch refused: ${resp.cancelReason}`))
        else if (!resp.created) this.queue.pushForce(resp)
      },
      end: () => this.fail(new EtcdError('STOPPED')),
    }
    this.ws = server.newWatchStream(sink)
    for (const request of watchers) this.ws.handle({ type: 'create', request })
    signal?.addEventListener('abort', this.onAbort, { once: true })
  }

  async *[Symbol.asyncIterator](): AsyncIterator<WatchResponse> {
    try {
      for await (const resp of this.queue) yield resp
      if (this.error !== undefined) throw this.error
    } finally {
      this.close()
    }
  }

  /** Remove the watchers and end iteration. Idempotent. */
  close(): void {
    if (this.closed) return
    this.closed = true
    this.signal?.removeEventListener('abort', this.onAbort)
    this.ws.close()
    this.queue.close()
  }

  private fail(err: unknown): void {
    this.error ??= asError(err)
    this.close()
  }
}

/**
 * etcd's waitDeletes, for the waiter whose key is `own` (created at `ownRev`): until no key under `prefix`
 * was created before `ownRev`, wait for the newest such key to be deleted. Returns the header of the read
 * that found none.
 *
 * Unlike etcd 3.4 (which then returns success with a key that no longer exists), a waiter whose own key is
 * deleted while it waits (its lease was revoked or expired, or someone deleted the key) fails at once with
 * `lost`, as etcd 3.5 does after the wait (ErrSessionExpired) and etcd-io/etcd#19597 proposes doing early.
 */
export async function waitDeletes(
  server: ConcurrencyServer, prefix: Uint8Array, own: Uint8Array, ownRev: number, lost: () => Error, signal?: AbortSignal,
): Promise<ResponseHeader> {
  for (;;) {
    signal?.throwIfAborted()
    // Both reads run in one turn of the event loop, so they see the same revision.
    const mine: KeyValue | undefined = server.range({ key: own }).kvs[0]
    if (mine?.createRevision !== ownRev) throw lost()
    const ahead = server.range(byCreate(prefix, 'DESCEND', ownRev - 1))
    const last = ahead.kvs[0]
    if (last === undefined) return ahead.header
    const deleted = await waitDelete(server, [last.key, own], ahead.header.revision + 1, signal)
    if (equalBytes(deleted, own)) throw lost()
  }
}

/** Wait for the first DELETE of any of `keys` from revision `fromRev` on; returns that key. */
async function waitDelete(server: ConcurrencyServer, keys: readonly Uint8Array[], fromRev: number, signal?: AbortSignal): Promise<Uint8Array> {
  const feed = new WatchFeed(server, keys.map((key) => ({ key, startRevision: fromRev })), signal)
  for await (const resp of feed) {
    for (const ev of resp.events) if (ev.type === 'DELETE') return ev.kv.key
  }
  // Only reached if the feed ends without an error, which it never does.
  throw new Error('lost watcher waiting for delete')
}
