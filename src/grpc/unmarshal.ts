// etcd's request decoding, for its errors: etcd unmarshals every request with the Unmarshal methods gogoproto
// generated (etcdserverpb/rpc.pb.go and the lock and election packages), and grpc-go answers a failure with
// INTERNAL "grpc: error unmarshalling request: <the Go error>". Our decoders (protobufjs, wire/kv.ts,
// wire/txn.ts) accept other bytes and fail with other texts, so every request of those packages is first
// walked here exactly as gogoproto's code walks it (same checks in the same order, same texts), and a
// failure answers etcd's status before any decoder runs. The walk keeps its own stack: a message may nest
// as deep as its size allows, far deeper than JavaScript recursion goes.
import type { handleUnaryCall, MethodDefinition, ServiceDefinition, UntypedServiceImplementation } from '@grpc/grpc-js'
import type { MessageTypeDefinition, PackageDefinition } from '@grpc/proto-loader'
import { UnmarshalError } from '../pkg/errors.js'
import { loadEtcdPackageDefinition } from './proto.js'
import { toServiceError } from './status.js'


// gogoproto's error values (identical in every generated file of etcd).
const ERR_UNEXPECTED_EOF = 'unexpected EOF'
const ERR_INT_OVERFLOW = 'proto: integer overflow'
const ERR_INVALID_LENGTH = 'proto: negative length found during unmarshaling'

type FieldKind = 'varint' | 'len' | 'message' | 'fixed32' | 'fixed64'

interface FieldSchema {
  /** The Go field name (gogoproto's CamelCase of the proto name), as the errors spell it. */
  readonly goName: string
  readonly kind: FieldKind
  /** A repeated varint or fixed field: gogoproto takes it packed or not. */
  readonly packable: boolean
  /** The full name of a message field's type. */
  readonly typeName?: string
}

/** The message schema an Unmarshal method was generated from. */
export interface MessageSchema {
  /** The Go type name, as the errors spell it (nested types joined by "_"). */
  readonly goName: string
  readonly fields: ReadonlyMap<number, FieldSchema>
}

/** protoc-gen-go's CamelCase, which gogoproto uses for field names. */
export function goCamelCase(s: string): string {
  let out = ''
  let i = 0
  if (s.startsWith('_')) {
    out = 'X'
    i = 1
  }
  const lower = (c: string | undefined): boolean => c !== undefined && c >= 'a' && c <= 'z'
  for (; i < s.length; i++) {
    const c = s[i] as string
    if (c === '_' && lower(s[i + 1])) continue
    if (c >= '0' && c <= '9') {
      out += c
      continue
    }
    out += lower(c) ? c.toUpperCase() : c
    while (lower(s[i + 1])) out += s[++i] as string
  }
  return out
}

const SCALAR_KINDS: Readonly<Record<string, FieldKind>> = {
  TYPE_INT64: 'varint', TYPE_UINT64: 'varint', TYPE_INT32: 'varint', TYPE_UINT32: 'varint', TYPE_BOOL: 'varint',
  TYPE_ENUM: 'varint', TYPE_SINT32: 'varint', TYPE_SINT64: 'varint',
  TYPE_FIXED64: 'fixed64', TYPE_SFIXED64: 'fixed64', TYPE_DOUBLE: 'fixed64',
  TYPE_FIXED32: 'fixed32', TYPE_SFIXED32: 'fixed32', TYPE_FLOAT: 'fixed32',
  TYPE_BYTES: 'len', TYPE_STRING: 'len', TYPE_MESSAGE: 'message',
}

interface DescriptorField {
  readonly name: string
  readonly number: number
  readonly label: string
  readonly type: string
  readonly typeName: string
}

/** The schemas of every message in a package definition, by full name (e.g. "etcdserverpb.TxnRequest"). */
export class Schemas {
  private readonly byName = new Map<string, MessageSchema>()

