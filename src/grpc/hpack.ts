// HPACK (RFC 7541): the header compression of HTTP/2, for the header blocks the HTTP/2 front rewrites
// (grpc/http2-front.ts). Written here, not taken from npm: hpack.js (the package spdy uses) has had no
// release since 2017 and brings readable-stream 2 and two buffer packages with it, while the front needs
// only a decoder (with the dynamic table and Huffman codes) and an encoder that never indexes. Tested
// with the examples of RFC 7541 Appendix C. Names and values are latin1 strings: one char per byte, so
// any octets survive a decode and re-encode unchanged.

/** A decoded header field. */
export interface HeaderField {
  readonly name: string
  readonly value: string
}

/** A header block that does not decode (RFC 7541: a COMPRESSION_ERROR for the connection). */
export class HpackError extends Error {}

/** RFC 7541 Appendix A. */
const STATIC_TABLE: readonly HeaderField[] = ([
  [':authority', ''], [':method', 'GET'], [':method', 'POST'], [':path', '/'], [':path', '/index.html'],
  [':scheme', 'http'], [':scheme', 'https'], [':status', '200'], [':status', '204'], [':status', '206'],
  [':status', '304'], [':status', '400'], [':status', '404'], [':status', '500'], ['accept-charset', ''],
  ['accept-encoding', 'gzip, deflate'], ['accept-language', ''], ['accept-ranges', ''], ['accept', ''],
  ['access-control-allow-origin', ''], ['age', ''], ['allow', ''], ['authorization', ''], ['cache-control', ''],
  ['content-disposition', ''], ['content-encoding', ''], ['content-language', ''], ['content-length', ''],
  ['content-location', ''], ['content-range', ''], ['content-type', ''], ['cookie', ''], ['date', ''], ['etag', ''],
  ['expect', ''], ['expires', ''], ['from', ''], ['host', ''], ['if-match', ''], ['if-modified-since', ''],
  ['if-none-match', ''], ['if-range', ''], ['if-unmodified-since', ''], ['last-modified', ''], ['link', ''],
  ['location', ''], ['max-forwards', ''], ['proxy-authenticate', ''], ['proxy-authorization', ''], ['range', ''],
  ['referer', ''], ['refresh', ''], ['retry-after', ''], ['server', ''], ['set-cookie', ''],
  ['strict-transport-security', ''], ['transfer-encoding', ''], ['user-agent', ''], ['vary', ''], ['via', ''],
  ['www-authenticate', ''],
] as const).map(([name, value]) => ({ name, value }))

/** Per-entry overhead in the dynamic table's size (RFC 7541 section 4.1). */
const ENTRY_OVERHEAD = 32

