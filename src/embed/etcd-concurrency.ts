// The embedded Etcd's lock and election services (etcd's v3lock and v3election), acting with the view's
// credentials, as etcd's act with their caller's.
import { asCaller } from '../etcdserver/concurrency.js'
import { ElectionServer } from '../etcdserver/v3election.js'
import { LockServer } from '../etcdserver/v3lock.js'
import type {
  CampaignRequest, CampaignResponse, LeaderRequest, LeaderResponse, LockRequest, LockResponse, ProclaimRequest,
  ProclaimResponse, ResignRequest, ResignResponse, UnlockRequest, UnlockResponse,
} from '../etcdserver/types/concurrency.js'
import { EtcdLease } from './etcd-lease.js'
import { checkRequest, checkSignalOptions, type Input } from './input.js'

export abstract class EtcdConcurrency extends EtcdLease {
  private readonly lockServer = new LockServer(asCaller(this.server, this.creds))
  private readonly electionServer = new ElectionServer(asCaller(this.server, this.creds))

  /**
   * Acquire the lock `name` (etcd's v3lock Lock): waits until every earlier holder's key is gone. The key is
   * attached to `lease` (0n or absent: a fresh 60 s lease, as etcd). Resolves with the key to unlock with;
   * `signal` withdraws a waiter. Rejects with MUTEX_SESSION_EXPIRED if the lease goes away while waiting.
   */
  lock(req: Input<LockRequest>, opts: { signal?: AbortSignal } = {}): Promise<LockResponse> {
    return this.checked('lock', req, (r) => this.lockServer.lock(r, checkSignalOptions('lock', opts)))
  }

  /** Release a lock by its key (deletes the key). */
  unlock(req: Input<UnlockRequest>): Promise<UnlockResponse> {
    return this.checked('unlock', req, (r) => this.lockServer.unlock(r))
  }

  /** Campaign for leadership of election `name` (etcd's v3election): resolves once this candidate leads. */
  campaign(req: Input<CampaignRequest>, opts: { signal?: AbortSignal } = {}): Promise<CampaignResponse> {
    return this.checked('campaign', req, (r) => this.electionServer.campaign(r, checkSignalOptions('campaign', opts)))
  }

  /** Update the leader's value; rejects with ELECTION_NOT_LEADER if `leader` no longer leads. */
  proclaim(req: Input<ProclaimRequest>): Promise<ProclaimResponse> {
    return this.checked('proclaim', req, (r) => this.electionServer.proclaim(r))
  }

  /** The current leader of election `name`; rejects with ELECTION_NO_LEADER when there is none. */
  leader(req: Input<LeaderRequest>): Promise<LeaderResponse> {
    return this.checked('leader', req, (r) => this.electionServer.leader(r))
  }

  /**
   * Every change of leader of election `name`, starting with the current one, until `signal` aborts.
   * Throws a TypeError at once for a request of the wrong types.
   */
  observe(req: Input<LeaderRequest>, opts: { signal?: AbortSignal } = {}): AsyncGenerator<LeaderResponse, void, undefined> {
    return this.electionServer.observe(checkRequest('observe', req), checkSignalOptions('observe', opts))
  }

  /** Give up leadership (deletes the leader key). */
  resign(req: Input<ResignRequest>): Promise<ResignResponse> {
    return this.checked('resign', req, (r) => this.electionServer.resign(r))
  }
}
