// The reflection service's own protos, as @grpc/reflection loads them to serve them (its addToServer()):
// each version's reflection.proto, shipped in the package, with its loader options. Shared by the server,
// which registers the reflection services from their precompiled form, and the generator of that form.
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { Options } from '@grpc/proto-loader'

export type ReflectionVersion = 'v1' | 'v1alpha'

/**
 * @grpc/reflection's PROTO_LOADER_OPTS (implementations/common/constants.js): camelCase fields, bytes as
 * arrays. What its handlers read and write; test/unit/grpc/precompiled.test.ts compares the two.
 */
export const REFLECTION_LOADER_OPTIONS: Options = {
  longs: String,
  enums: String,
  bytes: Array,
  defaults: true,
  oneofs: true,
}

/** @grpc/reflection's proto directory (next to its build/src). */
export function reflectionProtoDir(): string {
  const main = createRequire(import.meta.url).resolve('@grpc/reflection')
  return join(dirname(main), '..', 'proto')
}

/** The absolute path of one version's reflection.proto, as @grpc/reflection loads it. */
export function reflectionProtoFile(version: ReflectionVersion): string {
  return join(reflectionProtoDir(), 'grpc', 'reflection', version, 'reflection.proto')
}
