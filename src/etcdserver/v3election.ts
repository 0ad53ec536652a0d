// Mirrors etcd 3.4 etcdserver/api/v3election/election.go and the Election of
// clientv3/concurrency/election.go it runs, on EtcdServer's API. Deviations are in docs/DEVIATIONS.md.
import { equalBytes, prefixEnd } from '../pkg/bytes.js'
import { EtcdError, isEtcdError } from '../pkg/errors.js'
import {
  byCreate, keyPrefix, rangeOf, sessionKey, sessionLease, valueOr, waitDeletes, WatchFeed, type CallOptions,
  type ConcurrencyServer,
} from './concurrency.js'
import type {
  CampaignRequest, CampaignResponse, LeaderKey, LeaderRequest, LeaderResponse, ProclaimRequest, ProclaimResponse,
  ResignRequest, ResignResponse,
} from './types/concurrency.js'
import type { ResponseHeader } from './types/header.js'
import type { KeyValue } from './types/kv.js'

/**
 * The Election service: the candidates of election N are the keys under `N/`, one per lease
 * (`N/<lease hex>`, holding the candidate's value); the one with the lowest create revision leads. A
 * candidate whose lease goes away (revoke or expiry) leaves the election, and the next one leads.
 */
export class ElectionServer {
  private readonly server: ConcurrencyServer

  constructor(server: ConcurrencyServer) {
    this.server = server
  }

  /**
   * Become a candidate with `value` and wait until leader. Campaigning again with the same lease keeps the
   * candidate's place (its key and create revision) and proclaims the new value if it differs. The header
   * is that of the first write (as etcd's), even after a wait.
   *
   * Fails with the txn's error (LEASE_NOT_FOUND for an unknown lease); with ELECTION_NOT_LEADER "election:
   * not leader" when the candidate's key is deleted while it waits (its lease was revoked or expired; etcd
   * 3.4 and 3.5 return success with a key that is gone); or with the signal's reason on abort, after
   * withdrawing the candidate (etcd's Campaign resigns when its context ends).
   */
  async campaign(r: CampaignRequest, opts: CallOptions = {}): Promise<CampaignResponse> {
    const { signal } = opts
    signal?.throwIfAborted()
    const lease = await sessionLease(this.server, r.lease)
    const prefix = keyPrefix(r.name)
    const key = sessionKey(prefix, lease)
    const value = valueOr(r.value)
    const resp = await this.server.txn({
      compare: [{ key, target: 'CREATE', result: 'EQUAL', createRevision: 0 }],
      success: [{ type: 'put', request: { key, value, lease } }],
      failure: [{ type: 'range', request: { key } }],
    })
    let rev = resp.header.revision
    if (!resp.succeeded) {
      const kv = rangeOf(resp.responses[0]).kvs[0]
      rev = kv?.createRevision ?? rev
      if (kv !== undefined && !equalBytes(kv.value, value)) {
        try {
          await this.proclaimAs(key, rev, lease, value)
        } catch (err) {
          await this.resignAs(key, rev).catch(() => undefined)
          throw err
        }
      }
    }
    try {
      await waitDeletes(this.server, prefix, key, rev, () => new EtcdError('ELECTION_NOT_LEADER'), signal)
    } catch (err) {
      // etcd resigns when the context ended; so do we, and also when the server is stopping (while it still
      // takes writes), so no withdrawn candidate waits in line until its lease expires.
      if (signal?.aborted === true || isEtcdError(err, 'STOPPED')) await this.resignAs(key, rev).catch(() => undefined)
      throw err
    }
    return { header: resp.header, leader: { name: r.name, key, rev, lease } }
  }

  /**
   * Set the leader's value, if `leader` still leads with the same key and create revision; otherwise
   * ELECTION_NOT_LEADER. ELECTION_MISSING_LEADER_KEY without `leader`. A leader lease of 0n makes the
   * server grant a 60 s lease for the put, as etcd does.
   */
  async proclaim(r: ProclaimRequest): Promise<ProclaimResponse> {
    const leader = need(r.leader)
    const lease = await sessionLease(this.server, leader.lease)
    return { header: await this.proclaimAs(leader.key, leader.rev, lease, valueOr(r.value)) }
  }

