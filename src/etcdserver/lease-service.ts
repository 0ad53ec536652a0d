// Mirrors etcd's Lessor interface of etcdserver/v3_server.go (LeaseGrant, LeaseRevoke, LeaseRenew,
// LeaseTimeToLive, LeaseLeases) and the revoke of expired leases from server.go's run loop: the Lease
// service without a transport, over the lessor. Each call that goes through raft in etcd counts in the
// applied index here.
import type { Backend } from '../backend/backend.js'
import type { AuthStore } from '../auth/store.js'
import { IdGenerator } from '../pkg/id-generator.js'
import type { Lease, Lessor } from '../lease/lessor.js'
import type { KV } from '../mvcc/kv.js'
import { checkLeasePuts, checkLeaseTimeToLiveAuth } from './apply-auth.js'
import type { AppliedIndex } from './applied-index.js'
import type { CallTracker } from './call-tracker.js'
import type { CallerAuth } from './caller-auth.js'
import { LEASE_OVERHEAD, type BackendQuota } from './quota.js'
import type { ServerStats } from './server-stats.js'
import type { CallCredentials } from './types/credentials.js'
import type { ResponseHeader } from './types/header.js'
import type {
  LeaseGrantRequest, LeaseGrantResponse, LeaseKeepAliveRequest, LeaseKeepAliveResponse, LeaseLeasesResponse,
  LeaseRevokeRequest, LeaseRevokeResponse, LeaseTimeToLiveRequest, LeaseTimeToLiveResponse,
} from './types/lease.js'

/** What the Lease service uses of the server. */
export interface LeaseServiceServer {
  readonly kv: Pick<KV, 'rev' | 'durableRev' | 'sync'>
  readonly backend: Pick<Backend, 'commit' | 'failure'>
  readonly authStore: AuthStore
  readonly lessor: Lessor
  readonly callerAuth: CallerAuth
  readonly calls: CallTracker
  readonly quota: Pick<BackendQuota, 'check'>
  readonly appliedIndex: Pick<AppliedIndex, 'noteApplied' | 'noteEntry'>
  readonly stats: ServerStats
  /** This member's ID, which seeds the IDs of granted leases. */
  readonly memberId: bigint
  header(revision: number): ResponseHeader
  /** Errors no request is waiting for (a revoke of an expired lease that failed). */
  onBackgroundError(err: unknown): void
}

export class LeaseService {
  private readonly s: LeaseServiceServer
  private readonly lessor: Lessor
  private readonly idGen: IdGenerator

  constructor(server: LeaseServiceServer) {
    this.s = server
    this.lessor = server.lessor
    this.idGen = new IdGenerator(server.memberId)
  }

  /**
   * Grant a lease. ID 0 (or none): the server picks a random positive ID. A TTL below the minimum is raised
   * to it (the response says so). Resolves once the lease is durable.
   */
  leaseGrant(r: LeaseGrantRequest, creds?: CallCredentials): Promise<LeaseGrantResponse> {
    return this.s.calls.track(async () => {
      // Any user may grant a lease (no permission), but it must be a user; the token is read even while auth
      // is off, as for every call etcd sends through raft.
      this.s.authStore.isUserPresent(this.s.callerAuth.authInfo(creds))
      this.s.quota.check(LEASE_OVERHEAD)
      let id = r.id ?? 0n
      // etcd: the next request ID as a positive int64. The generator never repeats itself, but a lease
      // granted with an explicit ID may hold one it produces: skip those.
      while (id === 0n || (r.id ?? 0n) === 0n && this.lessor.exists(id)) id = this.idGen.next() & 0x7fff_ffff_ffff_ffffn
      const l = this.s.stats.apply('LeaseGrant', () => this.lessor.grant(id, r.ttl))
      this.s.appliedIndex.noteApplied()
      try {
        await this.s.backend.commit()
      } catch (err) {
        // The grant did not reach the disk (the backend now refuses writes): memory forgets it too.
        if (this.s.backend.failure !== undefined) this.lessor.forget(id)
        throw err
      }
      return { header: this.durableHeader(), id, ttl: l.ttl, error: '' }
    })
  }

