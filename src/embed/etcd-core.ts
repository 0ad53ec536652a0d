// What every service's methods of the embedded Etcd stand on: the server, the credentials the view's calls
// carry, and the two ways a call reaches the server so that its failures, input errors included, arrive as
// rejections. etcd.ts explains how the services are composed on it.
import type { EtcdServer } from '../etcdserver/etcd-server.js'
import type { CallCredentials } from '../etcdserver/types/credentials.js'
import { asError } from '../pkg/as-error.js'
import { checkRequest, type Call, type Checked } from './input.js'

export abstract class EtcdCore {
  /** The server core (advanced use: header identity, the MVCC store). */
  readonly server: EtcdServer
  /** What every call of this view carries (see Etcd.withToken); undefined for the Etcd openEtcd() returns. */
  protected readonly creds: CallCredentials | undefined

  protected constructor(server: EtcdServer, creds: CallCredentials | undefined) {
    this.server = server
    this.creds = creds
  }

  /** Run a server call; what it throws, synchronously or not, arrives as a rejection, as every call's failures do. */
  protected sync<T>(fn: () => T): Promise<Awaited<T>> {
    try {
      return Promise.resolve(fn())
    } catch (err) {
      return Promise.reject(asError(err))
    }
  }

  /**
   * Check the request of entry point `call` (input.ts: strings become UTF-8 bytes, wrong types a TypeError
   * naming the field), then make the server call; a refused request arrives as a rejection too.
   */
  protected checked<C extends Call, T>(call: C, req: unknown, fn: (r: Checked[C]) => T): Promise<Awaited<T>> {
    return this.sync(() => fn(checkRequest(call, req)))
  }
}
