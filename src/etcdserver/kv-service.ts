// Mirrors etcd's RaftKV interface (etcdserver/v3_server.go: Range, Put, DeleteRange, Txn, Compact) with the
// checks etcd makes on the way (v3rpc's request checks, the quota servers, the auth applier): the KV
// service without a transport. Writes run synchronously from their checks to the end of their write txn, so
// no other request interleaves; the only await is the commit that makes the revision durable.
import type { AuthInfo } from '../auth/permission.js'
import type { AuthStore } from '../auth/store.js'
import { asError } from '../pkg/as-error.js'
import { EtcdError } from '../pkg/errors.js'
import type { Lessor } from '../lease/lessor.js'
import type { KV, TxnWrite } from '../mvcc/kv.js'
import {
  applyDeleteRange, applyPut, applyRange, applyTxnOps, checkTxnPath, compareToPath, isTxnReadonly, type HeaderOf,
  type LeaseLookup,
} from './apply.js'
import {
  checkDeleteRangeAuth, checkPutAuth, checkRangeAuth, checkTxnAuth,
} from './apply-auth.js'
import type { AppliedIndex } from './applied-index.js'
import type { CallTracker } from './call-tracker.js'
import type { CallerAuth } from './caller-auth.js'
import { costPut, costTxn, type BackendQuota } from './quota.js'
import { deleteRangeSize, putSize, raftRequestSize, txnSize } from './request-size.js'
import type { ServerStats } from './server-stats.js'
import type { CallCredentials } from './types/credentials.js'
import type { ResponseHeader } from './types/header.js'
import type {
  CompactionRequest, CompactionResponse, DeleteRangeRequest, DeleteRangeResponse, PutRequest, PutResponse,
  RangeRequest, RangeResponse, ResponseOp, TxnRequest, TxnResponse,
} from './types/kv.js'
import { checkDeleteRequest, checkPutRequest, checkRangeRequest, checkTxn } from './validate.js'

/** The key etcd's compaction reads to learn the current revision ("which key to get is not important"). */
const COMPACTION_KEY = new TextEncoder().encode('compaction')

/** What the KV service uses of the server. */
export interface KvServiceServer {
  readonly kv: KV
  readonly authStore: AuthStore
  readonly lessor: Lessor
  readonly callerAuth: CallerAuth
  readonly calls: CallTracker
  readonly quota: Pick<BackendQuota, 'check'>
  readonly appliedIndex: Pick<AppliedIndex, 'noteUnchanged' | 'noteEntry'>
  readonly stats: Pick<ServerStats, 'apply' | 'applyAsync' | 'readDone'>
  header(revision: number): ResponseHeader
  /** Largest write request accepted, in bytes (etcd's --max-request-bytes). */
  readonly maxRequestBytes: number
  /** Most operations per txn level (etcd's --max-txn-ops). */
  readonly maxTxnOps: number
}

export class KvService {
  private readonly s: KvServiceServer
  private readonly kv: KV
  private readonly leaseExists: LeaseLookup
  /** The server's header, bound, for the apply functions. */
  private readonly headerOf: HeaderOf

  constructor(server: KvServiceServer) {
    this.s = server
    this.kv = server.kv
    this.leaseExists = (id) => server.lessor.exists(id)
    this.headerOf = (revision) => server.header(revision)
  }

  /**
   * Range. Linearizable and serializable reads alike are served at the newest durable revision, which
   * includes every acknowledged write and nothing that is not yet durable. Synchronous.
   */
  range(r: RangeRequest, creds?: CallCredentials): RangeResponse {
    this.s.calls.checkOpen()
    checkRangeRequest(r)
    const started = performance.now()
    checkRangeAuth(this.s.authStore, this.s.callerAuth.authInfo(creds), r)
    const resp = applyRange(this.kv.read(), r, this.headerOf)
    this.s.stats.readDone(started)
    return resp
  }

  /**
   * Put. Checks, applies and ends its write txn synchronously, then resolves once the revision is durable
   * (rejects with the check's error otherwise; never throws).
   */
  put(r: PutRequest, creds?: CallCredentials): Promise<PutResponse> {
    return this.durable(() => {
      this.s.calls.checkOpen()
      checkPutRequest(r)
      const ai = this.s.callerAuth.authInfo(creds)
      this.checkSize(putSize(r))
      this.s.quota.check(costPut(r))
      // What follows is what etcd checks and does when it applies the request.
      return this.s.stats.apply('Put', () => {
        checkPutAuth(this.s.authStore, this.s.lessor, ai, r)
        const lease = r.lease ?? 0n
        if (lease !== 0n && !this.s.lessor.exists(lease)) throw new EtcdError('LEASE_NOT_FOUND')
        return this.applyWrite(applyPut, r)
      })
    })
  }

