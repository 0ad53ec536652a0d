// Go's base64.StdEncoding.Decode, which encoding/json uses for a []byte field: padding required, CR and LF
// skipped anywhere, non-zero trailing bits accepted, and "illegal base64 data at input byte N" for the first
// byte it refuses, N counted as Go counts it. Hand-written because Buffer.from(s, 'base64') accepts anything.

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
const DECODE = new Int16Array(256).fill(-1)
for (let i = 0; i < ALPHABET.length; i++) DECODE[ALPHABET.charCodeAt(i)] = i

const PAD = 0x3d
const isNewline = (c: number | undefined): boolean => c === 0x0a || c === 0x0d

export class CorruptInputError extends Error {
  override name = 'CorruptInputError'
  constructor(readonly offset: number) {
    super(`illegal base64 data at input byte ${offset}`)
  }
}

/** Decode `src` (bytes), or throw CorruptInputError. */
export function goBase64Decode(src: Uint8Array): Buffer {
  const out: number[] = []
  let si = 0
  while (si < src.length) {
    const dbuf = [0, 0, 0, 0]
    let dlen = 4
    let err: CorruptInputError | undefined
    for (let j = 0; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return Buffer.from(out)
        throw new CorruptInputError(si - j)
      }
      const c = src[si] as number
      si++
      const d = DECODE[c] ?? -1
      if (d >= 0) {
        dbuf[j] = d
        continue
      }
      if (isNewline(c)) {
        j--
        continue
      }
      if (c !== PAD) throw new CorruptInputError(si - 1)
      if (j < 2) throw new CorruptInputError(si - 1)
      if (j === 2) {
        while (si < src.length && isNewline(src[si])) si++
        if (si === src.length) throw new CorruptInputError(src.length)
        if (src[si] !== PAD) throw new CorruptInputError(si - 1)
        si++
      }
      while (si < src.length && isNewline(src[si])) si++
      if (si < src.length) err = new CorruptInputError(si)
      dlen = j
      break
    }
    const v = ((dbuf[0] ?? 0) << 18) | ((dbuf[1] ?? 0) << 12) | ((dbuf[2] ?? 0) << 6) | (dbuf[3] ?? 0)
    const bytes = [(v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff]
    for (let k = 0; k < dlen - 1; k++) out.push(bytes[k] as number)
    if (err !== undefined) throw err
  }
  return Buffer.from(out)
}
