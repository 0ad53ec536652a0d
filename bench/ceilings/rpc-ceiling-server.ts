// The RPC ceiling: a bare @grpc/grpc-js server with etcdlite's KV service definition (the same hand-written
// codec for Range and Put, src/grpc/kv.ts) and etcdlite's server options, answering every Range and Put at
// once with a canned response (and Txn, which only fills keys before a window, with a canned success): no
// store, no disk, no auth, no metrics. What Node and grpc-js can do at most
// for the same RPCs; bench/client.ts runs against it unchanged.
//
// With --commit-dir DIR (the commit ceiling), each Put also commits the record etcdlite writes for a put
// (storage-ceiling.ts's) to a LevelDB in DIR through etcdlite's backend (src/backend/level-backend.ts: its
// group commit), synced with --commit-sync, and is answered once its batch is written: what a durable put
// costs at least, with no index, no MVCC, no watch.
//
//   node build/bench/ceilings/rpc-ceiling-server.js [--key-size 16] [--value-size 64] [--commit-dir DIR [--commit-sync]]
//   # prints `ready <port>`
import * as grpc from '@grpc/grpc-js'
import type { handleUnaryCall } from '@grpc/grpc-js'
import { ClassicLevel } from 'classic-level'
import type { PutRequest, PutResponse, RangeRequest, RangeResponse, TxnResponse } from '../../src/etcdserver/types.js'
import { kvServiceDefinition } from '../../src/grpc/kv.js'
import { loadEtcdProto } from '../../src/grpc/proto.js'
import { encodeKeyValue } from '../../src/mvcc/kv-codec.js'
import { LevelBackend } from '../../src/backend/level-backend.js'
import { revToBytes } from '../../src/mvcc/revision.js'
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
  const txn: TxnResponse = { header: CANNED_HEADER, succeeded: true, responses: [] }
  // Requests are decoded (the codec does it before the handler runs) and responses encoded on every call,
  // as in etcdlite; only the work between the two is gone.
  const Range: handleUnaryCall<RangeRequest, RangeResponse> = (_call, cb) => cb(null, range)
  // The commit ceiling writes through etcdlite's own backend, so its group commit is etcdlite's.
  const backend = args.commitDir === undefined
    ? undefined
    : await LevelBackend.open(new ClassicLevel<Uint8Array, Uint8Array>(args.commitDir, { keyEncoding: 'view', valueEncoding: 'view' }), { syncWrites: args.commitSync })
  // Revision 1 is the empty store's; every committed put takes the next one.
  let rev = 1
  const failed = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)))
  const Put: handleUnaryCall<PutRequest, PutResponse> = backend === undefined
    ? (_call, cb) => cb(null, put)
    : (call, cb) => {
      rev++
      const { key, value } = call.request
      // No index: every put is its key's first version (the record's size differs by a byte or two at most).
      const record = encodeKeyValue({ key, value: value ?? new Uint8Array(), createRevision: rev, modRevision: rev, version: 1, lease: 0n })
      try {
        backend.put('key', revToBytes({ main: rev, sub: 0 }), record)
      } catch (err) {
        cb(failed(err))
        return
      }
      backend.commit().then(() => cb(null, put), (err: unknown) => cb(failed(err)))
    }
  const Txn: handleUnaryCall<unknown, typeof txn> = (_call, cb) => cb(null, txn)
  const server = new grpc.Server(CEILING_SERVER_OPTIONS)
  // DeleteRange and Compact have no handler: grpc-js answers them UNIMPLEMENTED.
  server.addService(kvServiceDefinition(loadEtcdProto().etcdserverpb.KV.service, { maxTxnOps: 128 }), { Range, Put, Txn })
  await serveUntilStopped(server, args)
  await backend?.close()
}

runMain('rpc-ceiling-server', main)