  /** Revoke a lease: its keys are deleted in one txn (one revision). LEASE_NOT_FOUND if unknown. */
  leaseRevoke(r: LeaseRevokeRequest, creds?: CallCredentials): Promise<LeaseRevokeResponse> {
    return this.s.calls.track(async () => {
      const ai = this.s.callerAuth.authInfo(creds)
      const l = this.lessor.lookup(r.id)
      const keys = l?.keys() ?? []
      const before = this.s.kv.rev()
      let rev: number
      try {
        rev = this.s.stats.apply('LeaseRevoke', () => {
          checkLeasePuts(this.s.authStore, this.lessor, ai, r.id)
          this.s.authStore.isUserPresent(ai)
          return this.lessor.revoke(r.id)
        })
      } finally {
        this.s.appliedIndex.noteEntry(before)
      }
      await this.commitRevokes(rev, l === undefined ? [] : [[l, keys]])
      return { header: this.durableHeader() }
    })
  }

  /**
   * Renew a lease (one LeaseKeepAlive message): its expiry restarts and the granted TTL comes back. An
   * unknown lease answers TTL 0, not an error; so does one past its expiry, which is revoked first.
   */
  leaseRenew(r: LeaseKeepAliveRequest, creds?: CallCredentials): Promise<LeaseKeepAliveResponse> {
    return this.s.calls.track(async () => {
      this.s.callerAuth.checkAuthenticated(creds)
      // etcd fills the header before renewing.
      const header = this.durableHeader()
      const l = this.lessor.lookup(r.id)
      if (l === undefined) return { header, id: r.id, ttl: 0 }
      const ttl = this.lessor.renew(r.id)
      if (ttl !== undefined) return { header, id: r.id, ttl }
      await this.revokeExpired([l])
      return { header, id: r.id, ttl: 0 }
    })
  }

  /** Time left on a lease, in whole seconds; TTL -1 for an unknown lease (not an error). */
  leaseTimeToLive(r: LeaseTimeToLiveRequest, creds?: CallCredentials): LeaseTimeToLiveResponse {
    this.s.calls.checkOpen()
    const as = this.s.authStore
    if (as.enabled) checkLeaseTimeToLiveAuth(as, this.lessor, this.s.callerAuth.authInfo(creds), r.id)
    const header = this.durableHeader()
    const l = this.lessor.lookup(r.id)
    if (l === undefined) return { header, id: r.id, ttl: -1, grantedTtl: 0, keys: [] }
    // Go's int64(Duration.Seconds()) truncates toward zero.
    const ttl = Math.trunc(l.remainingMs(this.lessor.now()) / 1000) || 0
    return { header, id: r.id, ttl, grantedTtl: l.ttl, keys: r.keys === true ? l.keys() : [] }
  }

  /** Every live lease, soonest expiry first. */
  leaseLeases(creds?: CallCredentials): LeaseLeasesResponse {
    this.s.calls.checkOpen()
    this.s.callerAuth.checkAuthenticated(creds)
    return { header: this.durableHeader(), leases: this.lessor.leases().map((l) => ({ id: l.id })) }
  }

  /**
   * Revoke leases the expiry loop found expired (or a renew found past expiry), then commit once. Once the
   * server is closing they are left to the next start.
   */
  async revokeExpired(leases: readonly Lease[]): Promise<void> {
    if (this.s.calls.closed) return
    let rev = 0
    const revoked: [Lease, Uint8Array[]][] = []
    for (const l of leases) {
      if (l.revoked || !this.lessor.exists(l.id)) continue
      const before = this.s.kv.rev()
      try {
        const keys = l.keys()
        rev = Math.max(rev, this.s.stats.apply('LeaseRevoke', () => this.lessor.revoke(l.id)))
        revoked.push([l, keys])
      } catch (err) {
        // The lessor looks at it again after its retry interval.
        this.s.onBackgroundError(err)
      } finally {
        this.s.appliedIndex.noteEntry(before)
      }
    }
    await this.commitRevokes(rev, revoked)
    // etcd counts an expired lease once its revoke has gone through.
    this.s.stats.leaseExpired += revoked.length
  }

  /**
   * Make revokes durable: wait for their revision, then commit. If that fails and the backend now refuses
   * writes, the store has undone the deletes of their keys, so the leases come back with those keys.
   */
  private async commitRevokes(rev: number, revoked: readonly (readonly [Lease, Uint8Array[]])[]): Promise<void> {
    try {
      await this.s.kv.sync(rev)
      await this.s.backend.commit()
    } catch (err) {
      if (this.s.backend.failure !== undefined) for (const [l, keys] of revoked) this.lessor.reinstate(l, keys)
      throw err
    }
  }

  private durableHeader(): ResponseHeader {
    return this.s.header(this.s.kv.durableRev())
  }
}
