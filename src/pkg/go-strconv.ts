// Go's strconv.ParseBool and ParseUint(s, 10, 64): etcd's v2 API parses its query flags and indexes with
// them, and refuses exactly what they refuse.

const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True'])
const FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False'])

/** strconv.ParseBool: the boolean, or undefined for anything else (the empty string too). */
export function parseGoBool(s: string): boolean | undefined {
  if (TRUE.has(s)) return true
  if (FALSE.has(s)) return false
  return undefined
}

const MAX_UINT64 = (1n << 64n) - 1n

/** strconv.ParseUint(s, 10, 64): decimal digits only, at most 2^64-1; undefined otherwise. */
export function parseGoUint64(s: string): bigint | undefined {
  if (!/^[0-9]+$/.test(s)) return undefined
  const v = BigInt(s)
  return v > MAX_UINT64 ? undefined : v
}
