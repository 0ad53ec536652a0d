// The protobuf wire format by hand, as much of it as the front ceiling server needs: varint and
// length-delimited fields out, and a flat list of a message's fields in. No schema, no library: the
// server that measures what Node's HTTP/2 alone can serve must spend next to nothing on its messages.

/** One field of a message: a varint's value, or a length-delimited field's bytes (a view, not a copy). */
export interface Field {
  readonly n: number
  readonly v: bigint | Uint8Array
}

function varint(x: number | bigint, out: number[]): void {
  if (typeof x === 'number' && x >= 0 && Number.isSafeInteger(x)) {
    for (; x >= 0x80; x = Math.floor(x / 0x80)) out.push((x % 0x80) | 0x80)
    out.push(x)
    return
  }
  // Negative int64s are ten bytes of two's complement.
  let v = BigInt.asUintN(64, BigInt(x))
  for (; v >= 0x80n; v >>= 7n) out.push(Number(v & 0x7fn) | 0x80)
  out.push(Number(v))
}

/** A varint field (int64, uint64, bool, enum); nothing for 0, as proto3 leaves defaults out. */
export function uint(n: number, x: number | bigint | boolean): Uint8Array {
  const v = typeof x === 'boolean' ? Number(x) : x
  if (v === 0 || v === 0n) return new Uint8Array(0)
  const out: number[] = []
  varint(n << 3, out)
  varint(v, out)
  return Uint8Array.from(out)
}

/** A length-delimited field (bytes, string, embedded message), written even when empty. */
export function bytes(n: number, b: Uint8Array): Uint8Array {
  const head: number[] = []
  varint((n << 3) | 2, head)
  varint(b.length, head)
  const out = new Uint8Array(head.length + b.length)
  out.set(head)
  out.set(b, head.length)
  return out
}

/** A message from its encoded fields, in order. */
export const msg = (...fields: readonly Uint8Array[]): Buffer => Buffer.concat(fields)

/** The fields of `buf` in wire order; fixed-width fields are skipped. Throws a TypeError on malformed input. */
export function fields(buf: Uint8Array): Field[] {
  const out: Field[] = []
  let i = 0
  const read = (): bigint => {
    let v = 0n
    for (let shift = 0n; ; shift += 7n) {
      const b = buf[i++]
      if (b === undefined || shift > 63n) throw new TypeError('protobuf: truncated varint')
      v |= BigInt(b & 0x7f) << shift
      if (b < 0x80) return v
    }
  }
  while (i < buf.length) {
    const key = Number(read())
    const n = key >>> 3
    switch (key & 7) {
      case 0: out.push({ n, v: read() }); break
      case 1: i += 8; break
      case 2: {
        const len = Number(read())
        if (i + len > buf.length) throw new TypeError('protobuf: field past the end of the message')
        out.push({ n, v: buf.subarray(i, i + len) })
        i += len
        break
      }
      case 5: i += 4; break
      default: throw new TypeError(`protobuf: wire type ${key & 7} of field ${n}`)
    }
  }
  if (i > buf.length) throw new TypeError('protobuf: fixed field past the end of the message')
  return out
}

/** The last value of varint field `n` (proto3: the last one wins), or 0n. */
export function intField(fs: readonly Field[], n: number): bigint {
  let v = 0n
  for (const f of fs) if (f.n === n && typeof f.v === 'bigint') v = f.v
  return v
}

/** The last value of length-delimited field `n`, or an empty array. */
export function bytesField(fs: readonly Field[], n: number): Uint8Array {
  let v: Uint8Array = new Uint8Array(0)
  for (const f of fs) if (f.n === n && typeof f.v !== 'bigint') v = f.v
  return v
}
