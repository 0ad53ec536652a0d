// The served .proto files as protobufjs reflection types, for the gateway's JSON codec (jsonpb-marshal.ts,
// jsonpb-unmarshal.ts): field order, oneofs, enums and the wire codec of every message. The same files
// grpc/proto.ts hands to proto-loader; protobufjs is what proto-loader itself builds on.
import { isAbsolute, join } from 'node:path'
import protobuf from 'protobufjs'
import { PROTO_DIR, PROTO_FILES } from '../grpc/proto.js'

let cached: protobuf.Root | undefined

/** Load (once) every served message, resolved. */
export function gatewayRoot(): protobuf.Root {
  if (cached === undefined) {
    const root = new protobuf.Root()
    root.resolvePath = (_origin, target) => (isAbsolute(target) ? target : join(PROTO_DIR, target))
    root.loadSync([...PROTO_FILES], { keepCase: true })
    root.resolveAll()
    cached = root
  }
  return cached
}

/**
 * The Go name gogoproto gives a message or enum type, as jsonpb's and encoding/json's errors spell it:
 * the package, then the nested names joined by "_" (etcdserverpb.RangeRequest_SortOrder).
 */
export function goTypeName(t: protobuf.ReflectionObject): string {
  const names: string[] = []
  let o: protobuf.ReflectionObject | null = t
  while (o !== null && !(o instanceof protobuf.Namespace && !(o instanceof protobuf.Type))) {
    names.unshift(o.name)
    o = o.parent
  }
  const pkg = o === null || o.parent === null ? '' : o.fullName.replace(/^\./, '')
  return `${pkg}.${names.join('_')}`
}
