// The RPC ceiling: a bare @grpc/grpc-js server with etcdlite's KV service definition (the same hand-written
// codec for Range and Put, src/grpc/kv.ts) and etcdlite's server options, answering every Range and Put at
// once with a canned response (and Txn, which only fills keys before a window, with a canned success): no
// store, no disk, no auth, no metrics. What Node and grpc-js can do at most
// for the same RPCs; bench/client.ts runs against it unchanged.
//
//   node build/bench/ceilings/rpc-ceiling-server.js [--key-size 16] [--value-size 64]   # prints `ready <port>`
import * as grpc from '@grpc/grpc-js'
import type { handleUnaryCall } from '@grpc/grpc-js'
import type { PutRequest, PutResponse, RangeRequest, RangeResponse } from '../../src/etcdserver/types.js'
import { kvServiceDefinition } from '../../src/grpc/kv.js'
import { toPbTxnResponse } from '../../src/grpc/convert.js'
import { loadEtcdProto } from '../../src/grpc/proto.js'
import { CANNED_HEADER, cannedKey, CEILING_SERVER_OPTIONS, parseCeilingServerArgs, runMain, serveUntilStopped } from './bare-server.js'

async function main(): Promise<void> {
  const args = parseCeilingServerArgs(process.argv.slice(2))
  // The one key a range workload reads, with a value of the size the client checks for.
  const range: RangeResponse = {
    header: CANNED_HEADER,
    kvs: [{
      key: cannedKey('r', args.keySize), value: Buffer.alloc(args.valueSize, 0x61),
      createRevision: 2, modRevision: CANNED_HEADER.revision - 1, version: 500_000, lease: 0n,
    }],
    more: false,
    count: 1,
  }
  const put: PutResponse = { header: CANNED_HEADER }
  // Txn only fills the keys the mix workload reads before its window (every txn succeeds); it is not measured.
  const txn = toPbTxnResponse({ header: CANNED_HEADER, succeeded: true, responses: [] })
  // Requests are decoded (the codec does it before the handler runs) and responses encoded on every call,
  // as in etcdlite; only the work between the two is gone.
  const Range: handleUnaryCall<RangeRequest, RangeResponse> = (_call, cb) => cb(null, range)
  const Put: handleUnaryCall<PutRequest, PutResponse> = (_call, cb) => cb(null, put)
  const Txn: handleUnaryCall<unknown, typeof txn> = (_call, cb) => cb(null, txn)
  const server = new grpc.Server(CEILING_SERVER_OPTIONS)
  // DeleteRange and Compact have no handler: grpc-js answers them UNIMPLEMENTED.
  server.addService(kvServiceDefinition(loadEtcdProto().etcdserverpb.KV.service), { Range, Put, Txn })
  await serveUntilStopped(server, args)
}

runMain('rpc-ceiling-server', main)
