// Go's %q of a string (strconv.Quote), which etcd's messages use to show what was given: JSON.stringify
// differs for control characters (Go writes \a, \v and \x07-style escapes where JSON writes \u0007) and
// for U+2028/U+2029, which Go prints as they are.

const SHORT: Readonly<Record<string, string>> = {
  '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v', '\\': '\\\\', '"': '\\"',
}

/** The string as Go's %q prints it. */
export function goQuote(s: string): string {
  let out = '"'
  for (const ch of s) {
    const short = SHORT[ch]
    if (short !== undefined) {
      out += short
      continue
    }
    const cp = ch.codePointAt(0) ?? 0
    if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`
    else if (cp >= 0x80 && cp < 0xa0) out += `\\u${cp.toString(16).padStart(4, '0')}`
    else out += ch
  }
  return out + '"'
}

/**
 * Go's %q of a byte string held one byte per char (as Go's HTTP server sees a request target): printable
 * ASCII as it is, every other byte as \xNN.
 */
export function goQuoteBytes(s: string): string {
  let out = '"'
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c === 0x22 || c === 0x5c) out += `\\${s[i] ?? ''}`
    else if (c >= 0x20 && c < 0x7f) out += s[i]
    else out += `\\x${c.toString(16).padStart(2, '0')}`
  }
  return `${out}"`
}
