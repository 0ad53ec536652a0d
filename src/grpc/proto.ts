// The one place the .proto files are loaded. gen:proto (package.json) passes the generator the same
// options as LOADER_OPTIONS, so the committed types in generated/ describe exactly what this returns.
import { fileURLToPath } from 'node:url'
import * as grpc from '@grpc/grpc-js'
import * as protoLoader from '@grpc/proto-loader'
import type { ProtoGrpcType as RpcProto } from './generated/rpc.js'
import type { ProtoGrpcType as LockProto } from './generated/v3lock.js'
import type { ProtoGrpcType as ElectionProto } from './generated/v3election.js'

export const PROTO_DIR = fileURLToPath(new URL('../../../proto', import.meta.url))

export const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [PROTO_DIR],
}

export type EtcdProto = RpcProto & LockProto & ElectionProto

let cached: EtcdProto | undefined

/** Load (once) every etcd v3 service and message. */
export function loadEtcdProto(): EtcdProto {
  if (cached === undefined) {
    const def = protoLoader.loadSync(['etcdserverpb/rpc.proto', 'v3lockpb/v3lock.proto', 'v3electionpb/v3election.proto'], LOADER_OPTIONS)
    cached = grpc.loadPackageDefinition(def) as unknown as EtcdProto
  }
  return cached
}
