// jsonpb's Unmarshal as grpc-gateway v1 runs it on a request body (AllowUnknownFields), driven by the
// protobufjs types (proto-root.ts): a field is found under its .proto name or its lowerCamel JSON name
// (the latter winning when both are given), unknown keys are ignored, null leaves a field unset, int64 and
// the other integers take a number or a quoted number, bytes take standard base64, enums a name or a
// number. Every refusal carries the text Go gives (encoding/json's "json: cannot unmarshal string into Go
// value of type int64", jsonpb's `unknown value "X" for enum ...`, base64's "illegal base64 data at input
// byte N"). The result is a plain object for protobufjs's Type.fromObject: int64s as decimal strings,
// bytes as Buffers, enums as numbers.
import { goQuote } from '../pkg/go-quote.js'
import protobuf from 'protobufjs'
import { JsonSyntaxError, parseWhole, type JsonNode } from './json-decoder.js'
import { goBase64Decode } from './go-base64.js'
import { goTypeName } from './proto-root.js'
import { errorMessage } from '../pkg/as-error.js'

/** A body jsonpb refuses (the gateway answers it InvalidArgument with this text). */
export class JsonpbError extends Error {
  override name = 'JsonpbError'
}

/** What encoding/json calls a JSON value in its type errors. */
function kindOf(n: JsonNode): string {
  switch (n.t) {
    case 'object': return 'object'
    case 'array': return 'array'
    case 'string': return 'string'
    case 'number': return 'number'
    case 'bool': return 'bool'
    case 'null': return 'null'
  }
}

const typeError = (what: string, goType: string): JsonpbError => new JsonpbError(`json: cannot unmarshal ${what} into Go value of type ${goType}`)

/** protoc's default json_name: lowerCamel of the field name. */
export function jsonName(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase())
}

interface IntKind {
  readonly goType: string
  readonly min: bigint
  readonly max: bigint
}

const INT_KINDS: Readonly<Record<string, IntKind>> = {
  int64: { goType: 'int64', min: -(2n ** 63n), max: 2n ** 63n - 1n },
  sint64: { goType: 'int64', min: -(2n ** 63n), max: 2n ** 63n - 1n },
  sfixed64: { goType: 'int64', min: -(2n ** 63n), max: 2n ** 63n - 1n },
  uint64: { goType: 'uint64', min: 0n, max: 2n ** 64n - 1n },
  fixed64: { goType: 'uint64', min: 0n, max: 2n ** 64n - 1n },
  int32: { goType: 'int32', min: -(2n ** 31n), max: 2n ** 31n - 1n },
  sint32: { goType: 'int32', min: -(2n ** 31n), max: 2n ** 31n - 1n },
  sfixed32: { goType: 'int32', min: -(2n ** 31n), max: 2n ** 31n - 1n },
  uint32: { goType: 'uint32', min: 0n, max: 2n ** 32n - 1n },
  fixed32: { goType: 'uint32', min: 0n, max: 2n ** 32n - 1n },
}

/** strconv.ParseInt/ParseUint of a JSON number literal, as encoding/json converts it. */
function parseInteger(raw: string, kind: IntKind, goType: string): bigint {
  if (!/^-?\d+$/.test(raw) || (kind.min === 0n && raw.startsWith('-') && raw !== '-0')) throw typeError(`number ${raw}`, goType)
  const v = BigInt(raw)
  if (v < kind.min || v > kind.max) throw typeError(`number ${raw}`, goType)
  return v
}

/** jsonpb's reading of an integer or enum number: a quoted one loses its quotes and is read again. */
function integer(n: JsonNode, kind: IntKind, goType: string): bigint | undefined {
  let node = n
  if (node.t === 'string') {
    try {
      node = parseWhole(node.raw)
    } catch (err) {
      if (err instanceof JsonSyntaxError) throw new JsonpbError(err.message)
      throw err
    }
  }
  if (node.t === 'null') return undefined
  if (node.t !== 'number') throw typeError(kindOf(node), goType)
  return parseInteger(node.raw, kind, goType)
}