  /**
   * The current leader: the candidate key with the lowest create revision. ELECTION_NO_LEADER "election: no
   * leader" when there is none.
   */
  leader(r: LeaderRequest): LeaderResponse {
    const resp = this.server.range(byCreate(keyPrefix(r.name), 'ASCEND'))
    const kv = resp.kvs[0]
    if (kv === undefined) throw new EtcdError('ELECTION_NO_LEADER')
    return { header: resp.header, kv }
  }

  /**
   * Leadership changes of election `name` (etcd's Observe): first the current leader (once there is one),
   * then each new value it proclaims, then, when it leaves, the next leader, and so on. Not every
   * intermediate value is promised, but the latest always is. Ends (without error) if a watch it needs is
   * compacted away, as etcd's does; fails with STOPPED when the server stops, or with the signal's reason.
   */
  async *observe(r: LeaderRequest, opts: CallOptions = {}): AsyncGenerator<LeaderResponse, void, undefined> {
    const { signal } = opts
    const prefix = keyPrefix(r.name)
    try {
      for (;;) {
        signal?.throwIfAborted()
        const resp = this.server.range(byCreate(prefix, 'ASCEND'))
        let kv: KeyValue | undefined = resp.kvs[0]
        let header: ResponseHeader = resp.header
        if (kv === undefined) {
          // No leader: the first key put under the prefix leads. etcd watches from the read's revision; an
          // event at that revision can only be a delete (a put would have been read), so from the next one
          // is the same, and the watcher starts in sync instead of catching up.
          const from = resp.header.revision + 1
          const feed = new WatchFeed(this.server, [{ key: prefix, rangeEnd: prefixEnd(prefix), startRevision: from }], signal)
          for await (const wr of feed) {
            const put = wr.events.find((e) => e.type === 'PUT')
            if (put !== undefined) {
              kv = put.kv
              header = { ...wr.header, revision: put.kv.modRevision }
              break
            }
          }
          if (kv === undefined) return
        }
        yield { header, kv }
        // The leader's new values, until its key is deleted.
        let deleted = false
        const feed = new WatchFeed(this.server, [{ key: kv.key, startRevision: header.revision + 1 }], signal)
        for await (const wr of feed) {
          for (const ev of wr.events) {
            if (ev.type === 'DELETE') {
              deleted = true
              break
            }
            yield { header: wr.header, kv: ev.kv }
          }
          if (deleted) break
        }
        if (!deleted) return
      }
    } catch (err) {
      if (isEtcdError(err, 'COMPACTED')) return
      throw err
    }
  }

  /**
   * Give up leadership (or candidacy): delete the key if it still has the leader's create revision.
   * Succeeds either way. ELECTION_MISSING_LEADER_KEY without `leader`.
   */
  async resign(r: ResignRequest): Promise<ResignResponse> {
    const leader = need(r.leader)
    // etcd opens a session for the leader's lease here too (granting one for 0n); nothing uses it.
    await sessionLease(this.server, leader.lease)
    return { header: await this.resignAs(leader.key, leader.rev) }
  }

  private async proclaimAs(key: Uint8Array, rev: number, lease: bigint, value: Uint8Array): Promise<ResponseHeader> {
    const resp = await this.server.txn({
      compare: [{ key, target: 'CREATE', result: 'EQUAL', createRevision: rev }],
      success: [{ type: 'put', request: { key, value, lease } }],
    })
    if (!resp.succeeded) throw new EtcdError('ELECTION_NOT_LEADER')
    return resp.header
  }

  private async resignAs(key: Uint8Array, rev: number): Promise<ResponseHeader> {
    const resp = await this.server.txn({
      compare: [{ key, target: 'CREATE', result: 'EQUAL', createRevision: rev }],
      success: [{ type: 'deleteRange', request: { key } }],
    })
    return resp.header
  }
}

function need(leader: LeaderKey | undefined): LeaderKey {
  if (leader === undefined) throw new EtcdError('ELECTION_MISSING_LEADER_KEY')
  return leader
}
