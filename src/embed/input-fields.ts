// The field checkers the embedded API's entry points are built from (input.ts): each takes a value, the
// call's name and the field's path, and returns the value as the server takes it (a string became bytes)
// or throws a TypeError naming the call and the field.
export type Field = (v: unknown, call: string, path: string) => unknown

export const INT64_MIN = -(2n ** 63n)
export const INT64_MAX = 2n ** 63n - 1n
const UINT64_MAX = 2n ** 64n - 1n

export function describe(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'an array'
  if (typeof v === 'object') {
    const name = (v as { constructor?: { name?: unknown } }).constructor?.name
    return typeof name === 'string' && name !== 'Object' ? name : 'object'
  }
  return typeof v
}

/** How a message names a call's whole argument: `options` where the API calls it so, else `request`. */
const OPTIONS_ARGUMENT = new Set(['openEtcd', 'restoreSnapshot', 'watch', 'leaseKeepAlive', 'listen', 'listenMetrics', 'connect'])
export const argumentName = (call: string): string => (OPTIONS_ARGUMENT.has(call) ? 'options' : 'request')

export function refuse(call: string, path: string, what: string, got: string): never {
  throw new TypeError(`etcdlite: ${call}: ${path} must be ${what}, got ${got}`)
}

export const wellFormed = (s: string): boolean => (s as string & { isWellFormed(): boolean }).isWellFormed()

export const bytes: Field = (v, call, path) => {
  if (v instanceof Uint8Array) return v
  if (typeof v !== 'string') return refuse(call, path, 'a Uint8Array or a string', describe(v))
  // A lone surrogate has no UTF-8 form; encoding would store U+FFFD instead of what the caller wrote.
  if (!wellFormed(v)) return refuse(call, path, 'a Uint8Array or a well-formed string', 'a string with a lone surrogate')
  return Buffer.from(v, 'utf8')
}

/** A revision, count, TTL or watch ID: a number that is a safe integer (the server keeps them as numbers). */
export const int: Field = (v, call, path) => {
  if (typeof v !== 'number') return refuse(call, path, 'an integer number', describe(v))
  if (!Number.isSafeInteger(v)) return refuse(call, path, 'an integer number', String(v))
  return v
}

/** A lease ID: a bigint within int64, as on the wire. */
export const int64: Field = (v, call, path) => {
  if (typeof v !== 'bigint') return refuse(call, path, 'a bigint', describe(v))
  if (v < INT64_MIN || v > INT64_MAX) return refuse(call, path, 'a bigint within int64', `${v}n`)
  return v
}

/** A member ID: a bigint within uint64, as on the wire. */
export const uint64: Field = (v, call, path) => {
  if (typeof v !== 'bigint') return refuse(call, path, 'a bigint', describe(v))
  if (v < 0n || v > UINT64_MAX) return refuse(call, path, 'a bigint within uint64', `${v}n`)
  return v
}

export const bool: Field = (v, call, path) => (typeof v === 'boolean' ? v : refuse(call, path, 'a boolean', describe(v)))

export const str: Field = (v, call, path) => (typeof v === 'string' ? v : refuse(call, path, 'a string', describe(v)))

export const signal: Field = (v, call, path) => (v instanceof AbortSignal ? v : refuse(call, path, 'an AbortSignal', describe(v)))

/** A port to listen on: an integer from 0 (pick a free one) to 65535. */
export const port: Field = (v, call, path) => {
  const n = int(v, call, path) as number
  return n >= 0 && n <= 65535 ? n : refuse(call, path, 'an integer from 0 to 65535', String(n))
}

/** PEM text or its bytes. */
export const pem: Field = (v, call, path) =>
  typeof v === 'string' || v instanceof Uint8Array ? v : refuse(call, path, 'a string or a Buffer', describe(v))

/** One or more PEM texts or Buffers. */
export const pemOrList: Field = (v, call, path) => (Array.isArray(v) ? arrayOf(pem)(v, call, path) : pem(v, call, path))

/** An HTTP/2 setting's value: an integer from 0 to 2^32-1. */
export const uint32: Field = (v, call, path) => {
  const n = int(v, call, path) as number
  return n >= 0 && n <= 0xffffffff ? n : refuse(call, path, 'an integer from 0 to 4294967295', String(n))
}

export function oneOf(values: readonly string[]): Field {
  const what = `one of ${values.map((s) => `'${s}'`).join(', ')}`
  return (v, call, path) =>
    typeof v === 'string' && values.includes(v) ? v : refuse(call, path, what, typeof v === 'string' ? `'${v}'` : describe(v))
}

/** An optional field: absent (undefined) stays absent. */
export function opt(f: Field): Field {
  return (v, call, path) => (v === undefined ? undefined : f(v, call, path))
}

export function arrayOf(f: Field): Field {
  return (v, call, path) => {
    if (!Array.isArray(v)) return refuse(call, path, 'an array', describe(v))
    const a: readonly unknown[] = v
    let out: unknown[] | undefined
    for (let i = 0; i < a.length; i++) {
      const e = a[i]
      const c = f(e, call, `${path}[${i}]`)
      if (c !== e) (out ??= a.slice())[i] = c
    }
    return out ?? a
  }
}

export type Spec = Readonly<Record<string, Field>>

/**
 * An object with these fields (others pass through untouched). The object itself is returned unless a
 * field changed, so a request that already has the server's types costs one typeof per field.
 */
export function record(spec: Spec): Field {
  const names = Object.keys(spec)
  return (v, call, path) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return refuse(call, path || argumentName(call), 'an object', describe(v))
    const o = v as Record<string, unknown>
    let out: Record<string, unknown> | undefined
    for (const name of names) {
      const before = o[name]
      const after = (spec[name] as Field)(before, call, path === '' ? name : `${path}.${name}`)
      if (after !== before) (out ??= { ...o })[name] = after
    }
    return out ?? o
  }
}

/** A tagged union on `type`: each tag's own fields. */
export function tagged(variants: Readonly<Record<string, Field>>): Field {
  const tags = Object.keys(variants)
  const tag = oneOf(tags)
  return (v, call, path) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return refuse(call, path || argumentName(call), 'an object', describe(v))
    const type = tag((v as { type?: unknown }).type, call, path === '' ? 'type' : `${path}.type`) as string
    return (variants[type] as Field)(v, call, path)
  }
}