  constructor(def: PackageDefinition) {
    for (const [fullName, entry] of Object.entries(def)) {
      if (!('format' in entry) || entry.format !== 'Protocol Buffer 3 DescriptorProto') continue
      const pkg = packageOf(def, fullName)
      const fields = new Map<number, FieldSchema>()
      const type = entry.type as { readonly field: readonly DescriptorField[] }
      for (const f of type.field) {
        const kind = SCALAR_KINDS[f.type]
        if (kind === undefined) throw new Error(`${fullName}.${f.name}: unsupported field type ${f.type}`)
        const typeName = kind === 'message' ? resolveType(def, pkg, f.typeName) : undefined
        fields.set(f.number, {
          goName: goCamelCase(f.name),
          kind,
          packable: f.label === 'LABEL_REPEATED' && kind !== 'len' && kind !== 'message',
          ...(typeName === undefined ? {} : { typeName }),
        })
      }
      this.byName.set(fullName, { goName: fullName.slice(pkg.length + 1).replaceAll('.', '_'), fields })
    }
  }

  get(fullName: string): MessageSchema {
    const s = this.byName.get(fullName)
    if (s === undefined) throw new Error(`no message ${fullName}`)
    return s
  }
}

/** The package a full message name belongs to: the longest dotted prefix that is not itself a message. */
function packageOf(def: PackageDefinition, fullName: string): string {
  let pkg = fullName.slice(0, fullName.lastIndexOf('.'))
  while (pkg in def && pkg.includes('.')) pkg = pkg.slice(0, pkg.lastIndexOf('.'))
  return pkg
}

/** proto-loader leaves type names as written in the .proto: relative to the package, or qualified. */
function resolveType(def: PackageDefinition, pkg: string, typeName: string): string {
  const name = typeName.startsWith('.') ? typeName.slice(1) : typeName
  if (`${pkg}.${name}` in def) return `${pkg}.${name}`
  if (name in def) return name
  throw new Error(`unresolved message type ${typeName}`)
}

/**
 * A varint read as Go reads it into a 64-bit integer: up to ten bytes (an eleventh is an overflow), bits
 * beyond 64 dropped. Returns the value as a signed bigint (Go's int), or a number on the common short path.
 */
function goVarint(buf: Uint8Array, pos: number, end: number): { v: bigint | number; pos: number } {
  let n = 0
  for (let i = 0; i < 7; i++) {
    if (pos >= end) throw new UnmarshalError(ERR_UNEXPECTED_EOF)
    const c = buf[pos++] as number
    n += (c & 0x7f) * 2 ** (7 * i)
    if (c < 0x80) return { v: n, pos }
  }
  let big = BigInt(n)
  for (let shift = 49n; ; shift += 7n) {
    if (shift >= 64n) throw new UnmarshalError(ERR_INT_OVERFLOW)
    if (pos >= end) throw new UnmarshalError(ERR_UNEXPECTED_EOF)
    const c = buf[pos++] as number
    big |= BigInt(c & 0x7f) << shift
    if (c < 0x80) return { v: BigInt.asIntN(64, big), pos }
  }
}

/** A length (Go int): negative is ErrInvalidLength; the result may lie past the end (the caller checks). */
function goLength(buf: Uint8Array, pos: number, end: number): { len: number; pos: number } {
  const r = goVarint(buf, pos, end)
  if (r.v < 0) throw new UnmarshalError(ERR_INVALID_LENGTH)
  // Anything beyond a safe integer lies past any buffer: the callers' bound checks see it as such.
  return { len: typeof r.v === 'number' ? r.v : Number(r.v), pos: r.pos }
}

