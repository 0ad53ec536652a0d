// etcdserverpb.WatchResponse and mvccpb.Event on the wire. Hand-written: one write fans out to every
// matching watcher, so an event's bytes are computed once and reused for every response that carries it.
import { encodeHeaderField, type WireHeader } from './header-wire.js'
import { keyValueSize, writeKeyValue, type WireKeyValue } from './keyvalue-wire.js'
import { bigVarintSize, lenFieldSize, varintSize, writeBigVarint, writeVarint, writeVarintField, WIRE_LEN, WIRE_VARINT } from './proto-wire.js'
import type { WatchId } from './watch-id.js'

/** The fields of mvccpb.Event (structurally the domain WatchEvent). */
export interface WireEvent {
  readonly type: 'PUT' | 'DELETE'
  readonly kv: WireKeyValue
  readonly prevKv?: WireKeyValue
}

/** The fields of etcdserverpb.WatchResponse (structurally the domain WatchResponse). */
export interface WireWatchResponse {
  readonly header: WireHeader
  readonly watchId: WatchId
  readonly created: boolean
  readonly canceled: boolean
  readonly compactRevision: number
  readonly cancelReason: string
  readonly fragment: boolean
  readonly events: readonly WireEvent[]
}

/** Encoded events without prev_kv, by identity: the same event object is shared by every watcher it reaches. */
const eventBytes = new WeakMap<WireEvent, Uint8Array>()

/** The encoded body of an Event (without its field tag and length). */
export function encodeEvent(ev: WireEvent): Uint8Array {
  const cached = ev.prevKv === undefined ? eventBytes.get(ev) : undefined
  if (cached !== undefined) return cached
  const kvSize = keyValueSize(ev.kv)
  const prevSize = ev.prevKv === undefined ? -1 : keyValueSize(ev.prevKv)
  const size = (ev.type === 'DELETE' ? 2 : 0) + lenFieldSize(kvSize) + (prevSize < 0 ? 0 : lenFieldSize(prevSize))
  const out = new Uint8Array(size)
  let pos = 0
  if (ev.type === 'DELETE') pos = writeVarintField(out, pos, 1, 1)
  out[pos++] = (2 << 3) | WIRE_LEN
  pos = writeVarint(out, pos, kvSize)
  pos = writeKeyValue(out, pos, ev.kv)
  if (ev.prevKv !== undefined) {
    out[pos++] = (3 << 3) | WIRE_LEN
    pos = writeVarint(out, pos, prevSize)
    writeKeyValue(out, pos, ev.prevKv)
  }
  if (ev.prevKv === undefined) eventBytes.set(ev, out)
  return out
}

const textEncoder = new TextEncoder()
const EVENTS_TAG = (11 << 3) | WIRE_LEN

/** Encoded size of a WatchResponse's fields other than its events (header and cancel reason already encoded). */
export function fixedSize(r: WireWatchResponse, headerLen: number, reasonLen: number): number {
  return headerLen + (r.watchId ? 1 + (typeof r.watchId === 'bigint' ? bigVarintSize(r.watchId) : varintSize(r.watchId)) : 0) + (r.created ? 2 : 0) + (r.canceled ? 2 : 0) +
    (r.compactRevision ? 1 + varintSize(r.compactRevision) : 0) + (reasonLen ? lenFieldSize(reasonLen) : 0) + (r.fragment ? 2 : 0)
}

/**
 * Write a WatchResponse's fields other than its events (fields 1 to 7) at the start of `out`, with the
 * header and cancel reason already encoded; returns the position after them (where the events go).
 */
export function writeFixedFields(out: Uint8Array, r: WireWatchResponse, header: Uint8Array, reason: Uint8Array | undefined): number {
  out.set(header, 0)
  let pos = header.length
  if (typeof r.watchId === 'bigint') {
    out[pos++] = (2 << 3) | WIRE_VARINT
    pos = writeBigVarint(out, pos, r.watchId)
  } else if (r.watchId) pos = writeVarintField(out, pos, 2, r.watchId)
  if (r.created) pos = writeVarintField(out, pos, 3, 1)
  if (r.canceled) pos = writeVarintField(out, pos, 4, 1)
  if (r.compactRevision) pos = writeVarintField(out, pos, 5, r.compactRevision)
  if (reason !== undefined) {
    out[pos++] = (6 << 3) | WIRE_LEN
    pos = writeVarint(out, pos, reason.length)
    out.set(reason, pos)
    pos += reason.length
  }
  if (r.fragment) pos = writeVarintField(out, pos, 7, 1)
  return pos
}

/** Encoded size of a WatchResponse (what etcd's fragmenting compares with its limit). */
export function watchResponseSize(r: WireWatchResponse): number {
  let size = fixedSize(r, encodeHeaderField(r.header).length, Buffer.byteLength(r.cancelReason))
  for (const ev of r.events) size += lenFieldSize(encodeEvent(ev).length)
  return size
}

/** Encode a WatchResponse; the header is always written, as etcd sends a non-nil one. */
export function encodeWatchResponse(r: WireWatchResponse): Buffer {
  const header = encodeHeaderField(r.header)
  const reason = r.cancelReason === '' ? undefined : textEncoder.encode(r.cancelReason)
  let size = fixedSize(r, header.length, reason?.length ?? 0)
  const evs: Uint8Array[] = new Array<Uint8Array>(r.events.length)
  for (let i = 0; i < r.events.length; i++) {
    const b = encodeEvent(r.events[i] as WireEvent)
    evs[i] = b
    size += lenFieldSize(b.length)
  }
  const out = Buffer.allocUnsafe(size)
  let pos = writeFixedFields(out, r, header, reason)
  for (const b of evs) {
    out[pos++] = EVENTS_TAG
    pos = writeVarint(out, pos, b.length)
    out.set(b, pos)
    pos += b.length
  }
  return out
}
