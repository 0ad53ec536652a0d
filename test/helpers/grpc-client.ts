// A raw @grpc/grpc-js client for the etcd v3 API. Calls take and return protobuf-shaped objects.
import * as grpc from '@grpc/grpc-js'
import { loadEtcdProto } from '../../src/grpc/proto.js'

export type UnaryCall = (req: object) => Promise<Record<string, unknown>>

/** Promisify one unary method of a grpc-js client. */
export function unary(client: grpc.Client, method: string): UnaryCall {
  const fn = (client as unknown as Record<string, unknown>)[method]
  if (typeof fn !== 'function') throw new Error(`no method ${method}`)
  return (req: object) =>
    new Promise((resolve, reject) => {
      ;(fn as (r: object, cb: (err: grpc.ServiceError | null, res?: Record<string, unknown>) => void) => void).call(client, req, (err, res) => {
        if (err !== null) reject(err)
        else resolve(res ?? {})
      })
    })
}

export interface RawKv {
  readonly Range: UnaryCall
  readonly Put: UnaryCall
  readonly DeleteRange: UnaryCall
  readonly Txn: UnaryCall
  readonly Compact: UnaryCall
}

export interface RawClient {
  readonly client: grpc.Client
  readonly kv: RawKv
  close(): void
}

/** Connect a raw KV client to `endpoint` (host:port). */
export function rawClient(endpoint: string): RawClient {
  const proto = loadEtcdProto()
  const client = new proto.etcdserverpb.KV(endpoint, grpc.credentials.createInsecure())
  const kv: RawKv = {
    Range: unary(client, 'Range'),
    Put: unary(client, 'Put'),
    DeleteRange: unary(client, 'DeleteRange'),
    Txn: unary(client, 'Txn'),
    Compact: unary(client, 'Compact'),
  }
  return { client, kv, close: () => client.close() }
}
