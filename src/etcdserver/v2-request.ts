// etcd's v2 request (etcdserverpb.Request, as etcdserver.RequestV2) and its Response: what the v2 keys
// handler and the v2 auth store ask of the server (EtcdServer.Do), and what comes back. Strings are byte
// strings (pkg/bstr.ts).
import type { V2Event } from './api/v2store/event.js'
import type { Watcher } from './api/v2store/watcher.js'

export interface RequestV2 {
  /** GET, HEAD, PUT, POST, DELETE, or QGET (a GET through consensus). */
  readonly method: string
  readonly path: string
  readonly val: string
  readonly dir: boolean
  readonly prevValue: string
  readonly prevIndex: bigint
  /** Undefined when not given (a nullable field in etcd). */
  readonly prevExist: boolean | undefined
  /** Expiry in Unix nanoseconds; 0 for none. */
  readonly expiration: bigint
  readonly wait: boolean
  /** waitIndex (0: from the next index). */
  readonly since: bigint
  readonly recursive: boolean
  readonly sorted: boolean
  readonly quorum: boolean
  readonly stream: boolean
  /** Undefined when not given. */
  readonly refresh: boolean | undefined
}

/** A request with etcd's zero values for every field not given. */
export function requestV2(r: Partial<RequestV2> & { readonly method: string; readonly path: string }): RequestV2 {
  return {
    val: '', dir: false, prevValue: '', prevIndex: 0n, prevExist: undefined, expiration: 0n, wait: false, since: 0n,
    recursive: false, sorted: false, quorum: false, stream: false, refresh: undefined, ...r,
  }
}

/** A request's answer: an event, or for a wait a watcher; with the raft index and term of the moment. */
export interface ResponseV2 {
  readonly event?: V2Event | undefined
  readonly watcher?: Watcher | undefined
  readonly index: number
  readonly term: number
}

/** EtcdServer.Do for v2 requests: rejects with the store's V2Error, or the server's error. */
export interface V2Doer {
  do(r: RequestV2): Promise<ResponseV2>
}
