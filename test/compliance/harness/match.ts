// Matchers for the fields of a compared response that a case cannot spell out as a constant: an ID the
// server picks, a hash or a database size that legitimately differs between etcd and etcdlite, a TTL
// that counts down, or a relation between two responses (the same hash, a grown raft index). A matcher
// stands where a constant would in `want`; settle() swaps every matcher that accepts its value into the
// received response, so one deepStrictEqual still compares everything else exactly and a failure shows
// the received value next to the matcher's label.
import { inspect, isDeepStrictEqual } from 'node:util'
import type { ResponseHeader } from '../../../src/etcdserver/types/header.js'

/** What a matcher may look at besides its value: names captured earlier in the case, the response. */
export interface MatchContext {
  /** Values captured by `capture(name)` in earlier steps (or earlier fields) of the same case. */
  readonly saved: Map<string, unknown>
  /** The header of the response being compared (absent when etcd sends none). */
  readonly header: ResponseHeader | undefined
  /** The whole response being compared, in compared form (for relations between its fields). */
  readonly response: Readonly<Record<string, unknown>>
}

/** A predicate on one field of a compared response, with a label for failure messages. */
export class Matcher {
  readonly label: string
  private readonly fn: (got: unknown, ctx: MatchContext) => boolean

  constructor(label: string, fn: (got: unknown, ctx: MatchContext) => boolean) {
    this.label = label
    this.fn = fn
  }

  test(got: unknown, ctx: MatchContext): boolean {
    return this.fn(got, ctx)
  }

  [inspect.custom](): string {
    return `<${this.label}>`
  }
}

/**
 * A value as a case expects it: exactly T in compared form (bytes as latin1 strings), where any field may
 * be a Matcher instead.
 */
export type Loose<T> =
  | Matcher
  | (T extends Uint8Array
      ? string
      : T extends bigint | number | string | boolean | undefined
        ? T
        : T extends readonly (infer E)[]
          ? Loose<E>[]
          : { readonly [K in keyof T]: Loose<T[K]> })

const isInt = (x: unknown): x is number | bigint => typeof x === 'bigint' || (typeof x === 'number' && Number.isSafeInteger(x))
const num = (x: number | bigint): bigint => BigInt(x)

/** Any integer (number or bigint) > 0. */
export const positive = new Matcher('an integer > 0', (x) => isInt(x) && num(x) > 0n)
/** Any integer >= 0. */
export const nonNegative = new Matcher('an integer >= 0', (x) => isInt(x) && num(x) >= 0n)
/** An unsigned 32-bit integer (a CRC-32 hash). */
export const uint32 = new Matcher('a uint32', (x) => isInt(x) && num(x) >= 0n && num(x) <= 0xffff_ffffn)
/** An integer in [lo, hi]. */
export const between = (lo: number, hi: number): Matcher =>
  new Matcher(`an integer in [${lo}, ${hi}]`, (x) => isInt(x) && num(x) >= BigInt(lo) && num(x) <= BigInt(hi))
/** A string with at least one character. */
export const nonEmptyString = new Matcher('a non-empty string', (x) => typeof x === 'string' && x !== '')
/** A list of strings, each non-empty (the list itself may be empty). */
export const stringList = new Matcher('a list of non-empty strings', (x) => Array.isArray(x) && x.every((s) => typeof s === 'string' && s !== ''))
/** The member_id of the response's own header (a Status leader, a MemberList member). */
export const headerMember = new Matcher("the header's member_id", (x, ctx) => ctx.header !== undefined && x === ctx.header.memberId)
/** An integer no greater than the response's own field `field` (dbSizeInUse <= dbSize). */
export const atMostField = (field: string): Matcher =>
  new Matcher(`an integer <= this response's ${field}`, (x, ctx) => {
    const other = ctx.response[field]
    return isInt(x) && isInt(other) && num(x) <= num(other)
  })

/** Accepts what `inner` accepts (default: anything) and remembers it under `name` for later steps. */
export const capture = (name: string, inner?: Matcher): Matcher =>
  new Matcher(inner === undefined ? `anything (saved as ${name})` : `${inner.label} (saved as ${name})`, (x, ctx) => {
    if (inner !== undefined && !inner.test(x, ctx)) return false
    ctx.saved.set(name, x)
    return true
  })
/** Equal to the value captured as `name`. */
export const same = (name: string): Matcher =>
  new Matcher(`the value saved as ${name}`, (x, ctx) => ctx.saved.has(name) && isDeepStrictEqual(x, ctx.saved.get(name)))
/** A value other than the one captured as `name` (which must exist). */
export const differs = (name: string): Matcher =>
  new Matcher(`a value other than ${name}`, (x, ctx) => ctx.saved.has(name) && !isDeepStrictEqual(x, ctx.saved.get(name)))
/** An integer greater than the one captured as `name`. */
export const greaterThan = (name: string): Matcher =>
  new Matcher(`an integer > ${name}`, (x, ctx) => {
    const y = ctx.saved.get(name)
    return isInt(x) && isInt(y) && num(x) > num(y)
  })
/** Either of two matchers or constants. */
export const oneOf = (label: string, ...options: readonly unknown[]): Matcher =>
  new Matcher(label, (x, ctx) => options.some((o) => (o instanceof Matcher ? o.test(x, ctx) : isDeepStrictEqual(x, o))))

function isRecord(x: unknown): x is Readonly<Record<string, unknown>> {
  return typeof x === 'object' && x !== null && !Array.isArray(x) && !(x instanceof Matcher)
}

/**
 * `got` with every value that a matcher at the same place in `want` accepts replaced by that matcher;
 * everything else is left as received. assert.deepStrictEqual(settle(want, got, ctx), want) then holds
 * exactly when every constant is equal and every matcher accepts. Matchers run in `want`'s field order.
 */
export function settle(want: unknown, got: unknown, ctx: MatchContext): unknown {
  if (want instanceof Matcher) return want.test(got, ctx) ? want : got
  if (Array.isArray(want) && Array.isArray(got)) return got.map((g: unknown, i) => (i < want.length ? settle(want[i], g, ctx) : g))
  if (isRecord(want) && isRecord(got)) {
    const out: Record<string, unknown> = { ...got }
    for (const k of Object.keys(want)) if (k in got) out[k] = settle(want[k], got[k], ctx)
    return out
  }
  return got
}

/** Accepts what every one of `ms` accepts. */
export const allOf = (...ms: readonly Matcher[]): Matcher =>
  new Matcher(ms.map((m) => m.label).join(' and '), (x, ctx) => ms.every((m) => m.test(x, ctx)))
