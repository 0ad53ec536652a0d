// ASN.1 DER, as much as etcd's TLS needs: writing a self-signed certificate (Node has no API that makes
// one) and reading the few fields etcd looks at in certificates and CRLs (serial numbers, subject
// alternative names). Node parses certificates only through X509Certificate, which shows neither the
// serial's exact bytes nor the names in a form Go's hostname rules can be applied to, and cannot read a
// CRL at all. A dependency for ~150 lines of tag-length-value was not worth it.

/** Input that is not the DER expected. */
export class DerError extends Error {
  override readonly name = 'DerError'
}

/** Universal tags and the context-specific forms used here. */
export const Tag = {
  BOOLEAN: 0x01,
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  UTF8_STRING: 0x0c,
  PRINTABLE_STRING: 0x13,
  IA5_STRING: 0x16,
  UTC_TIME: 0x17,
  GENERALIZED_TIME: 0x18,
  SEQUENCE: 0x30,
  SET: 0x31,
} as const

// Writing

function lengthBytes(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n])
  const bytes: number[] = []
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff)
  return Buffer.from([0x80 | bytes.length, ...bytes])
}

/** One element: tag, definite length, content. */
export function tlv(tag: number, content: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from([tag]), lengthBytes(content.length), content])
}

export const sequence = (...items: readonly Uint8Array[]): Buffer => tlv(Tag.SEQUENCE, Buffer.concat(items))
export const set = (...items: readonly Uint8Array[]): Buffer => tlv(Tag.SET, Buffer.concat(items))
/** [n] EXPLICIT: a constructed context-specific element wrapping `content`. */
export const explicit = (n: number, content: Uint8Array): Buffer => tlv(0xa0 | n, content)
/** [n] IMPLICIT of a primitive type: the context-specific tag in place of the type's. */
export const implicit = (n: number, content: Uint8Array): Buffer => tlv(0x80 | n, content)
export const octetString = (b: Uint8Array): Buffer => tlv(Tag.OCTET_STRING, b)
export const boolean = (v: boolean): Buffer => tlv(Tag.BOOLEAN, Buffer.from([v ? 0xff : 0x00]))

/** A BIT STRING of whole bytes, or of `bitLength` bits (the rest of the last byte unused). */
export function bitString(bytes: Uint8Array, bitLength = bytes.length * 8): Buffer {
  const unused = bytes.length * 8 - bitLength
  return tlv(Tag.BIT_STRING, Buffer.concat([Buffer.from([unused]), bytes]))
}

/** A non-negative INTEGER from its magnitude (big-endian, leading zeros allowed). */
export function unsignedInteger(magnitude: Uint8Array): Buffer {
  let i = 0
  while (i < magnitude.length - 1 && magnitude[i] === 0) i++
  const m = magnitude.length === 0 ? Buffer.from([0]) : Buffer.from(magnitude.subarray(i))
  return tlv(Tag.INTEGER, (m[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), m]) : m)
}

export const smallInteger = (n: number): Buffer => unsignedInteger(Buffer.from([n]))

/** An OBJECT IDENTIFIER from its dotted form. */
export function oid(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number)
  const [a = 0, b = 0, ...rest] = arcs
  const out: number[] = []
  for (const arc of [a * 40 + b, ...rest]) {
    const groups: number[] = [arc & 0x7f]
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) groups.unshift(0x80 | (v & 0x7f))
    out.push(...groups)
  }
  return tlv(Tag.OID, Buffer.from(out))
}

