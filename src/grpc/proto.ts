// The one place the served protos are loaded: from their precompiled form (precompiled-protos.ts, generated
// from proto/ with LOADER_OPTIONS by `npm run gen:descriptors`), which is what loadSync() of the .proto files
// gives without parsing them. gen:proto passes the type generator the same options, so the committed types
// in generated/ describe exactly what this returns.
import { createRequire } from 'node:module'
import * as grpc from '@grpc/grpc-js'
import type * as protoLoader from '@grpc/proto-loader'
import type { ProtoGrpcType as RpcProto } from './generated/rpc.js'
import type { ProtoGrpcType as LockProto } from './generated/v3lock.js'
import type { ProtoGrpcType as ElectionProto } from './generated/v3election.js'
import { LOADER_OPTIONS } from './proto-files.js'
import { packageDefinitionOf } from './precompiled.js'
import { ETCD_PROTOS } from './precompiled-protos.js'
import { reflectionProtoDir } from './reflection-protos.js'

export { LOADER_OPTIONS, PROTO_DIR, PROTO_FILES } from './proto-files.js'

/** The standard gRPC health service (proto/grpc/health/v1/health.proto); too small to need generated types. */
export interface HealthProto {
  readonly grpc: { readonly health: { readonly v1: { readonly Health: grpc.ServiceClientConstructor } } }
}

export type EtcdProto = RpcProto & LockProto & ElectionProto & HealthProto

let cachedDef: protoLoader.PackageDefinition | undefined
let cached: EtcdProto | undefined
let cachedReflectionDef: protoLoader.PackageDefinition | undefined

/** Load (once) the package definition of every served service and message (what reflection describes). */
export function loadEtcdPackageDefinition(): protoLoader.PackageDefinition {
  cachedDef ??= packageDefinitionOf(ETCD_PROTOS, LOADER_OPTIONS)
  return cachedDef
}

/** Load (once) every etcd v3 service and message, and the health service. */
export function loadEtcdProto(): EtcdProto {
  cached ??= grpc.loadPackageDefinition(loadEtcdPackageDefinition()) as unknown as EtcdProto
  return cached
}

/**
 * The reflection services' own protos (grpc.reflection.v1 and v1alpha, shipped with @grpc/reflection), so
 * that reflection lists and describes itself, as grpc-go's does. Parsed on the first reflection request.
 */
export function loadReflectionPackageDefinition(): protoLoader.PackageDefinition {
  if (cachedReflectionDef === undefined) {
    const loader = createRequire(import.meta.url)('@grpc/proto-loader') as typeof protoLoader
    cachedReflectionDef = loader.loadSync(
      ['grpc/reflection/v1/reflection.proto', 'grpc/reflection/v1alpha/reflection.proto'],
      { ...LOADER_OPTIONS, includeDirs: [reflectionProtoDir()] },
    )
  }
  return cachedReflectionDef
}