/** RFC 7541 Appendix B: [code, bit length] of each symbol 0..255 and EOS (256). */
const HUFFMAN: readonly (readonly [number, number])[] = [
  [0x1ff8, 13], [0x7fffd8, 23], [0xfffffe2, 28], [0xfffffe3, 28], [0xfffffe4, 28], [0xfffffe5, 28], [0xfffffe6, 28], [0xfffffe7, 28],
  [0xfffffe8, 28], [0xffffea, 24], [0x3ffffffc, 30], [0xfffffe9, 28], [0xfffffea, 28], [0x3ffffffd, 30], [0xfffffeb, 28], [0xfffffec, 28],
  [0xfffffed, 28], [0xfffffee, 28], [0xfffffef, 28], [0xffffff0, 28], [0xffffff1, 28], [0xffffff2, 28], [0x3ffffffe, 30], [0xffffff3, 28],
  [0xffffff4, 28], [0xffffff5, 28], [0xffffff6, 28], [0xffffff7, 28], [0xffffff8, 28], [0xffffff9, 28], [0xffffffa, 28], [0xffffffb, 28],
  [0x14, 6], [0x3f8, 10], [0x3f9, 10], [0xffa, 12], [0x1ff9, 13], [0x15, 6], [0xf8, 8], [0x7fa, 11],
  [0x3fa, 10], [0x3fb, 10], [0xf9, 8], [0x7fb, 11], [0xfa, 8], [0x16, 6], [0x17, 6], [0x18, 6],
  [0x0, 5], [0x1, 5], [0x2, 5], [0x19, 6], [0x1a, 6], [0x1b, 6], [0x1c, 6], [0x1d, 6],
  [0x1e, 6], [0x1f, 6], [0x5c, 7], [0xfb, 8], [0x7ffc, 15], [0x20, 6], [0xffb, 12], [0x3fc, 10],
  [0x1ffa, 13], [0x21, 6], [0x5d, 7], [0x5e, 7], [0x5f, 7], [0x60, 7], [0x61, 7], [0x62, 7],
  [0x63, 7], [0x64, 7], [0x65, 7], [0x66, 7], [0x67, 7], [0x68, 7], [0x69, 7], [0x6a, 7],
  [0x6b, 7], [0x6c, 7], [0x6d, 7], [0x6e, 7], [0x6f, 7], [0x70, 7], [0x71, 7], [0x72, 7],
  [0xfc, 8], [0x73, 7], [0xfd, 8], [0x1ffb, 13], [0x7fff0, 19], [0x1ffc, 13], [0x3ffc, 14], [0x22, 6],
  [0x7ffd, 15], [0x3, 5], [0x23, 6], [0x4, 5], [0x24, 6], [0x5, 5], [0x25, 6], [0x26, 6],
  [0x27, 6], [0x6, 5], [0x74, 7], [0x75, 7], [0x28, 6], [0x29, 6], [0x2a, 6], [0x7, 5],
  [0x2b, 6], [0x76, 7], [0x2c, 6], [0x8, 5], [0x9, 5], [0x2d, 6], [0x77, 7], [0x78, 7],
  [0x79, 7], [0x7a, 7], [0x7b, 7], [0x7ffe, 15], [0x7fc, 11], [0x3ffd, 14], [0x1ffd, 13], [0xffffffc, 28],
  [0xfffe6, 20], [0x3fffd2, 22], [0xfffe7, 20], [0xfffe8, 20], [0x3fffd3, 22], [0x3fffd4, 22], [0x3fffd5, 22], [0x7fffd9, 23],
  [0x3fffd6, 22], [0x7fffda, 23], [0x7fffdb, 23], [0x7fffdc, 23], [0x7fffdd, 23], [0x7fffde, 23], [0xffffeb, 24], [0x7fffdf, 23],
  [0xffffec, 24], [0xffffed, 24], [0x3fffd7, 22], [0x7fffe0, 23], [0xffffee, 24], [0x7fffe1, 23], [0x7fffe2, 23], [0x7fffe3, 23],
  [0x7fffe4, 23], [0x1fffdc, 21], [0x3fffd8, 22], [0x7fffe5, 23], [0x3fffd9, 22], [0x7fffe6, 23], [0x7fffe7, 23], [0xffffef, 24],
  [0x3fffda, 22], [0x1fffdd, 21], [0xfffe9, 20], [0x3fffdb, 22], [0x3fffdc, 22], [0x7fffe8, 23], [0x7fffe9, 23], [0x1fffde, 21],
  [0x7fffea, 23], [0x3fffdd, 22], [0x3fffde, 22], [0xfffff0, 24], [0x1fffdf, 21], [0x3fffdf, 22], [0x7fffeb, 23], [0x7fffec, 23],
  [0x1fffe0, 21], [0x1fffe1, 21], [0x3fffe0, 22], [0x1fffe2, 21], [0x7fffed, 23], [0x3fffe1, 22], [0x7fffee, 23], [0x7fffef, 23],
  [0xfffea, 20], [0x3fffe2, 22], [0x3fffe3, 22], [0x3fffe4, 22], [0x7ffff0, 23], [0x3fffe5, 22], [0x3fffe6, 22], [0x7ffff1, 23],
  [0x3ffffe0, 26], [0x3ffffe1, 26], [0xfffeb, 20], [0x7fff1, 19], [0x3fffe7, 22], [0x7ffff2, 23], [0x3fffe8, 22], [0x1ffffec, 25],
  [0x3ffffe2, 26], [0x3ffffe3, 26], [0x3ffffe4, 26], [0x7ffffde, 27], [0x7ffffdf, 27], [0x3ffffe5, 26], [0xfffff1, 24], [0x1ffffed, 25],
  [0x7fff2, 19], [0x1fffe3, 21], [0x3ffffe6, 26], [0x7ffffe0, 27], [0x7ffffe1, 27], [0x3ffffe7, 26], [0x7ffffe2, 27], [0xfffff2, 24],
  [0x1fffe4, 21], [0x1fffe5, 21], [0x3ffffe8, 26], [0x3ffffe9, 26], [0xffffffd, 28], [0x7ffffe3, 27], [0x7ffffe4, 27], [0x7ffffe5, 27],
  [0xfffec, 20], [0xfffff3, 24], [0xfffed, 20], [0x1fffe6, 21], [0x3fffe9, 22], [0x1fffe7, 21], [0x1fffe8, 21], [0x7ffff3, 23],
  [0x3fffea, 22], [0x3fffeb, 22], [0x1ffffee, 25], [0x1ffffef, 25], [0xfffff4, 24], [0xfffff5, 24], [0x3ffffea, 26], [0x7ffff4, 23],
  [0x3ffffeb, 26], [0x7ffffe6, 27], [0x3ffffec, 26], [0x3ffffed, 26], [0x7ffffe7, 27], [0x7ffffe8, 27], [0x7ffffe9, 27], [0x7ffffea, 27],
  [0x7ffffeb, 27], [0xffffffe, 28], [0x7ffffec, 27], [0x7ffffed, 27], [0x7ffffee, 27], [0x7ffffef, 27], [0x7fffff0, 27], [0x3ffffee, 26],
  [0x3fffffff, 30],
]

