// YAML read as etcd reads its --config-file, exactly, because etcd's error texts name what it met: sigs.k8s.io/yaml
// turns the document into JSON (YAML 1.1 scalars: yes/no/on/off are booleans), and Go's encoding/json decodes
// that into typed fields: keys by their json tags (exact first, then ignoring case), null leaves the field
// as it is, integers checked against their Go type's range, and a mismatch reported with Go's text.
import { createRequire } from 'node:module'
import type * as Yaml from 'yaml'
import { VerifyFlagsError } from './errors.js'

/** A JSON value as Go's decoder sees it: numbers keep their literal text. */
export type JsonValue = null | boolean | string | JsonNumber | JsonValue[] | ReadonlyMap<string, JsonValue>

export class JsonNumber {
  constructor(readonly literal: string) {}
}

/** The JSON kind Go names in "cannot unmarshal <kind> into ...". */
export function kindOf(v: JsonValue): string {
  if (typeof v === 'string') return 'string'
  if (typeof v === 'boolean') return 'bool'
  if (v instanceof JsonNumber) return 'number'
  if (Array.isArray(v)) return 'array'
  return 'object'
}

/** Go's json.UnmarshalTypeError as sigs.k8s.io/yaml wraps it. */
export class TypeMismatch extends Error {
  constructor(value: string, struct: string, field: string, goType: string) {
    super(`error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${value} into Go struct field ${struct}.${field} of type ${goType}`)
  }
}

/** YAML's value as the JSON sigs.k8s.io/yaml makes of it. */
function toJson(v: unknown): JsonValue {
  if (v === null || v === undefined) return null
  if (typeof v === 'boolean' || typeof v === 'string') return v
  if (typeof v === 'bigint') {
    // yaml.v2 reads integers beyond int64/uint64 as floats.
    return new JsonNumber(v >= -(2n ** 63n) && v < 2n ** 64n ? v.toString() : String(Number(v)))
  }
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new VerifyFlagsError(`error converting YAML to JSON: json: unsupported value: ${Number.isNaN(v) ? 'NaN' : v > 0 ? '+Inf' : '-Inf'}`)
    return new JsonNumber(String(v))
  }
  if (v instanceof Date) return v.toISOString().replace('.000Z', 'Z')
  if (Array.isArray(v)) return v.map(toJson)
  if (v instanceof Map) {
    const out = new Map<string, JsonValue>()
    for (const [k, val] of v as Map<unknown, unknown>) {
      let key: string
      if (typeof k === 'string') key = k
      else if (typeof k === 'bigint' || typeof k === 'number' || typeof k === 'boolean') key = String(k)
      else throw new VerifyFlagsError(`error converting YAML to JSON: Unsupported map key of type: ${k === null ? '<nil>' : typeof k}`)
      out.set(key, toJson(val))
    }
    return out
  }
  // toJS makes nothing else of a YAML document.
  return null
}

/**
 * The yaml package, loaded on first use: only a start with a config file needs it, and loading its many
 * modules up front costs a plain start file descriptors it may not have (etcdlite must start under
 * `ulimit -n 64`). Its CommonJS build loads synchronously, one file at a time.
 */
let yaml: typeof Yaml | undefined
function loadYaml(): typeof Yaml {
  yaml ??= createRequire(import.meta.url)('yaml') as typeof Yaml
  return yaml
}

/** yaml.Unmarshal into interface{}: the first document, as JSON; "" or an empty document is null. */
export function yamlToJson(text: string): JsonValue {
  const docs = loadYaml().parseAllDocuments(text, { version: '1.1', intAsBigInt: true, uniqueKeys: false, prettyErrors: false })
  const doc = Array.isArray(docs) ? docs[0] : undefined
  if (doc === undefined) return null
  const err = doc.errors[0]
  if (err !== undefined) {
    const line = text.slice(0, err.pos[0]).split('\n').length
    throw new VerifyFlagsError(`error converting YAML to JSON: yaml: line ${line}: ${err.message}`)
  }
  return toJson(doc.toJS({ mapAsMap: true, maxAliasCount: -1 }))
}

/** The Go field types etcd's config file has. */
export type Kind = 'string' | 'bool' | 'uint' | 'uint32' | 'uint64' | 'int' | 'int64' | 'duration' | 'strings'

const GO_TYPE: Record<Kind, string> = {
  string: 'string', bool: 'bool', uint: 'uint', uint32: 'uint32', uint64: 'uint64', int: 'int', int64: 'int64', duration: 'time.Duration', strings: '[]string',
}

/** Integer kinds: signed or not, and bits. */
const INT_KINDS: Partial<Record<Kind, readonly [boolean, number]>> = {
  uint: [false, 64], uint32: [false, 32], uint64: [false, 64], int: [true, 64], int64: [true, 64], duration: [true, 64],
}

/** A decoded value: strings, bools, integers (any Go integer type, and durations in ns) and string lists. */
export type Decoded = string | boolean | bigint | string[]

/** Decode one JSON value into a Go field of `kind`; undefined for null (the field keeps its value). */
export function decode(v: JsonValue, kind: Kind, struct: string, field: string, goType = GO_TYPE[kind]): Decoded | undefined {
  if (v === null) return undefined
  const mismatch = (value = kindOf(v)): TypeMismatch => new TypeMismatch(value, struct, field, goType)
  if (kind === 'string') {
    if (typeof v !== 'string') throw mismatch()
    return v
  }
  if (kind === 'bool') {
    if (typeof v !== 'boolean') throw mismatch()
    return v
  }
  if (kind === 'strings') {
    if (!Array.isArray(v)) throw mismatch()
    return v.map((e) => {
      if (e === null) return ''
      if (typeof e !== 'string') throw new TypeMismatch(kindOf(e), struct, field, 'string')
      return e
    })
  }
  const int = INT_KINDS[kind]
  if (int === undefined || !(v instanceof JsonNumber)) throw mismatch()
  const [signed, bits] = int
  const lit = v.literal
  if (!/^-?[0-9]+$/.test(lit)) throw mismatch(`number ${lit}`)
  const n = BigInt(lit)
  const ok = signed ? n >= -(1n << BigInt(bits - 1)) && n < 1n << BigInt(bits - 1) : n >= 0n && n < 1n << BigInt(bits)
  if (!ok) throw mismatch(`number ${lit}`)
  return n
}

export const asStr = (v: Decoded): string => (typeof v === 'string' ? v : '')
export const asBool = (v: Decoded): boolean => v === true
export const asBig = (v: Decoded): bigint => (typeof v === 'bigint' ? v : 0n)
export const asNum = (v: Decoded): number => Number(asBig(v))
export const asList = (v: Decoded): string[] => (Array.isArray(v) ? v : [])

/** encoding/json's field lookup: the exact name, else the first that matches ignoring case. */
export function lookup<T>(fields: ReadonlyMap<string, T>, key: string): readonly [string, T] | undefined {
  const exact = fields.get(key)
  if (exact !== undefined) return [key, exact]
  const folded = key.toLowerCase()
  for (const [name, spec] of fields) if (name.toLowerCase() === folded) return [name, spec]
  return undefined
}

/** Object keys in the order Go's json.Marshal wrote them: sorted. */
export const sortedEntries = (m: ReadonlyMap<string, JsonValue>): [string, JsonValue][] => [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