/** A string as Go's encoding/asn1 writes a Go string: PrintableString when every character allows it, else UTF8String. */
export function goString(s: string): Buffer {
  const printable = /^[A-Za-z0-9 '()+,\-./:=?]*$/.test(s)
  return tlv(printable ? Tag.PRINTABLE_STRING : Tag.UTF8_STRING, Buffer.from(s, 'utf8'))
}

/** A time as Go's x509 writes it: UTCTime for 1950-2049, GeneralizedTime otherwise, to the second, in UTC. */
export function goTime(d: Date): Buffer {
  const iso = d.toISOString() // YYYY-MM-DDTHH:MM:SS.sssZ, in UTC
  const digits = iso.slice(0, 19).replace(/[-T:]/g, '')
  const year = d.getUTCFullYear()
  if (year >= 1950 && year < 2050) return tlv(Tag.UTC_TIME, Buffer.from(`${digits.slice(2)}Z`, 'latin1'))
  return tlv(Tag.GENERALIZED_TIME, Buffer.from(`${digits}Z`, 'latin1'))
}

// Reading

/** One element read from DER. */
export interface Element {
  readonly tag: number
  /** The content octets. */
  readonly content: Buffer
  /** The whole element, header included. */
  readonly raw: Buffer
}

/** The element at `offset` of `buf`. */
export function readElement(buf: Buffer, offset = 0): Element {
  const tag = buf[offset]
  const first = buf[offset + 1]
  if (tag === undefined || first === undefined) throw new DerError('asn1: syntax error: data truncated')
  if ((tag & 0x1f) === 0x1f) throw new DerError('asn1: structure error: multi-byte tags are not supported')
  let length = first
  let header = 2
  if (first & 0x80) {
    const n = first & 0x7f
    if (n === 0 || n > 4) throw new DerError('asn1: structure error: length too large or indefinite')
    length = 0
    for (let i = 0; i < n; i++) {
      const b = buf[offset + 2 + i]
      if (b === undefined) throw new DerError('asn1: syntax error: data truncated')
      length = length * 256 + b
    }
    header += n
  }
  const end = offset + header + length
  if (end > buf.length) throw new DerError('asn1: syntax error: data truncated')
  return { tag, content: buf.subarray(offset + header, end), raw: buf.subarray(offset, end) }
}

/** The elements inside a constructed element's content, in order. */
export function children(content: Buffer): Element[] {
  const out: Element[] = []
  for (let offset = 0; offset < content.length; ) {
    const e = readElement(content, offset)
    out.push(e)
    offset += e.raw.length
  }
  return out
}

/** Read `buf` as exactly one element of this tag (nothing may follow it). */
export function readOnly(buf: Buffer, tag: number, what: string): Element {
  const e = readElement(buf)
  if (e.tag !== tag) throw new DerError(`asn1: structure error: tags don't match (${what})`)
  if (e.raw.length !== buf.length) throw new DerError(`x509: trailing data after ${what}`)
  return e
}

/** An INTEGER's magnitude as Go's big.Int.Bytes() gives it: big-endian, no leading zeros (empty for 0). */
export function integerMagnitude(e: Element): Buffer {
  if (e.tag !== Tag.INTEGER || e.content.length === 0) throw new DerError('asn1: structure error: not an integer')
  let c = e.content
  if ((c[0] ?? 0) & 0x80) {
    // Negative: the magnitude of the two's complement value.
    const inv = Buffer.from(c.map((b) => ~b & 0xff))
    for (let i = inv.length - 1; i >= 0; i--) {
      const v = (inv[i] ?? 0) + 1
      inv[i] = v & 0xff
      if (v < 0x100) break
    }
    c = inv
  }
  let i = 0
  while (i < c.length && c[i] === 0) i++
  return Buffer.from(c.subarray(i))
}

/** The dotted form of an OBJECT IDENTIFIER. */
export function oidString(e: Element): string {
  if (e.tag !== Tag.OID) throw new DerError('asn1: structure error: not an object identifier')
  const arcs: number[] = []
  let v = 0
  for (const b of e.content) {
    v = v * 128 + (b & 0x7f)
    if (!(b & 0x80)) {
      if (arcs.length === 0) arcs.push(v < 80 ? Math.floor(v / 40) : 2, v < 80 ? v % 40 : v - 80)
      else arcs.push(v)
      v = 0
    }
  }
  return arcs.join('.')
}
