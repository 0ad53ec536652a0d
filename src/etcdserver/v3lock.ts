// Mirrors etcd 3.4 etcdserver/api/v3lock/lock.go and the Mutex of clientv3/concurrency/mutex.go it runs,
// on EtcdServer's API. Deviations (a waiter whose key is lost fails at once) are in docs/DEVIATIONS.md.
import { EtcdError, isEtcdError } from '../pkg/errors.js'
import {
  byCreate, keyPrefix, rangeOf, sessionKey, sessionLease, waitDeletes, type CallOptions, type ConcurrencyServer,
} from './concurrency.js'
import type { LockRequest, LockResponse, UnlockRequest, UnlockResponse } from './types/concurrency.js'

const EMPTY = new Uint8Array(0)

/**
 * The Lock service: a lock named N is the set of keys under `N/`; each caller's key is `N/<lease hex>`,
 * attached to its lease, and the key with the lowest create revision holds the lock. Locking again with the
 * same lease returns the same key (one acquisition). Losing the lease (revoke or expiry) releases the lock.
 */
export class LockServer {
  private readonly server: ConcurrencyServer

  constructor(server: ConcurrencyServer) {
    this.server = server
  }

  /**
   * Wait until the caller holds lock `name`; the response's key exists while it does, and its header is
   * that of the read that found no older waiter.
   *
   * Fails with:
   * - the txn's error, e.g. LEASE_NOT_FOUND "etcdserver: requested lease not found" for an unknown lease;
   * - MUTEX_SESSION_EXPIRED "mutex: session is expired" when the caller's key is deleted while it waits
   *   (its lease was revoked or expired); etcd 3.4 would instead wait for the older waiters and return
   *   success with a key that is gone;
   * - the signal's reason on abort: the caller's key is deleted first (etcd's Mutex.Lock unlocks when its
   *   context ends), so a canceled waiter does not keep its place;
   * - STOPPED when the server closes while it waits; COMPACTED if its watch is compacted away. The key is
   *   deleted then too, where the server still takes writes.
   */
  async lock(r: LockRequest, opts: CallOptions = {}): Promise<LockResponse> {
    const { signal } = opts
    signal?.throwIfAborted()
    const lease = await sessionLease(this.server, r.lease)
    const prefix = keyPrefix(r.name)
    const key = sessionKey(prefix, lease)
    const owner = { type: 'range', request: byCreate(prefix, 'ASCEND') } as const
    // Join the waiters with a new key; or, if this lease already has one, take its place again.
    const resp = await this.server.txn({
      compare: [{ key, target: 'CREATE', result: 'EQUAL', createRevision: 0 }],
      success: [{ type: 'put', request: { key, value: EMPTY, lease } }, owner],
      failure: [{ type: 'range', request: { key } }, owner],
    })
    const rev = resp.succeeded ? resp.header.revision : (rangeOf(resp.responses[0]).kvs[0]?.createRevision ?? resp.header.revision)
    const first = rangeOf(resp.responses[1]).kvs[0]
    // Uncontended (or already the holder): done, whatever the signal says now, as in etcd.
    if (first === undefined || first.createRevision === rev) return { header: resp.header, key }
    try {
      const header = await waitDeletes(this.server, prefix, key, rev, () => new EtcdError('MUTEX_SESSION_EXPIRED'), signal)
      return { header, key }
    } catch (err) {
      // etcd releases the lock key when the wait fails (Mutex.Lock calls Unlock). A lost key needs no
      // delete; a closed server refuses it (and its waiters' leases still expire).
      if (!isEtcdError(err, 'MUTEX_SESSION_EXPIRED')) await this.server.deleteRange({ key }).catch(() => undefined)
      throw err
    }
  }

  /** Release a lock: delete its key (any key: etcd does not check it). An absent key is not an error. */
  async unlock(r: UnlockRequest): Promise<UnlockResponse> {
    const resp = await this.server.deleteRange({ key: r.key })
    return { header: resp.header }
  }
}
