// The one place the .proto files are loaded. gen:proto (package.json) passes the generator the same
// options as LOADER_OPTIONS, so the committed types in generated/ describe exactly what this returns.
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
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

/** The standard gRPC health service (proto/grpc/health/v1/health.proto); too small to need generated types. */
export interface HealthProto {
  readonly grpc: { readonly health: { readonly v1: { readonly Health: grpc.ServiceClientConstructor } } }
}

export type EtcdProto = RpcProto & LockProto & ElectionProto & HealthProto

/** Every .proto file the server serves, relative to PROTO_DIR. */
export const PROTO_FILES = [
  'etcdserverpb/rpc.proto', 'v3lockpb/v3lock.proto', 'v3electionpb/v3election.proto', 'grpc/health/v1/health.proto',
] as const

let cachedDef: protoLoader.PackageDefinition | undefined
let cached: EtcdProto | undefined
let cachedReflectionDef: protoLoader.PackageDefinition | undefined

/** Load (once) the package definition of every served service and message (what reflection describes). */
export function loadEtcdPackageDefinition(): protoLoader.PackageDefinition {
  cachedDef ??= protoLoader.loadSync([...PROTO_FILES], LOADER_OPTIONS)
  return cachedDef
}

/** Load (once) every etcd v3 service and message, and the health service. */
export function loadEtcdProto(): EtcdProto {
  cached ??= grpc.loadPackageDefinition(loadEtcdPackageDefinition()) as unknown as EtcdProto
  return cached
}

/**
 * The reflection services' own protos (grpc.reflection.v1 and v1alpha, shipped with @grpc/reflection), so
 * that reflection lists and describes itself, as grpc-go's does.
 */
export function loadReflectionPackageDefinition(): protoLoader.PackageDefinition {
  if (cachedReflectionDef === undefined) {
    const main = createRequire(import.meta.url).resolve('@grpc/reflection')
    const dir = join(dirname(main), '..', 'proto')
    cachedReflectionDef = protoLoader.loadSync(
      ['grpc/reflection/v1/reflection.proto', 'grpc/reflection/v1alpha/reflection.proto'],
      { ...LOADER_OPTIONS, includeDirs: [dir] },
    )
  }
  return cachedReflectionDef
}