/** gogoproto's skip<File>: the end of the unknown field at `pos`, possibly past `end`. */
function skipField(buf: Uint8Array, pos: number, end: number): number {
  let groups = 0
  for (;;) {
    const tag = goVarint(buf, pos, end)
    pos = tag.pos
    const wireType = Number(BigInt.asUintN(64, BigInt(tag.v)) & 7n)
    switch (wireType) {
      case 0:
        for (let shift = 0; ; shift += 7) {
          if (shift >= 64) throw new UnmarshalError(ERR_INT_OVERFLOW)
          if (pos >= end) throw new UnmarshalError(ERR_UNEXPECTED_EOF)
          if ((buf[pos++] as number) < 0x80) break
        }
        break
      case 1: pos += 8; break
      case 2: {
        const r = goVarint(buf, pos, end)
        // Go adds the length before checking its sign.
        if (r.v < 0) throw new UnmarshalError(ERR_INVALID_LENGTH)
        pos = r.pos + Number(r.v)
        break
      }
      case 3: groups++; break
      // An end group ends the innermost open group (Go does not match its field number); outside any group
      // skip returns at once, but Unmarshal has refused such a tag before calling skip.
      case 4: groups--; break
      case 5: pos += 4; break
      default: throw new UnmarshalError(`proto: illegal wireType ${wireType}`)
    }
    if (groups <= 0) return pos
  }
}

interface Frame {
  readonly schema: MessageSchema
  pos: number
  readonly end: number
}

/**
 * Walk `buf` as a `root` message exactly as gogoproto's Unmarshal does; throws the UnmarshalError it would
 * return. Nested messages are walked with an explicit stack, so any depth is fine.
 */
export function goUnmarshalCheck(schemas: Schemas, root: MessageSchema, buf: Uint8Array): void {
  const stack: Frame[] = [{ schema: root, pos: 0, end: buf.length }]
  for (;;) {
    const f = stack[stack.length - 1]
    if (f === undefined) return
    if (f.pos >= f.end) {
      stack.pop()
      const parent = stack[stack.length - 1]
      if (parent !== undefined) parent.pos = f.end
      continue
    }
    const { schema, end } = f
    const preIndex = f.pos
    const tag = goVarint(buf, f.pos, end)
    let pos = tag.pos
    // Go: wire is a uint64, fieldNum int32(wire >> 3). A short tag (the usual) needs no bigint.
    const short = typeof tag.v === 'number' && tag.v < 2 ** 31
    const wire = short ? tag.v : BigInt.asUintN(64, BigInt(tag.v))
    const fieldNum = typeof wire === 'number' ? Math.floor(wire / 8) : Number(BigInt.asIntN(32, wire >> 3n))
    const wireType = typeof wire === 'number' ? wire & 7 : Number(wire & 7n)
    if (wireType === 4) throw new UnmarshalError(`proto: ${schema.goName}: wiretype end group for non-group`)
    if (fieldNum <= 0) throw new UnmarshalError(`proto: ${schema.goName}: illegal tag ${fieldNum} (wire type ${wire})`)
    const field = schema.fields.get(fieldNum)
    if (field === undefined) {
      const next = skipField(buf, preIndex, end)
      if (next > end) throw new UnmarshalError(ERR_UNEXPECTED_EOF)
      f.pos = next
      continue
    }
    const wrongWireType = (): UnmarshalError => new UnmarshalError(`proto: wrong wireType = ${wireType} for field ${field.goName}`)
    if (field.packable && wireType === 2) {
      const r = goLength(buf, pos, end)
      const postIndex = r.pos + r.len
      if (postIndex > end) throw new UnmarshalError(ERR_UNEXPECTED_EOF)
      pos = r.pos
      while (pos < postIndex) {
        if (field.kind === 'varint') pos = goVarint(buf, pos, end).pos
        else pos += field.kind === 'fixed64' ? 8 : 4
        if (pos > end) throw new UnmarshalError(ERR_UNEXPECTED_EOF)
      }
      f.pos = pos
      continue
    }
    switch (field.kind) {
      case 'varint':
        if (wireType !== 0) throw wrongWireType()
        f.pos = goVarint(buf, pos, end).pos
        break
      case 'fixed64':
      case 'fixed32': {
        if (wireType !== (field.kind === 'fixed64' ? 1 : 5)) throw wrongWireType()
        pos += field.kind === 'fixed64' ? 8 : 4
        if (pos > end) throw new UnmarshalError(ERR_UNEXPECTED_EOF)
        f.pos = pos
        break
      }
      case 'len':
      case 'message': {
        if (wireType !== 2) throw wrongWireType()
        const r = goLength(buf, pos, end)
        const postIndex = r.pos + r.len
        if (postIndex > end) throw new UnmarshalError(ERR_UNEXPECTED_EOF)
        f.pos = postIndex
        if (field.kind === 'message' && field.typeName !== undefined && r.len > 0) {
          f.pos = r.pos
          stack.push({ schema: schemas.get(field.typeName), pos: r.pos, end: postIndex })
        }
        break
      }
    }
  }
}