const EOS = 256

/** The Huffman code as a binary tree: node i's children are at child[2i] (bit 0) and child[2i+1] (bit 1); a leaf holds its symbol. */
const huffmanTree = ((): { readonly child: Int32Array; readonly symbol: Int32Array } => {
  const child = new Int32Array(2 * 2 * HUFFMAN.length).fill(-1)
  const symbol = new Int32Array(2 * HUFFMAN.length).fill(-1)
  let nodes = 1
  for (const [sym, [code, bits]] of HUFFMAN.entries()) {
    let node = 0
    for (let i = bits - 1; i >= 0; i--) {
      const slot = 2 * node + ((code >>> i) & 1)
      if (child[slot] === -1) child[slot] = nodes++
      node = child[slot] as number
    }
    symbol[node] = sym
  }
  return { child, symbol }
})()

/** Decode a Huffman-coded string (RFC 7541 section 5.2) to latin1. */
export function huffmanDecode(data: Buffer): string {
  const { child, symbol } = huffmanTree
  const out: number[] = []
  let node = 0
  /** Bits read since the last symbol, and whether all of them were ones (only such a tail may be padding). */
  let pending = 0
  let allOnes = true
  for (const byte of data) {
    for (let i = 7; i >= 0; i--) {
      const bit = (byte >>> i) & 1
      node = child[2 * node + bit] as number
      if (node === -1) throw new HpackError('invalid Huffman code')
      pending++
      allOnes &&= bit === 1
      const sym = symbol[node] as number
      if (sym !== -1) {
        if (sym === EOS) throw new HpackError('Huffman-coded EOS')
        out.push(sym)
        node = 0
        pending = 0
        allOnes = true
      }
    }
  }
  if (pending > 7 || !allOnes) throw new HpackError('invalid Huffman padding')
  return Buffer.from(out).toString('latin1')
}

/** Reads HPACK primitives from one header block. */
class BlockReader {
  pos = 0
  constructor(private readonly buf: Buffer) {}

  get done(): boolean {
    return this.pos >= this.buf.length
  }

  peek(): number {
    const b = this.buf[this.pos]
    if (b === undefined) throw new HpackError('truncated header block')
    return b
  }

  /** An integer with an N-bit prefix (RFC 7541 section 5.1); values beyond 2^32 are refused. */
  integer(prefixBits: number): number {
    const max = (1 << prefixBits) - 1
    let value = this.peek() & max
    this.pos++
    if (value < max) return value
    for (let shift = 0; ; shift += 7) {
      const b = this.peek()
      this.pos++
      value += (b & 0x7f) * 2 ** shift
      if (value > 0xffffffff) throw new HpackError('integer overflow')
      if ((b & 0x80) === 0) return value
    }
  }

  /** A string literal (RFC 7541 section 5.2). */
  string(): string {
    const huffman = (this.peek() & 0x80) !== 0
    const length = this.integer(7)
    if (this.pos + length > this.buf.length) throw new HpackError('truncated string literal')
    const raw = this.buf.subarray(this.pos, this.pos + length)
    this.pos += length
    return huffman ? huffmanDecode(raw) : raw.toString('latin1')
  }
}

/**
 * The decoding context of one connection's header blocks: the dynamic table persists from block to block,
 * so every block of the connection must go through the same decoder, in order.
 */
export class HpackDecoder {
  /** Newest first. */
  private readonly table: HeaderField[] = []
  private tableBytes = 0
  private maxTableBytes: number

  /** `settingsMaxTableBytes`: the SETTINGS_HEADER_TABLE_SIZE the decoding side announced (4096 unless it said otherwise). */
  constructor(private readonly settingsMaxTableBytes = 4096) {
    this.maxTableBytes = settingsMaxTableBytes
  }

