// gRPC server reflection (grpc.reflection.v1 and v1alpha, from @grpc/reflection) over every served proto and
// the reflection protos themselves, so `grpcurl list`, `describe` and calls with JSON bodies work without
// .proto files.
//
// proto-loader hands reflection one FileDescriptorProto per package (etcdserverpb.proto, mvccpb.proto, ...),
// with relative type names and an empty import list. Clients link descriptors through the import list only
// (grpcurl: "cannot resolve type mvccpb.KeyValue"; grpc-node issue #3034), so withDependencies() works out
// which file each type reference lands in and adds those files as imports (field 3, appended: protobuf
// merges repeated fields) before the descriptors reach ReflectionService.
//
// Building the reflection index decodes every descriptor (the larger part of a start, were it done then), so
// addReflection() registers both services from their precompiled definitions and the first reflection call
// builds it.
import { createRequire } from 'node:module'
import type * as grpc from '@grpc/grpc-js'
import type * as reflectionModule from '@grpc/reflection'
import type { ReflectionService } from '@grpc/reflection'
import type { AnyDefinition, EnumTypeDefinition, MessageTypeDefinition, PackageDefinition } from '@grpc/proto-loader'
import { Reader, WIRE_LEN } from '../wire/protobuf.js'
import { loadEtcdPackageDefinition, loadReflectionPackageDefinition } from './proto.js'
import { packageDefinitionOf, type PrecompiledPackage } from './precompiled.js'
import { REFLECTION_V1_PROTOS, REFLECTION_V1ALPHA_PROTOS } from './precompiled-protos.js'
import { REFLECTION_LOADER_OPTIONS, type ReflectionVersion } from './reflection-protos.js'

/** FileDescriptorProto.dependency (repeated string, field 3). */
const FILE_DEPENDENCY = 3

/** A reference to a type, as written in a descriptor, and the scope it is resolved from. */
interface TypeRef {
  readonly name: string
  /** Fully qualified scope without a leading dot ("etcdserverpb.RangeResponse"). */
  readonly scope: string
}

interface FileFacts {
  readonly name: string
  readonly pkg: string
  readonly deps: readonly string[]
  /** Fully qualified names (no leading dot) of the messages, enums and services the file declares. */
  readonly declares: readonly string[]
  readonly refs: readonly TypeRef[]
}

const utf8 = new TextDecoder()
const join = (scope: string, name: string): string => (scope === '' ? name : `${scope}.${name}`)

/** Visit the length-delimited fields of a message: (field number, bytes). Other fields are skipped. */
function eachLen(buf: Uint8Array, fn: (field: number, b: Uint8Array) => void): void {
  const r = new Reader(buf)
  while (!r.done) {
    const tag = r.varint()
    const wt = tag & 7
    if (wt === WIRE_LEN) fn(Math.floor(tag / 8), r.bytes())
    else r.skip(wt)
  }
}

/** The first string in `field` of a message ('' if absent). */
function stringField(buf: Uint8Array, field: number): string {
  let out = ''
  eachLen(buf, (f, b) => {
    if (f === field && out === '') out = utf8.decode(b)
  })
  return out
}

/** FieldDescriptorProto: type_name (6) and extendee (2) are references. */
function fieldRefs(b: Uint8Array, scope: string, refs: TypeRef[]): void {
  eachLen(b, (f, v) => {
    if (f === 6 || f === 2) refs.push({ name: utf8.decode(v), scope })
  })
}

/** DescriptorProto: name (1), field (2), nested_type (3), enum_type (4), extension (6). */
function scanMessage(b: Uint8Array, scope: string, declares: string[], refs: TypeRef[]): void {
  const full = join(scope, stringField(b, 1))
  declares.push(full)
  eachLen(b, (f, v) => {
    if (f === 2 || f === 6) fieldRefs(v, full, refs)
    else if (f === 3) scanMessage(v, full, declares, refs)
    else if (f === 4) declares.push(join(full, stringField(v, 1)))
  })
}

/** FileDescriptorProto: name (1), package (2), dependency (3), message_type (4), enum_type (5), service (6), extension (7). */
function scanFile(buf: Uint8Array): FileFacts {
  const pkg = stringField(buf, 2)
  const deps: string[] = []
  const declares: string[] = []
  const refs: TypeRef[] = []
  eachLen(buf, (f, v) => {
    if (f === FILE_DEPENDENCY) deps.push(utf8.decode(v))
    else if (f === 4) scanMessage(v, pkg, declares, refs)
    else if (f === 5) declares.push(join(pkg, stringField(v, 1)))
    else if (f === 7) fieldRefs(v, pkg, refs)
    else if (f === 6) {
      const service = join(pkg, stringField(v, 1))
      declares.push(service)
      // MethodDescriptorProto (field 2 of the service): input_type (2), output_type (3).
      eachLen(v, (mf, m) => {
        if (mf === 2) eachLen(m, (tf, t) => {
          if (tf === 2 || tf === 3) refs.push({ name: utf8.decode(t), scope: service })
        })
      })
    }
  })
  return { name: stringField(buf, 1), pkg, deps, declares, refs }
}

