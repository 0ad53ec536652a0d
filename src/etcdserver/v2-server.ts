// The v2 side of etcd's server (etcdserver/v2_server.go and apply_v2.go, 3.5.17) for one member: Do()
// routes a v2 request, and a write (PUT, POST, DELETE) or quorum read (QGET) is "proposed": applied to the
// v2 store, counted as a raft entry (Status's raftIndex, the X-Raft-Index header) and made durable before it
// answers, failed or not, as a raft entry is. Plain reads and watches are served from memory. While some key
// has a TTL, a SYNC entry every 500 ms removes what expired, as etcd's leader does. The store's first
// entries are the member's, as etcd makes them: /0/members/<id>/raftAttributes and .../attributes and
// /0/version on a new data dir (so the first key written gets index 4), and the attributes again on
// every start.
import { EtcdError } from '../pkg/errors.js'
import { utf8ToBstr } from '../pkg/bstr.js'
import { goJsonMarshal } from '../pkg/go-json.js'
import { msToNs, wallNowNs } from '../pkg/go-time.js'
import { dir as pathDir } from '../pkg/go-path.js'
import { Ticker } from '../pkg/ticker.js'
import { V2AuthStore } from './api/v2auth/auth.js'
import { ServerStats } from './api/v2stats/stats.js'
import type { V2Event } from './api/v2store/event.js'
import { loadStore, persistChanges } from './api/v2store/persist.js'
import { V2Store, type TtlOptionSet } from './api/v2store/store.js'
import type { EtcdServer } from './etcd-server.js'
import { majorMinor } from './metrics.js'
import type { RequestV2, ResponseV2, V2Doer } from './v2-request.js'
import type { newClientHandler } from './api/v2http/client.js'

/** etcd's StoreClusterPrefix and StoreKeysPrefix: the namespaces of a new v2 store. */
export const STORE_CLUSTER_PREFIX = '/0'
export const STORE_KEYS_PREFIX = '/1'

/** How often the leader checks for expired keys (etcd's SyncTicker). */
export const SYNC_INTERVAL_MS = 500

/** etcd's storeMemberAttributeRegexp, unanchored as etcd matches it. */
const MEMBER_ATTRIBUTES = /\/0\/members\/[0-9a-fA-F]{1,16}\/attributes/

/**
 * What the v2 API uses of the server: the member's identity and URLs, the clock, the backend its store
 * lives in, the applied index its entries count into, the version it reports, and the server's call
 * tracking (a v2 request is a call close() waits for).
 */
export type V2ServerHost = Pick<
  EtcdServer, 'member' | 'memberId' | 'clusterId' | 'raftTerm' | 'clock' | 'backend' | 'appliedIndex' | 'track' | 'closed'
> & { readonly maintenance: Pick<EtcdServer['maintenance'], 'etcdVersion'> }

const PERMANENT: TtlOptionSet = { expireTime: undefined, refresh: false }

/** RequestV2.TTLOptions. */
function ttlOptions(r: RequestV2): TtlOptionSet {
  return { expireTime: r.expiration === 0n ? undefined : r.expiration, refresh: r.refresh ?? false }
}

export class V2Server implements V2Doer {
  /** The store; replaced by a fresh load after the backend failed a commit and recovered. */
  store: V2Store
  /** The v2 auth store over this server (one per process, as etcd's handler makes one). */
  readonly auth: V2AuthStore
  /** /v2/stats/self and /v2/stats/leader. */
  readonly serverStats: ServerStats
  private readonly s: V2ServerHost
  private readonly ticker: Ticker
  private readonly onError: (err: unknown) => void
  private readonly wallBase: bigint
  private readonly clockBase: number
  /** A commit failed: memory may hold writes the disk does not; reload once the backend recovers. */
  private stale = false
  private reloading: Promise<void> | undefined
  private closed = false

  /**
   * The client URL's HTTP handler with the v2 API (v2http/client.ts), loaded with the server so that nothing
   * of the v2 API loads unless it is on.
   */
  clientHandler: typeof newClientHandler | undefined

  private constructor(s: V2ServerHost, onError: (err: unknown) => void) {
    this.s = s
    this.onError = onError
    this.wallBase = wallNowNs()
    this.clockBase = s.clock.now()
    this.store = this.newStore()
    this.auth = new V2AuthStore(this)
    this.serverStats = new ServerStats(() => ({ name: s.member.name, id: s.memberId.toString(16) }), this.wallBase)
    this.ticker = new Ticker(() => this.syncTick(), SYNC_INTERVAL_MS, s.clock, onError)
    s.backend.onFailure(() => {
      this.stale = true
    })
  }

