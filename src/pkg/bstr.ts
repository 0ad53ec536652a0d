// Go strings as JS strings: a "byte string" holds one char (0..255) per byte, as latin1 decodes them. etcd's
// v2 API keys, values, user and role names are Go strings, that is bytes: a key percent-encoded as %FF is a
// different key from %FE, sorting is by bytes, and lengths count bytes. Byte strings keep all of that, and
// '/' and '_' are the same single char as in text. UTF-8 is decoded only when writing JSON (go-json.ts).

/** The byte string of text's UTF-8 encoding (what a Go string literal or decoded JSON string holds). */
export function utf8ToBstr(s: string): string {
  return Buffer.from(s, 'utf8').toString('latin1')
}

/** Text from a byte string's bytes read as UTF-8 (invalid bytes become U+FFFD), for messages and logs. */
export function bstrToUtf8(b: string): string {
  return Buffer.from(b, 'latin1').toString('utf8')
}

/** The bytes of a byte string. */
export function bstrBytes(b: string): Buffer {
  return Buffer.from(b, 'latin1')
}

/** Go's `a < b` on strings: byte order, which is code unit order for byte strings. */
export function compareBstr(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