/** Resolve a type name as protobuf does: ".a.B" is absolute, "a.B" is looked up from the innermost scope out. */
function resolve(ref: TypeRef, fileOf: ReadonlyMap<string, string>): string | undefined {
  if (ref.name.startsWith('.')) return fileOf.get(ref.name.slice(1))
  for (let scope = ref.scope; ; scope = scope.slice(0, Math.max(0, scope.lastIndexOf('.')))) {
    const file = fileOf.get(join(scope, ref.name))
    if (file !== undefined || scope === '') return file
  }
}

function lenField(field: number, s: string): Uint8Array {
  const b = Buffer.from(s, 'utf8')
  const len: number[] = []
  for (let n = b.length; ; n = Math.floor(n / 128)) {
    if (n < 128) {
      len.push(n)
      break
    }
    len.push((n % 128) | 128)
  }
  return Buffer.concat([Buffer.from([(field << 3) | WIRE_LEN, ...len]), b])
}

/** A message or enum (they carry the file descriptors); services are maps of methods. */
function isTypeDefinition(v: AnyDefinition): v is MessageTypeDefinition<object, object> | EnumTypeDefinition {
  return typeof (v as { readonly format?: unknown }).format === 'string'
}

/**
 * The package definition with each file descriptor's import list completed: every other file that declares
 * a type it references. Definitions are shared, never modified.
 */
export function withDependencies(def: PackageDefinition): PackageDefinition {
  const sets = new Set<Buffer[]>()
  for (const v of Object.values(def)) if (isTypeDefinition(v)) sets.add(v.fileDescriptorProtos)
  const facts = new Map<Buffer, FileFacts>()
  const fileOf = new Map<string, string>()
  for (const set of sets) {
    for (const buf of set) {
      const f = scanFile(buf)
      facts.set(buf, f)
      for (const d of f.declares) fileOf.set(d, f.name)
    }
  }
  const fixed = new Map<Buffer[], Buffer[]>()
  for (const set of sets) {
    fixed.set(set, set.map((buf) => {
      const f = facts.get(buf)
      if (f === undefined) return buf
      const missing = new Set<string>()
      for (const ref of f.refs) {
        const file = resolve(ref, fileOf)
        if (file !== undefined && file !== f.name && !f.deps.includes(file)) missing.add(file)
      }
      return missing.size === 0 ? buf : Buffer.concat([buf, ...[...missing].sort().map((d) => lenField(FILE_DEPENDENCY, d))])
    }))
  }
  const out: PackageDefinition = {}
  for (const [k, v] of Object.entries(def)) {
    const set = isTypeDefinition(v) ? fixed.get(v.fileDescriptorProtos) : undefined
    out[k] = isTypeDefinition(v) && set !== undefined ? { ...v, fileDescriptorProtos: set } : v
  }
  return out
}

let cached: ReflectionService | undefined

/** The reflection service over every served proto and its own (built once: it indexes every descriptor). */
export function reflectionService(): ReflectionService {
  if (cached === undefined) {
    const { ReflectionService: Service } = createRequire(import.meta.url)('@grpc/reflection') as typeof reflectionModule
    cached = new Service(withDependencies({ ...loadEtcdPackageDefinition(), ...loadReflectionPackageDefinition() }))
  }
  return cached
}

type BidiHandler = grpc.handleBidiStreamingCall<object, object>

let handlers: ReadonlyMap<string, BidiHandler> | undefined

/** The handler reflectionService() registers for a method path (its addToServer() reports them). */
function reflectionHandler(path: string): BidiHandler {
  if (handlers === undefined) {
    const found = new Map<string, BidiHandler>()
    reflectionService().addToServer({
      addService: (service, implementation) => {
        for (const [name, m] of Object.entries(service)) {
          const h = implementation[name]
          if (h !== undefined) found.set(m.path, h as BidiHandler)
        }
      },
    })
    handlers = found
  }
  const h = handlers.get(path)
  if (h === undefined) throw new Error(`etcdlite: @grpc/reflection serves no ${path}`)
  return h
}

const SERVICES: readonly (readonly [ReflectionVersion, PrecompiledPackage])[] = [['v1', REFLECTION_V1_PROTOS], ['v1alpha', REFLECTION_V1ALPHA_PROTOS]]

/**
 * Serve gRPC reflection (grpc.reflection.v1 and v1alpha) on `server` as ReflectionService.addToServer() does:
 * the same service definitions (as @grpc/reflection loads them) and the same handlers, which the first call
 * builds, with the index, and every call runs.
 */
export function addReflection(server: Pick<grpc.Server, 'addService'>): void {
  for (const [version, pkg] of SERVICES) {
    const name = `grpc.reflection.${version}.ServerReflection`
    const service = packageDefinitionOf(pkg, REFLECTION_LOADER_OPTIONS)[name] as grpc.ServiceDefinition | undefined
    const info = service?.['ServerReflectionInfo']
    if (service === undefined || info === undefined) throw new Error(`etcdlite: the reflection protos lack ${name}`)
    const path = info.path
    const ServerReflectionInfo: BidiHandler = (call) => reflectionHandler(path)(call)
    server.addService(service, { ServerReflectionInfo })
  }
}