  /** Load the v2 store from the backend (or make a new one), record this member's start, and begin expiring keys. */
  static async open(s: V2ServerHost, onError: (err: unknown) => void): Promise<V2Server> {
    const v2 = new V2Server(s, onError)
    v2.clientHandler = (await import('./api/v2http/client.js')).newClientHandler
    if (await loadStore(s.backend, v2.store)) {
      // A restart: etcd's store then shows one successful and three failed reads from recovering membership.
      v2.store.stats.set('getsSuccess', 1)
      v2.store.stats.set('getsFail', 3)
      v2.publish()
    } else {
      v2.bootstrap()
    }
    persistChanges(s.backend, v2.store, v2.store.takeChanges())
    await s.backend.commit()
    v2.ticker.start()
    return v2
  }

  /** Wall-clock time in Unix nanoseconds, moving with the server's clock (a ManualClock in tests). */
  now(): bigint {
    return this.wallBase + msToNs(this.s.clock.now() - this.clockBase)
  }

  /** etcd's cluster ID as its headers show it (hexadecimal). */
  clusterIdString(): string {
    return this.s.clusterId.toString(16)
  }

  /** The server under this API (the member's identity and URLs). */
  get server(): V2ServerHost {
    return this.s
  }

  /** Report an error no client is told about (etcd logs it). */
  report(err: unknown): void {
    this.onError(err)
  }

  /** EtcdServer.Do: route a v2 request (a GET with quorum goes through consensus as QGET). */
  do(r: RequestV2): Promise<ResponseV2> {
    const method = r.method === 'GET' && r.quorum ? 'QGET' : r.method
    switch (method) {
      case 'POST':
      case 'PUT':
      case 'DELETE':
      case 'QGET':
        return this.propose({ ...r, method })
      case 'GET':
        return this.read(() => (r.wait ? { watcher: this.store.watch(r.path, r.recursive, r.stream, r.since) } : { event: this.store.get(r.path, r.recursive, r.sorted) }))
      case 'HEAD':
        return this.read(() => ({ event: this.store.get(r.path, r.recursive, r.sorted) }))
      default:
        return Promise.reject(new Error('etcdserver: unknown method'))
    }
  }

  /**
   * A membership change etcd proposes and then refuses as it applies it (a member ID it does not know): the
   * entry counts, and validating it reads the members and removed members from the v2 store.
   */
  rejectedConfChange(): Promise<void> {
    if (this.closed) return Promise.reject(new EtcdError('STOPPED'))
    return this.s.track(async () => {
      for (const dirName of ['members', 'removed_members']) {
        try {
          this.store.get(`${STORE_CLUSTER_PREFIX}/${dirName}`, true, true)
        } catch {
          // Only the read's statistics matter (no member was ever removed: that one fails).
        }
      }
      await this.commitEntry()
    })
  }

  /** Stop expiring keys and refuse requests. Watchers end with their connections. */
  async close(): Promise<void> {
    this.closed = true
    await this.ticker.stop()
  }

  private newStore(): V2Store {
    return new V2Store(() => this.now(), [STORE_CLUSTER_PREFIX, STORE_KEYS_PREFIX])
  }

  private respond(r: { event?: V2Event | undefined; watcher?: ResponseV2['watcher'] }): ResponseV2 {
    return { ...r, index: this.s.appliedIndex.raftIndex(), term: this.s.raftTerm }
  }

  private async read(fn: () => { event?: V2Event | undefined; watcher?: ResponseV2['watcher'] }): Promise<ResponseV2> {
    if (this.closed || this.s.closed) throw new EtcdError('STOPPED')
    await this.reloadIfStale()
    return this.respond(fn())
  }

  /** A raft entry: apply, persist, count, commit; then answer (or throw the store's error). */
  private propose(r: RequestV2): Promise<ResponseV2> {
    if (this.closed) return Promise.reject(new EtcdError('STOPPED'))
    return this.s.track(async () => {
      await this.reloadIfStale()
      const failure = this.s.backend.failure
      if (failure !== undefined) throw failure
      let event: V2Event | undefined
      let failed: { err: unknown } | undefined
      try {
        event = this.apply(r)
      } catch (err) {
        failed = { err }
      }
      await this.commitEntry()
      if (failed !== undefined) throw failed.err
      return this.respond({ event })
    })
  }

