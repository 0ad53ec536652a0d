// How bench/client.ts talks to a KV server: the few requests its workloads send, behind one interface, so
// the same workloads run over grpc-js (the default: what etcdlite's users run) or over bare node:http2
// (h2-kv.ts: a cheaper client, to see a server with less of the load generator in the way).
import * as grpc from '@grpc/grpc-js'
import { loadEtcdProto } from '../../src/grpc/proto.js'
import type { KVClient } from '../../src/grpc/generated/etcdserverpb/KV.js'
import type { RequestOp } from '../../src/grpc/generated/etcdserverpb/RequestOp.js'
import type { KvClientKind } from './workloads.js'
import { openH2Transports } from './h2-kv.js'

/** One operation of a bench Txn: a put, or a single-key range. */
export type TxnOp = { readonly put: { readonly key: Uint8Array; readonly value: Uint8Array } } | { readonly range: { readonly key: Uint8Array } }

/** The Txns the workloads send: an optional value-equality compare, then the ops of either branch. */
export interface TxnSpec {
  readonly compareValue?: { readonly key: Uint8Array; readonly value: Uint8Array }
  readonly success: readonly TxnOp[]
  readonly failure?: readonly TxnOp[]
}

/** What the workloads check of a Txn's response. */
export interface TxnOutcome {
  readonly succeeded: boolean
  /** How many responses (one per op of the branch taken). */
  readonly responses: number
  /** The value of the first key of the first response, when that response is a range that found one. */
  readonly firstRangeValue: Uint8Array | undefined
}

/** One connection to the server. Every call rejects with the server's error (gRPC status and message). */
export interface KvTransport {
  /** A Put; rejects when the response lacks its header. */
  put(key: Uint8Array, value: Uint8Array): Promise<void>
  /** A Range of `key` (and `rangeEnd`, if given): the values of the keys found, in order. */
  range(key: Uint8Array, rangeEnd: Uint8Array | undefined, serializable: boolean): Promise<Uint8Array[]>
  txn(spec: TxnSpec): Promise<TxnOutcome>
  close(): void
}

/** `n` connections to `endpoint` over the chosen client, each ready; `token` goes with every request (auth). */
export async function openTransports(kind: KvClientKind, endpoint: string, n: number, token: string | undefined): Promise<KvTransport[]> {
  return kind === 'h2' ? openH2Transports(endpoint, n, token) : openGrpcTransports(endpoint, n, token)
}

// ---------------------------------------------------------------------------------------------------
// grpc-js, with the project's protos through @grpc/proto-loader (protobufjs encodes and decodes)

async function openGrpcTransports(endpoint: string, n: number, token: string | undefined): Promise<KvTransport[]> {
  const proto = loadEtcdProto()
  const clients: KVClient[] = []
  for (let i = 0; i < n; i++) {
    // grpc-js shares subchannels (connections) between channels with equal target and options by
    // default; a local subchannel pool gives every channel its own connection.
    clients.push(new proto.etcdserverpb.KV(endpoint, grpc.credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 }))
  }
  const deadline = Date.now() + 10_000
  try {
    await Promise.all(clients.map((c) => new Promise<void>((resolve, reject) => {
      c.waitForReady(deadline, (err) => (err === undefined || err === null ? resolve() : reject(err)))
    })))
  } catch (err) {
    for (const c of clients) c.close()
    throw err
  }
  const md = new grpc.Metadata()
  if (token !== undefined) md.set('token', token)
  return clients.map((kv) => grpcTransport(kv, md))
}

const toOp = (op: TxnOp): RequestOp =>
  'put' in op ? { request_put: { key: op.put.key, value: op.put.value } } : { request_range: { key: op.range.key } }

function grpcTransport(kv: KVClient, md: grpc.Metadata): KvTransport {
  return {
    put: (key, value) => new Promise<void>((resolve, reject) => {
      kv.Put({ key, value }, md, (err, res) => {
        if (err !== null) reject(err)
        else if (res?.header === null || res?.header === undefined) reject(new Error('put: response without header'))
        else resolve()
      })
    }),
    range: (key, rangeEnd, serializable) => new Promise<Uint8Array[]>((resolve, reject) => {
      kv.Range({ key, ...(rangeEnd === undefined ? {} : { range_end: rangeEnd }), serializable }, md, (err, res) => {
        if (err !== null || res === undefined) reject(err ?? new Error('range: no response'))
        else resolve(res.kvs.map((k) => k.value))
      })
    }),
    txn: (spec) => new Promise<TxnOutcome>((resolve, reject) => {
      const cmp = spec.compareValue
      kv.Txn(
        {
          compare: cmp === undefined ? [] : [{ key: cmp.key, target: 'VALUE', result: 'EQUAL', value: cmp.value }],
          success: spec.success.map(toOp),
          failure: (spec.failure ?? []).map(toOp),
        },
        md,
        (err, res) => {
          if (err !== null || res === undefined) {
            reject(err ?? new Error('txn: no response'))
            return
          }
          resolve({ succeeded: res.succeeded, responses: res.responses.length, firstRangeValue: res.responses[0]?.response_range?.kvs[0]?.value })
        },
      )
    }),
    close: () => kv.close(),
  }
}
