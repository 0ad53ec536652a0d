// jsonpb's Marshal as etcd's gateway configures it (grpc-gateway's JSONPb{OrigName: true}, EmitDefaults
// off), driven by the protobufjs types (proto-root.ts) rather than hand code per message: fields in
// declaration order under their .proto names; int64 and uint64 as decimal strings, 32-bit integers as
// numbers; bytes in standard base64; enums by name (a number the enum does not name, as a number);
// strings as encoding/json writes them (HTML-safe escapes). Zero values are left out, and so are unset
// messages and empty lists, so an empty range answers {"header":{...}} only; a member of a oneof is
// written whenever it is set, even with its zero value, as jsonpb does.
import protobuf from 'protobufjs'
import { goJsonMarshal } from '../pkg/go-json.js'

/** An int64 as protobufjs decodes it: a Long when the long package is present, else a number. */
interface LongLike {
  toString(): string
}

function isZero(field: protobuf.Field, v: unknown): boolean {
  if (v === undefined || v === null) return true
  if (field.resolvedType instanceof protobuf.Type) return false
  if (typeof v === 'number') return v === 0
  if (typeof v === 'boolean') return !v
  if (typeof v === 'string') return v === ''
  // An absent bytes field reads as protobufjs's shared empty array, not a Buffer.
  if (v instanceof Uint8Array || Array.isArray(v)) return v.length === 0
  return (v as LongLike).toString() === '0'
}

/** A JS string as encoding/json writes it. */
export function jsonString(s: string): string {
  return goJsonMarshal(Buffer.from(s, 'utf8').toString('latin1'))
}

function scalar(field: protobuf.Field, v: unknown): string {
  const enumType = field.resolvedType
  if (enumType instanceof protobuf.Enum) {
    const n = v as number
    const name = enumType.valuesById[n]
    return name === undefined ? String(n) : jsonString(name)
  }
  switch (field.type) {
    case 'int64': case 'uint64': case 'sint64': case 'fixed64': case 'sfixed64':
      return `"${(v as LongLike).toString()}"`
    case 'bytes':
      return `"${Buffer.from(v as Uint8Array).toString('base64')}"`
    case 'string':
      return jsonString(v as string)
    case 'bool':
      return v === true ? 'true' : 'false'
    default:
      return String(v)
  }
}

function value(field: protobuf.Field, v: unknown): string {
  const t = field.resolvedType
  return t instanceof protobuf.Type ? marshalMessage(t, v as protobuf.Message) : scalar(field, v)
}

/** The jsonpb text of a decoded message of type `type`. */
export function marshalMessage(type: protobuf.Type, m: protobuf.Message): string {
  const parts: string[] = []
  const own = m as unknown as Record<string, unknown>
  for (const field of type.fieldsArray) {
    const v = own[field.name]
    if (field.repeated) {
      if (!Array.isArray(v) || v.length === 0) continue
      parts.push(`${jsonString(field.name)}:[${(v as unknown[]).map((x) => value(field, x)).join(',')}]`)
      continue
    }
    if (field.partOf !== null) {
      if (!Object.hasOwn(own, field.name) || v === null || v === undefined) continue
    } else if (isZero(field, v)) {
      continue
    }
    parts.push(`${jsonString(field.name)}:${value(field, v)}`)
  }
  return `{${parts.join(',')}}`
}
