// A proto-loader package definition rebuilt from precompiled data (precompiled-protos.ts, written by
// `npm run gen:descriptors`), so that a start parses no .proto file and loads neither proto-loader nor
// protobufjs. The data is what proto-loader's loadSync() returns, minus its functions: every message's and
// enum's descriptor object, the encoded file descriptors they share, and every method's attributes.
//
// The (de)serializers are proto-loader's (createSerializer/createDeserializer in its index.js), over the
// same protobufjs types: built from the loaded root's protobufjs JSON on their first call, when protobufjs
// is loaded. Most calls never get there: the hot methods carry their own codecs (src/wire/).
// test/unit/grpc/precompiled.test.ts checks the result against loadSync() of the .proto files, codecs too.
import { createRequire } from 'node:module'
import type { MessageTypeDefinition, MethodDefinition, MethodOptions, Options, PackageDefinition, ServiceDefinition } from '@grpc/proto-loader'
import type protobuf from 'protobufjs'

/** A method of a service, as proto-loader describes it; its types are named by the entries that define them. */
export interface PrecompiledMethod {
  readonly name: string
  readonly path: string
  readonly requestStream: boolean
  readonly responseStream: boolean
  readonly originalName: string
  /** Fully qualified, without the leading dot: the key of a message entry. */
  readonly requestType: string
  readonly responseType: string
  readonly options: MethodOptions
}

/** One entry of the package definition, in proto-loader's order. */
export type PrecompiledEntry =
  | { readonly kind: 'message'; readonly name: string; readonly type: object }
  | { readonly kind: 'enum'; readonly name: string; readonly type: object }
  | { readonly kind: 'service'; readonly name: string; readonly methods: readonly PrecompiledMethod[] }

/** What loadSync() returns for a set of .proto files, as data. */
export interface PrecompiledPackage {
  /** The FileDescriptorProtos every entry carries, base64. */
  readonly files: readonly string[]
  /** The loaded protobufjs root as JSON (Root.toJSON()), for the codecs. */
  readonly root: protobuf.INamespace
  readonly entries: readonly PrecompiledEntry[]
}

type Protobuf = typeof protobuf

const requireCjs = createRequire(import.meta.url)
let protobufLight: Protobuf | undefined

/** protobufjs without its .proto parser: all that Root.fromJSON and the codecs need. */
function loadProtobuf(): Protobuf {
  protobufLight ??= requireCjs('protobufjs/light.js') as Protobuf
  return protobufLight
}

/** proto-loader's createSerializer. */
function serializer(cls: protobuf.Type): (arg: object) => Buffer {
  return function serialize(arg: object): Buffer {
    if (Array.isArray(arg)) {
      throw new Error(`Failed to serialize message: expected object with ${cls.name} structure, got array instead`)
    }
    const message = cls.fromObject(arg)
    return cls.encode(message).finish() as Buffer
  }
}

/** proto-loader's createDeserializer. */
function deserializer(cls: protobuf.Type, options: Options): (buf: Buffer) => object {
  return function deserialize(argBuf: Buffer): object {
    return cls.toObject(cls.decode(argBuf), options)
  }
}

/**
 * The package definition loadSync(files, options) gives, from `pkg` precompiled from those files with the
 * same parse options (keepCase). `options`' conversion options (longs, enums, bytes, defaults, oneofs...)
 * apply to what the deserializers return, as with loadSync().
 */
export function packageDefinitionOf(pkg: PrecompiledPackage, options: Options): PackageDefinition {
  const fileDescriptorProtos = pkg.files.map((b64) => Buffer.from(b64, 'base64'))
  let root: protobuf.Root | undefined
  const lookup = (name: string): protobuf.Type => {
    if (root === undefined) {
      root = loadProtobuf().Root.fromJSON(pkg.root)
      root.resolveAll()
    }
    return root.lookupType(name)
  }
  const messages = new Map<string, MessageTypeDefinition<object, object>>()
  for (const e of pkg.entries) {
    if (e.kind !== 'message') continue
    const name = e.name
    let ser: ((arg: object) => Buffer) | undefined
    let de: ((buf: Buffer) => object) | undefined
    messages.set(name, {
      format: 'Protocol Buffer 3 DescriptorProto',
      type: e.type,
      fileDescriptorProtos,
      serialize: (arg) => (ser ??= serializer(lookup(name)))(arg),
      deserialize: (buf) => (de ??= deserializer(lookup(name), options))(buf),
    })
  }
  const message = (name: string): MessageTypeDefinition<object, object> => {
    const m = messages.get(name)
    if (m === undefined) throw new Error(`precompiled protos: no message ${name}`)
    return m
  }
  // In proto-loader's order: a service comes before the messages its file declares after it.
  const def: PackageDefinition = {}
  for (const e of pkg.entries) {
    if (e.kind === 'enum') {
      def[e.name] = { format: 'Protocol Buffer 3 EnumDescriptorProto', type: e.type, fileDescriptorProtos }
    } else if (e.kind === 'message') {
      def[e.name] = message(e.name)
    } else {
      const service: ServiceDefinition = {}
      for (const m of e.methods) {
        const req = message(m.requestType)
        const res = message(m.responseType)
        const method: MethodDefinition<object, object> = {
          path: m.path,
          requestStream: m.requestStream,
          responseStream: m.responseStream,
          requestSerialize: req.serialize,
          requestDeserialize: req.deserialize,
          responseSerialize: res.serialize,
          responseDeserialize: res.deserialize,
          originalName: m.originalName,
          requestType: req,
          responseType: res,
          options: m.options,
        }
        service[m.name] = method
      }
      def[e.name] = service
    }
  }
  return def
}