let cachedSchemas: Schemas | undefined

/** The schemas of every message the server serves (loaded once). */
export function etcdSchemas(): Schemas {
  cachedSchemas ??= new Schemas(loadEtcdPackageDefinition())
  return cachedSchemas
}

/** The packages whose Go code gogoproto generated; the health and reflection services use other Go codecs. */
const GOGO_PACKAGES: ReadonlySet<string> = new Set(['etcdserverpb', 'v3lockpb', 'v3electionpb'])

/** What a deserializer returns for a request etcd would not have unmarshalled: the handler answers it. */
export class RejectedRequest {
  constructor(readonly error: UnmarshalError) {}
}

/** The schema of a method's request, when etcd's Go code for it is gogoproto's. */
function requestSchema(schemas: Schemas, m: MethodDefinition<unknown, unknown>): MessageSchema | undefined {
  const pkg = m.path.slice(1, m.path.indexOf('.'))
  const type = (m as { readonly requestType?: MessageTypeDefinition<object, object> }).requestType?.type as { readonly name?: string } | undefined
  if (!GOGO_PACKAGES.has(pkg) || type?.name === undefined) return undefined
  return schemas.get(`${pkg}.${type.name}`)
}

/**
 * The service with etcd's unmarshalling on every unary method: a request gogoproto would refuse never
 * reaches the method's decoder nor its handler, and is answered INTERNAL "grpc: error unmarshalling
 * request: …" (status.ts) instead of grpc-js's "Error deserializing request". Streaming methods keep
 * grpc-js's answer.
 */
export function withGoUnmarshal(
  def: ServiceDefinition, impl: UntypedServiceImplementation,
): { def: ServiceDefinition; impl: UntypedServiceImplementation } {
  const schemas = etcdSchemas()
  const outDef: Record<string, MethodDefinition<unknown, unknown>> = {}
  const outImpl: UntypedServiceImplementation = { ...impl }
  for (const [name, m] of Object.entries(def) as [string, MethodDefinition<unknown, unknown>][]) {
    const schema = m.requestStream || m.responseStream ? undefined : requestSchema(schemas, m)
    const handler = impl[name]
    if (schema === undefined || handler === undefined) {
      outDef[name] = m
      continue
    }
    const deserialize = m.requestDeserialize
    outDef[name] = {
      ...m,
      requestDeserialize: (b: Buffer): unknown => {
        try {
          goUnmarshalCheck(schemas, schema, b)
        } catch (err) {
          if (err instanceof UnmarshalError) return new RejectedRequest(err)
          throw err
        }
        return deserialize(b)
      },
    }
    const unary = handler as handleUnaryCall<unknown, unknown>
    outImpl[name] = ((call, cb) => {
      if (call.request instanceof RejectedRequest) cb(toServiceError(call.request.error))
      else unary(call, cb)
    }) satisfies handleUnaryCall<unknown, unknown>
  }
  return { def: outDef, impl: outImpl }
}
