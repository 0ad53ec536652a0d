// Which .proto files the server serves and how proto-loader reads them. The runtime loader (proto.ts), the
// generator of the precompiled descriptors (scripts/gen-descriptors.ts) and gen:proto (package.json) all
// take them from here, so the three describe the same definitions.
import { join } from 'node:path'
import type { Options } from '@grpc/proto-loader'
import { packageRoot } from '../pkg/package-root.js'

export const PROTO_DIR = join(packageRoot(), 'proto')

export const LOADER_OPTIONS: Options = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [PROTO_DIR],
}

/** Every .proto file the server serves, relative to PROTO_DIR. */
export const PROTO_FILES = [
  'etcdserverpb/rpc.proto', 'v3lockpb/v3lock.proto', 'v3electionpb/v3election.proto', 'grpc/health/v1/health.proto',
] as const