  /** Persist what the store changed as one more applied entry, and wait until it is durable. */
  private async commitEntry(): Promise<void> {
    persistChanges(this.s.backend, this.store, this.store.takeChanges())
    this.s.appliedIndex.noteApplied()
    try {
      await this.s.backend.commit()
    } catch (err) {
      this.stale = true
      throw err
    }
  }

  /** applierV2store: a request's effect on the store. Undefined: an entry with no event (member attributes). */
  private apply(r: RequestV2): V2Event | undefined {
    const st = this.store
    switch (r.method) {
      case 'POST':
        return st.create(r.path, r.dir, r.val, true, ttlOptions(r))
      case 'PUT':
        return this.applyPut(r)
      case 'DELETE':
        if (r.prevIndex > 0n || r.prevValue !== '') return st.compareAndDelete(r.path, r.prevValue, r.prevIndex)
        return st.delete(r.path, r.dir, r.recursive)
      case 'QGET':
        return st.get(r.path, r.recursive, r.sorted)
      default:
        throw new Error('etcdserver: unknown method')
    }
  }

  private applyPut(r: RequestV2): V2Event | undefined {
    const st = this.store
    const ttl = ttlOptions(r)
    if (r.prevExist !== undefined) {
      if (r.prevExist) {
        if (r.prevIndex === 0n && r.prevValue === '') return st.update(r.path, r.val, ttl)
        return st.compareAndSwap(r.path, r.prevValue, r.prevIndex, r.val, ttl)
      }
      return st.create(r.path, r.dir, r.val, false, ttl)
    }
    if (r.prevIndex > 0n || r.prevValue !== '') return st.compareAndSwap(r.path, r.prevValue, r.prevIndex, r.val, ttl)
    if (MEMBER_ATTRIBUTES.test(r.path)) {
      // etcd takes such a write (even /1/0/members/<id>/attributes: its pattern is unanchored) as a member
      // publishing its attributes: it answers with no event, and for an unknown member or a value that is
      // not JSON its apply loop panics. Here it changes nothing.
      this.onError(new Error(`v2: ignored a write to member attributes ${pathDir(r.path)}`))
      return undefined
    }
    return st.set(r.path, r.dir, r.val, ttl)
  }

  /** A SYNC entry, proposed only while some key has a TTL: remove what has expired. */
  private async syncTick(): Promise<undefined> {
    if (this.closed || this.s.closed || !this.store.hasTtlKeys()) return undefined
    await this.s.track(async () => {
      if (this.s.backend.failure !== undefined) return
      this.store.deleteExpiredKeys(this.now())
      await this.commitEntry()
    })
    return undefined
  }

  /** The first start on a data dir: this member joins the (empty) v2 store as etcd records it. */
  private bootstrap(): void {
    const id = this.s.memberId.toString(16)
    try {
      // etcd validates the first member against the members it finds: none yet (a failed read).
      this.store.get(`${STORE_CLUSTER_PREFIX}/members`, true, true)
    } catch {
      // Expected: the directory does not exist yet.
    }
    const raft = utf8ToBstr(goJsonMarshal({ peerURLs: this.s.member.peerUrls.map(utf8ToBstr) }))
    this.store.create(`${STORE_CLUSTER_PREFIX}/members/${id}/raftAttributes`, false, raft, false, PERMANENT)
    this.publish()
    this.store.set(`${STORE_CLUSTER_PREFIX}/version`, false, `${majorMinor(this.s.maintenance.etcdVersion)}.0`, PERMANENT)
  }

  /** etcd's publish: the member's name and client URLs, written on every start. */
  private publish(): void {
    const id = this.s.memberId.toString(16)
    const m = this.s.member
    const attrs = { name: m.name === '' ? undefined : utf8ToBstr(m.name), clientURLs: m.clientUrls.length === 0 ? undefined : m.clientUrls.map(utf8ToBstr) }
    this.store.set(`${STORE_CLUSTER_PREFIX}/members/${id}/attributes`, false, utf8ToBstr(goJsonMarshal(attrs)), PERMANENT)
  }

  /** After a failed commit the backend recovered: read the store again from what is on disk. */
  private async reloadIfStale(): Promise<void> {
    if (!this.stale || this.s.backend.failure !== undefined) return
    this.reloading ??= (async () => {
      const fresh = this.newStore()
      await loadStore(this.s.backend, fresh)
      for (const f of ['getsSuccess', 'getsFail'] as const) fresh.stats.set(f, this.store.stats.get(f))
      this.store.watcherHub.removeAll()
      this.store = fresh
      this.stale = false
    })().finally(() => {
      this.reloading = undefined
    })
    await this.reloading
  }
}