  /** Decode one complete header block (a HEADERS frame's fragment and its CONTINUATIONs joined). */
  decode(block: Buffer): HeaderField[] {
    const r = new BlockReader(block)
    const fields: HeaderField[] = []
    let sizeUpdateAllowed = true
    while (!r.done) {
      const b = r.peek()
      if ((b & 0x80) !== 0) {
        // Indexed header field.
        fields.push(this.lookup(r.integer(7)))
      } else if ((b & 0xc0) === 0x40) {
        // Literal with incremental indexing.
        const field = this.literal(r, 6)
        this.insert(field)
        fields.push(field)
      } else if ((b & 0xe0) === 0x20) {
        // Dynamic table size update: only at the start of a block, up to the announced setting.
        if (!sizeUpdateAllowed) throw new HpackError('table size update after a header field')
        const size = r.integer(5)
        if (size > this.settingsMaxTableBytes) throw new HpackError('table size update beyond the setting')
        this.maxTableBytes = size
        this.evict(0)
        continue
      } else {
        // Literal without indexing (0000) or never indexed (0001).
        fields.push(this.literal(r, 4))
      }
      sizeUpdateAllowed = false
    }
    return fields
  }

  private literal(r: BlockReader, prefixBits: number): HeaderField {
    const index = r.integer(prefixBits)
    const name = index === 0 ? r.string() : this.lookup(index).name
    return { name, value: r.string() }
  }

  private lookup(index: number): HeaderField {
    if (index === 0) throw new HpackError('index 0')
    const field = index <= STATIC_TABLE.length ? STATIC_TABLE[index - 1] : this.table[index - STATIC_TABLE.length - 1]
    if (field === undefined) throw new HpackError(`index ${index} beyond the tables`)
    return field
  }

  private insert(field: HeaderField): void {
    const size = field.name.length + field.value.length + ENTRY_OVERHEAD
    this.evict(size)
    // An entry larger than the whole table empties it and is not added (RFC 7541 section 4.4).
    if (size > this.maxTableBytes) return
    this.table.unshift(field)
    this.tableBytes += size
  }

  /** Evict oldest entries until `room` more bytes fit. */
  private evict(room: number): void {
    while (this.tableBytes + room > this.maxTableBytes && this.table.length > 0) {
      const old = this.table.pop() as HeaderField
      this.tableBytes -= old.name.length + old.value.length + ENTRY_OVERHEAD
    }
  }
}

/** Index (1-based) of each static-table name, and of each full static entry, for the encoder. */
const STATIC_NAME_INDEX = new Map<string, number>()
const STATIC_FIELD_INDEX = new Map<string, number>()
for (const [i, f] of STATIC_TABLE.entries()) {
  if (!STATIC_NAME_INDEX.has(f.name)) STATIC_NAME_INDEX.set(f.name, i + 1)
  STATIC_FIELD_INDEX.set(`${f.name}\0${f.value}`, i + 1)
}

function pushInteger(out: number[], value: number, prefixBits: number, firstByteFlags: number): void {
  const max = (1 << prefixBits) - 1
  if (value < max) {
    out.push(firstByteFlags | value)
    return
  }
  out.push(firstByteFlags | max)
  let rest = value - max
  while (rest >= 0x80) {
    out.push((rest % 0x80) | 0x80)
    rest = Math.floor(rest / 0x80)
  }
  out.push(rest)
}

function pushString(out: number[], s: string): void {
  pushInteger(out, s.length, 7, 0)
  for (let i = 0; i < s.length; i++) out.push(s.charCodeAt(i) & 0xff)
}

/**
 * Encode a header block that leaves the decoder's dynamic table untouched: static-table references and
 * literals without indexing only, no Huffman coding. The peer's table then stays empty for good, so blocks
 * from this encoder can be decoded in any context.
 */
export function encodeWithoutIndexing(fields: readonly HeaderField[]): Buffer {
  const out: number[] = []
  for (const { name, value } of fields) {
    const full = STATIC_FIELD_INDEX.get(`${name}\0${value}`)
    if (full !== undefined) {
      pushInteger(out, full, 7, 0x80)
      continue
    }
    const nameIndex = STATIC_NAME_INDEX.get(name)
    if (nameIndex !== undefined) {
      pushInteger(out, nameIndex, 4, 0)
    } else {
      out.push(0)
      pushString(out, name)
    }
    pushString(out, value)
  }
  return Buffer.from(out)
}
