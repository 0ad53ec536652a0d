// The embedded Etcd's Lease service, with clientv3's keep-alive loop (lease.ts) in process.
import type {
  LeaseGrantRequest, LeaseGrantResponse, LeaseKeepAliveRequest, LeaseKeepAliveResponse, LeaseLeasesResponse,
  LeaseRevokeRequest, LeaseRevokeResponse, LeaseTimeToLiveRequest, LeaseTimeToLiveResponse,
} from '../etcdserver/types/lease.js'
import { EtcdWatch } from './etcd-watch.js'
import { checkRequest, type Input } from './input.js'
import { LeaseKeepAlive, type LeaseKeepAliveOptions } from './lease.js'

export abstract class EtcdLease extends EtcdWatch {
  /**
   * Grant a lease of `ttl` seconds (raised to the minimum TTL). `id` 0 or absent: the server picks one.
   * Rejects with LEASE_EXISTS or LEASE_TTL_TOO_LARGE.
   */
  leaseGrant(req: Input<LeaseGrantRequest>): Promise<LeaseGrantResponse> {
    return this.checked('leaseGrant', req, (r) => this.server.leaseService.leaseGrant(r, this.creds))
  }

  /** Revoke a lease and delete its keys (one revision). Rejects with LEASE_NOT_FOUND. */
  leaseRevoke(req: Input<LeaseRevokeRequest>): Promise<LeaseRevokeResponse> {
    return this.checked('leaseRevoke', req, (r) => this.server.leaseService.leaseRevoke(r, this.creds))
  }

  /** Renew a lease once (one LeaseKeepAlive message): TTL is the granted TTL, or 0 if the lease is gone. */
  leaseKeepAliveOnce(req: Input<LeaseKeepAliveRequest>): Promise<LeaseKeepAliveResponse> {
    return this.checked('leaseKeepAliveOnce', req, (r) => this.server.leaseService.leaseRenew(r, this.creds))
  }

  /**
   * Keep a lease alive until `break`, cancel(), the signal, or the lease going away: renews at once and
   * then every TTL/3, on the server's clock.
   */
  leaseKeepAlive(opts: LeaseKeepAliveOptions): LeaseKeepAlive {
    return new LeaseKeepAlive(this.server, checkRequest('leaseKeepAlive', opts), this.creds)
  }

  /** Seconds left on a lease (TTL -1 if it does not exist), its granted TTL and, with `keys`, its keys. */
  leaseTimeToLive(req: LeaseTimeToLiveRequest): Promise<LeaseTimeToLiveResponse> {
    return this.checked('leaseTimeToLive', req, (r) => this.server.leaseService.leaseTimeToLive(r, this.creds))
  }

  /** Every live lease. */
  leaseLeases(): Promise<LeaseLeasesResponse> {
    return this.sync(() => this.server.leaseService.leaseLeases(this.creds))
  }
}