  /** DeleteRange: like put(), synchronous up to the end of its write txn, then resolves once durable. */
  deleteRange(r: DeleteRangeRequest, creds?: CallCredentials): Promise<DeleteRangeResponse> {
    return this.durable(() => {
      this.s.calls.checkOpen()
      checkDeleteRequest(r)
      const ai = this.s.callerAuth.authInfo(creds)
      this.checkSize(deleteRangeSize(r))
      return this.s.stats.apply('DeleteRange', () => {
        checkDeleteRangeAuth(this.s.authStore, ai, r)
        return this.applyWrite(applyDeleteRange, r)
      })
    })
  }

  txn(r: TxnRequest, creds?: CallCredentials): Promise<TxnResponse> {
    return this.s.calls.track(async () => {
      checkTxn(r, this.s.maxTxnOps)
      const ai = this.s.callerAuth.authInfo(creds)
      if (isTxnReadonly(r)) {
        const started = performance.now()
        checkTxnAuth(this.s.authStore, this.s.lessor, ai, r)
        const rv = this.kv.read()
        try {
          const path = compareToPath(rv, r)
          checkTxnPath(rv, r, path, false, this.leaseExists)
          const responses: ResponseOp[] = []
          applyTxnOps(rv, r, path, responses)
          return { header: this.s.header(rv.rev()), succeeded: path[0] === true, responses }
        } finally {
          rv.endOps()
          this.s.stats.readDone(started)
        }
      }
      this.checkSize(txnSize(r))
      this.s.quota.check(costTxn(r))
      const { rev, succeeded, responses } = this.s.stats.apply('Txn', () => this.applyTxnWrite(r, ai))
      await this.kv.sync(rev)
      return { header: this.s.header(rev), succeeded, responses }
    })
  }

  compact(r: CompactionRequest, creds?: CallCredentials): Promise<CompactionResponse> {
    return this.s.calls.track(async () => {
      // etcd asks for no permission to compact; the token must still be valid.
      this.s.callerAuth.authInfo(creds)
      const before = this.kv.rev()
      let done: Promise<void>
      try {
        ;({ done } = await this.s.stats.applyAsync('Compaction', () => this.kv.compact(r.revision)))
      } finally {
        // Counted whether or not it succeeds: a refused compaction is an applied raft entry in etcd too.
        this.s.appliedIndex.noteEntry(before)
      }
      if (r.physical === true) await done
      else done.catch(() => undefined)
      // etcd reads the current revision for the header with a Range (of the key "compaction"), which its
      // range counter counts.
      const rv = this.kv.read()
      const { rev } = rv.range(COMPACTION_KEY, undefined)
      rv.endOps()
      return { header: this.s.header(rev) }
    })
  }

  /** The write half of txn(): the checks etcd makes when it applies the txn, then its ops in one write txn. */
  private applyTxnWrite(r: TxnRequest, ai: AuthInfo | undefined): { rev: number; succeeded: boolean; responses: ResponseOp[] } {
    checkTxnAuth(this.s.authStore, this.s.lessor, ai, r)
    const tw = this.kv.write()
    let rev: number
    let responses: ResponseOp[]
    let succeeded: boolean
    try {
      let path: boolean[]
      try {
        path = compareToPath(tw, r)
        checkTxnPath(tw, r, path, true, this.leaseExists)
      } finally {
        // etcd evaluates the compares and checks in a read txn of their own, then opens the write txn.
        tw.endOps()
      }
      succeeded = path[0] === true
      responses = []
      applyTxnOps(tw, r, path, responses)
    } finally {
      rev = tw.end()
      this.s.appliedIndex.noteUnchanged(tw)
    }
    return { rev, succeeded, responses }
  }

  /**
   * Run one write txn, synchronous from begin to end, and give its response the outer header. Even a txn
   * that changed nothing answers from the newest state, so its caller waits for durability too.
   */
  private applyWrite<Q, R>(apply: (tw: TxnWrite, r: Q, headerOf: HeaderOf) => R, r: Q): R {
    const tw = this.kv.write()
    try {
      return apply(tw, r, this.headerOf)
    } finally {
      tw.end()
      this.s.appliedIndex.noteUnchanged(tw)
    }
  }

  /**
   * Run `write` (checks and one write txn, synchronously) and resolve with its response once its revision is
   * durable, counted as in flight until then; a check that throws becomes a rejection.
   */
  private durable<R extends { readonly header: ResponseHeader }>(write: () => R): Promise<R> {
    let resp: R
    try {
      resp = write()
    } catch (err) {
      return Promise.reject(asError(err))
    }
    const rev = resp.header.revision
    if (this.kv.durableRev() >= rev) return Promise.resolve(resp)
    return this.s.calls.trackUntil(this.kv.sync(rev), resp)
  }

  private checkSize(size: number): void {
    if (raftRequestSize(size) > this.s.maxRequestBytes) throw new EtcdError('REQUEST_TOO_LARGE')
  }
}