const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

function bytesValue(n: JsonNode): Buffer | undefined {
  if (n.t === 'null') return undefined
  if (n.t !== 'string') throw typeError(kindOf(n), '[]uint8')
  if (CANONICAL_BASE64.test(n.s)) return Buffer.from(n.s, 'base64')
  try {
    return goBase64Decode(Buffer.from(n.s, 'utf8'))
  } catch (err) {
    throw new JsonpbError(errorMessage(err))
  }
}

function enumValue(n: JsonNode, e: protobuf.Enum): number | undefined {
  const goType = goTypeName(e)
  if (n.t === 'string') {
    const v = e.values[n.raw]
    if (v === undefined) throw new JsonpbError(`unknown value ${goQuote(n.raw)} for enum ${goType}`)
    return v
  }
  const v = integer(n, INT_KINDS['int32'] as IntKind, goType)
  return v === undefined ? undefined : Number(v)
}

/** One value of a field (an element, for a repeated one); undefined leaves it unset. */
function fieldValue(field: protobuf.Field, n: JsonNode): unknown {
  const t = field.resolvedType
  if (t instanceof protobuf.Type) return n.t === 'null' ? undefined : unmarshalMessage(t, n)
  if (t instanceof protobuf.Enum) return enumValue(n, t)
  const int = INT_KINDS[field.type]
  if (int !== undefined) {
    const v = integer(n, int, int.goType)
    return v === undefined ? undefined : int.goType.endsWith('64') ? v.toString() : Number(v)
  }
  switch (field.type) {
    case 'bytes': return bytesValue(n)
    case 'string':
      if (n.t === 'null') return undefined
      if (n.t !== 'string') throw typeError(kindOf(n), 'string')
      return n.s
    case 'bool':
      if (n.t === 'null') return undefined
      if (n.t !== 'bool') throw typeError(kindOf(n), 'bool')
      return n.v
    default:
      throw new JsonpbError(`unsupported field type ${field.type}`)
  }
}

/** The zero value a oneof member is set to when its JSON value is null (jsonpb sets the member first). */
function zeroOf(field: protobuf.Field): unknown {
  if (field.resolvedType instanceof protobuf.Type) return undefined
  if (field.resolvedType instanceof protobuf.Enum) return 0
  if (INT_KINDS[field.type] !== undefined) return field.type.endsWith('64') ? '0' : 0
  if (field.type === 'bytes') return Buffer.alloc(0)
  if (field.type === 'string') return ''
  return false
}

/** The object for Type.fromObject that the JSON value `n` unmarshals to as a message of type `type`. */
export function unmarshalMessage(type: protobuf.Type, n: JsonNode): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  if (n.t === 'null') return out
  if (n.t !== 'object') throw typeError(kindOf(n), 'map[string]json.RawMessage')
  const take = (field: protobuf.Field): JsonNode | undefined => n.fields.get(jsonName(field.name)) ?? n.fields.get(field.name)
  // jsonpb sets the plain fields first, in declaration order, then the oneofs.
  for (const field of type.fieldsArray) {
    if (field.partOf !== null) continue
    const raw = take(field)
    if (raw === undefined) continue
    if (field.repeated) {
      if (raw.t === 'null') continue
      if (raw.t !== 'array') throw typeError(kindOf(raw), '[]json.RawMessage')
      const items = raw.items.map((x) => fieldValue(field, x) ?? zeroOf(field) ?? {})
      if (items.length > 0) out[field.name] = items
      continue
    }
    const v = fieldValue(field, raw)
    if (v !== undefined) out[field.name] = v
  }
  for (const field of type.fieldsArray) {
    if (field.partOf === null) continue
    const raw = take(field)
    if (raw === undefined) continue
    for (const other of field.partOf.fieldsArray) delete out[other.name]
    const v = fieldValue(field, raw) ?? zeroOf(field)
    if (v !== undefined) out[field.name] = v
  }
  return out
}
