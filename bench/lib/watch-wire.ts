// Minimal protobuf wire code for the watch benchmark's hot path: WatchCreateRequest out, and a scanner
// that reads only what the benchmark needs from a WatchResponse (ids, flags, and each event's
// mod_revision) without building objects. Decoding every response of 10,000 watchers into full pb
// objects would make the load generator, not the server, the bottleneck.
import { lenFieldSize, varintSize, WIRE_LEN, WIRE_VARINT, writeBytesField, writeVarint, writeVarintField } from '../../src/pkg/proto-wire.js'

/** Clock shared by every process on the machine (CLOCK_MONOTONIC), in µs; used to compare times across processes. */
export function nowUs(): number {
  const [s, ns] = process.hrtime()
  return s * 1e6 + ns / 1e3
}

export interface WatchCreate {
  readonly key: Uint8Array
  /** Empty: the single key. */
  readonly rangeEnd: Uint8Array
  /** 0: from the next revision. */
  readonly startRevision: number
}

/** Encode `WatchRequest{create_request: WatchCreateRequest{key, range_end, start_revision}}`. */
export function encodeWatchCreate(c: WatchCreate): Buffer {
  const innerSize = lenFieldSize(c.key.length) + (c.rangeEnd.length > 0 ? lenFieldSize(c.rangeEnd.length) : 0) +
    (c.startRevision > 0 ? 1 + varintSize(c.startRevision) : 0)
  const out = Buffer.allocUnsafe(1 + varintSize(innerSize) + innerSize)
  let pos = 0
  out[pos++] = (1 << 3) | WIRE_LEN
  pos = writeVarint(out, pos, innerSize)
  pos = writeBytesField(out, pos, 1, c.key)
  if (c.rangeEnd.length > 0) pos = writeBytesField(out, pos, 2, c.rangeEnd)
  if (c.startRevision > 0) pos = writeVarintField(out, pos, 3, c.startRevision)
  if (pos !== out.length) throw new Error(`encodeWatchCreate: wrote ${pos} of ${out.length} bytes`)
  return out
}

/** The byte after `prefix`'s last byte that is not 0xff, as etcd's GetPrefixRangeEnd; "\0" for an all-0xff prefix. */
export function prefixRangeEnd(prefix: Uint8Array): Uint8Array {
  const end = Uint8Array.from(prefix)
  for (let i = end.length - 1; i >= 0; i--) {
    if ((end[i] as number) < 0xff) {
      end[i] = (end[i] as number) + 1
      return end.subarray(0, i + 1)
    }
  }
  return Uint8Array.of(0)
}

/**
 * Reads one WatchResponse at a time into its own fields (reused, so the hot path allocates nothing but
 * the cancel reason). Fields it does not need (keys, values, prev_kv, header ids) are skipped.
 * Malformed input throws.
 */
export class WatchResponseScanner {
  watchId = 0
  created = false
  canceled = false
  compactRevision = 0
  headerRevision = 0
  cancelReason = ''
  /** Number of events in the response. */
  events = 0
  /** mod_revision of each event; entries [0, events) are valid. */
  modRevs = new Float64Array(1024)

  private buf: Uint8Array = new Uint8Array(0)
  private pos = 0

  scan(buf: Uint8Array): void {
    this.buf = buf
    this.pos = 0
    this.watchId = 0
    this.created = false
    this.canceled = false
    this.compactRevision = 0
    this.headerRevision = 0
    this.cancelReason = ''
    this.events = 0
    const end = buf.length
    while (this.pos < end) {
      const tag = this.varint()
      const field = tag >>> 3
      const wt = tag & 7
      if (wt === WIRE_VARINT) {
        const v = this.varint()
        if (field === 2) this.watchId = v
        else if (field === 3) this.created = v !== 0
        else if (field === 4) this.canceled = v !== 0
        else if (field === 5) this.compactRevision = v
      } else if (wt === WIRE_LEN) {
        const len = this.varint()
        const stop = this.pos + len
        if (stop > end) throw new Error('watch response: truncated field')
        if (field === 11) this.event(stop)
        else if (field === 1) this.header(stop)
        else if (field === 6) this.cancelReason = Buffer.from(buf.buffer, buf.byteOffset + this.pos, len).toString('utf8')
        this.pos = stop
      } else throw new Error(`watch response: unexpected wire type ${wt} for field ${field}`)
    }
  }

  private header(stop: number): void {
    while (this.pos < stop) {
      const tag = this.varint()
      if ((tag & 7) !== WIRE_VARINT) throw new Error('watch response header: unexpected wire type')
      const v = this.varint()
      if (tag >>> 3 === 3) this.headerRevision = v
    }
  }

  /** One mvccpb.Event: only kv.mod_revision is read. */
  private event(stop: number): void {
    let modRev = 0
    while (this.pos < stop) {
      const tag = this.varint()
      const wt = tag & 7
      if (wt === WIRE_VARINT) this.varint()
      else if (wt === WIRE_LEN) {
        const len = this.varint()
        const kvStop = this.pos + len
        if (tag >>> 3 === 2) modRev = this.kvModRevision(kvStop)
        this.pos = kvStop
      } else throw new Error('watch event: unexpected wire type')
    }
    if (this.events === this.modRevs.length) {
      const next = new Float64Array(this.modRevs.length * 2)
      next.set(this.modRevs)
      this.modRevs = next
    }
    this.modRevs[this.events++] = modRev
  }

  private kvModRevision(stop: number): number {
    let modRev = 0
    while (this.pos < stop) {
      const tag = this.varint()
      const wt = tag & 7
      if (wt === WIRE_VARINT) {
        const v = this.varint()
        if (tag >>> 3 === 3) modRev = v
      } else if (wt === WIRE_LEN) {
        // Not `this.pos += this.varint()`: that adds the length to the position before the varint.
        const len = this.varint()
        this.pos += len
      } else throw new Error('watch kv: unexpected wire type')
    }
    return modRev
  }

  /** A non-negative varint below 2^53 (revisions, ids, lengths); negative int64s come out huge, not exact. */
  private varint(): number {
    const buf = this.buf
    let n = 0
    let mul = 1
    for (let i = 0; i < 10; i++) {
      const c = buf[this.pos++]
      if (c === undefined) throw new Error('watch response: truncated varint')
      n += (c & 0x7f) * mul
      if (c < 0x80) return n
      mul *= 128
    }
    throw new Error('watch response: varint too long')
  }
}
