// Protobuf wire primitives for the hand-written codecs of src/wire/: varints, field writers and a reading
// cursor. Hand-written for speed (sizes are computed first and every message is written into one exact-size
// buffer); what the codecs build from them must stay byte-identical to protobufjs/grpc-js output.

export const WIRE_VARINT = 0
export const WIRE_I64 = 1
export const WIRE_LEN = 2
export const WIRE_START_GROUP = 3
export const WIRE_END_GROUP = 4
export const WIRE_I32 = 5

/** Encoded size of a non-negative safe integer as a varint; negative numbers take 10 bytes (int64). */
export function varintSize(n: number): number {
  if (n < 0) return 10
  let len = 1
  while (n >= 0x80) {
    n = Math.floor(n / 128)
    len++
  }
  return len
}

export function bigVarintSize(n: bigint): number {
  let v = BigInt.asUintN(64, n)
  let len = 1
  while (v >= 0x80n) {
    v >>= 7n
    len++
  }
  return len
}

/** Write a varint; a negative number is written as its 64-bit two's complement, as int64 requires. */
export function writeVarint(out: Uint8Array, pos: number, n: number): number {
  if (n < 0) return writeBigVarint(out, pos, BigInt(n))
  while (n >= 0x80) {
    out[pos++] = (n % 128) | 0x80
    n = Math.floor(n / 128)
  }
  out[pos++] = n
  return pos
}

export function writeBigVarint(out: Uint8Array, pos: number, n: bigint): number {
  let v = BigInt.asUintN(64, n)
  while (v >= 0x80n) {
    out[pos++] = Number(v & 0x7fn) | 0x80
    v >>= 7n
  }
  out[pos++] = Number(v)
  return pos
}

/** Size of a length-delimited field (tag < 16) holding `len` bytes; 0 when len is 0 and omitted. */
export const lenFieldSize = (len: number): number => 1 + varintSize(len) + len

/** Write the tag and bytes of a length-delimited field (tag < 16). */
export function writeBytesField(out: Uint8Array, pos: number, field: number, b: Uint8Array): number {
  out[pos++] = (field << 3) | WIRE_LEN
  pos = writeVarint(out, pos, b.length)
  out.set(b, pos)
  return pos + b.length
}

/** Write the tag and value of a varint field (tag < 16). */
export function writeVarintField(out: Uint8Array, pos: number, field: number, n: number): number {
  out[pos++] = (field << 3) | WIRE_VARINT
  return writeVarint(out, pos, n)
}

export class WireError extends Error {
  override name = 'WireError'
}

/** A cursor over protobuf bytes. Malformed input throws WireError. */
export class Reader {
  pos = 0
  constructor(readonly buf: Uint8Array) {}

  get done(): boolean {
    return this.pos >= this.buf.length
  }

  /** A varint as a number: exact below 2^49 on the fast path, int64-signed and monotone (lossy) beyond. */
  varint(): number {
    const start = this.pos
    let n = 0
    let mul = 1
    for (let i = 0; i < 7; i++) {
      if (this.pos >= this.buf.length) throw new WireError('truncated varint')
      const c = this.buf[this.pos++] as number
      n += (c & 0x7f) * mul
      if (c < 0x80) return n
      mul *= 128
    }
    this.pos = start
    return Number(this.bigVarint())
  }

  /** A varint as an exact signed 64-bit bigint. */
  bigVarint(): bigint {
    let n = 0n
    let shift = 0n
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.buf.length) throw new WireError('truncated varint')
      const c = this.buf[this.pos++] as number
      n |= BigInt(c & 0x7f) << shift
      if (c < 0x80) return BigInt.asIntN(64, n)
      shift += 7n
    }
    throw new WireError('varint too long')
  }

  bool(): boolean {
    return this.varint() !== 0
  }

  /** A length-delimited field's bytes, as a view into the buffer. */
  bytes(): Uint8Array {
    const len = this.varint()
    if (len < 0 || this.pos + len > this.buf.length) throw new WireError('truncated bytes')
    const out = this.buf.subarray(this.pos, this.pos + len)
    this.pos += len
    return out
  }

  /**
   * Skip a field of the given wire type (unknown fields are ignored, as protobuf requires). A group (wire
   * type 3) is skipped up to the end group that closes it, whatever its field number, as Go's skip does.
   */
  skip(wireType: number): void {
    if (wireType === WIRE_START_GROUP) {
      for (let depth = 1; depth > 0;) {
        const wt = this.varint() & 7
        if (wt === WIRE_START_GROUP) depth++
        else if (wt === WIRE_END_GROUP) depth--
        else this.skip(wt)
      }
      return
    }
    switch (wireType) {
      case WIRE_VARINT:
        this.varint()
        return
      case WIRE_I64:
        this.pos += 8
        break
      case WIRE_LEN:
        this.bytes()
        return
      case WIRE_I32:
        this.pos += 4
        break
      default:
        throw new WireError(`unsupported wire type ${wireType}`)
    }
    if (this.pos > this.buf.length) throw new WireError('truncated field')
  }
}
