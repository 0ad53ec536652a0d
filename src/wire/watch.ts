// etcdserverpb.WatchRequest, WatchResponse and mvccpb.Event on the wire: the request decodes straight into
// the domain request, the response encodes straight from the domain response. Hand-written for speed: one
// write fans out to every matching watcher, so an event's bytes are computed once and reused for every
// response that carries it (watch-fanout.ts reuses whole events sections too). It must stay byte-identical
// to protobufjs/grpc-js output, which a unit test checks in both directions.
import type { WatchCreateRequest, WatchFilter, WatchRequest } from '../etcdserver/types/watch.js'
import { watchIdOf, type WatchId } from '../pkg/watch-id.js'
import { WATCH_FILTERS } from './enums.js'
import { keyValueSize, writeKeyValue, type WireKeyValue } from './keyvalue.js'
import {
  bigVarintSize, lenFieldSize, Reader, varintSize, writeBigVarint, writeVarint, writeVarintField, WIRE_LEN, WIRE_VARINT,
} from './protobuf.js'
import { encodeHeaderField, type WireHeader } from './response-header.js'

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
/** The tag of a WatchResponse's `events` field (11, length-delimited). */
export const EVENTS_TAG = (11 << 3) | WIRE_LEN

/** The UTF-8 bytes of a response's cancel reason; undefined when it is empty (the field is left out). */
export const cancelReasonBytes = (r: WireWatchResponse): Uint8Array | undefined =>
  r.cancelReason === '' ? undefined : textEncoder.encode(r.cancelReason)

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
  const reason = cancelReasonBytes(r)
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

/** A WatchRequest with none of create/cancel/progress set: etcd ignores it. */
export interface EmptyWatchRequest {
  readonly type: 'none'
}

export type DecodedWatchRequest = WatchRequest | EmptyWatchRequest

const EMPTY: Uint8Array = new Uint8Array(0)

/** Add the filter of FilterType number `n`; other numbers are ignored, as etcd's FiltersFromRequest does. */
function addFilter(filters: WatchFilter[], n: number): void {
  const f = WATCH_FILTERS[n]
  if (f !== undefined) filters.push(f)
}

function decodeCreate(buf: Uint8Array): WatchCreateRequest {
  let key = EMPTY
  let rangeEnd = EMPTY
  let startRevision = 0
  let progressNotify = false
  const filters: WatchFilter[] = []
  let prevKv = false
  let watchId: WatchId = 0
  let fragment = false
  const rd = new Reader(buf)
  while (!rd.done) {
    const tag = rd.varint()
    const field = Math.floor(tag / 8)
    const wt = tag & 7
    // Copies (the message buffer must not be kept alive by a watcher); Buffer.from packs small keys into
    // Node's shared pool instead of one ArrayBuffer each.
    if (wt === WIRE_LEN && field === 1) key = Buffer.from(rd.bytes())
    else if (wt === WIRE_LEN && field === 2) rangeEnd = Buffer.from(rd.bytes())
    else if (wt === WIRE_LEN && field === 5) {
      // Packed repeated enum (proto3's default encoding).
      const packed = new Reader(rd.bytes())
      while (!packed.done) addFilter(filters, packed.varint())
    } else if (wt !== WIRE_VARINT) rd.skip(wt)
    else {
      switch (field) {
        case 3: startRevision = rd.varint(); break
        case 4: progressNotify = rd.bool(); break
        case 5: addFilter(filters, rd.varint()); break
        case 6: prevKv = rd.bool(); break
        case 7: watchId = watchIdOf(rd.bigVarint()); break
        case 8: fragment = rd.bool(); break
        default: rd.skip(wt)
      }
    }
  }
  return { key, rangeEnd, startRevision, progressNotify, filters, prevKv, watchId, fragment }
}

function decodeCancel(buf: Uint8Array): WatchId {
  let watchId: WatchId = 0
  const rd = new Reader(buf)
  while (!rd.done) {
    const tag = rd.varint()
    if (tag === ((1 << 3) | WIRE_VARINT)) watchId = watchIdOf(rd.bigVarint())
    else rd.skip(tag & 7)
  }
  return watchId
}

/** Decode an etcdserverpb.WatchRequest; of several request_union members on the wire the last wins. */
export function decodeWatchRequest(buf: Uint8Array): DecodedWatchRequest {
  let req: DecodedWatchRequest = { type: 'none' }
  const rd = new Reader(buf)
  while (!rd.done) {
    const tag = rd.varint()
    const field = Math.floor(tag / 8)
    const wt = tag & 7
    if (wt === WIRE_LEN && field === 1) req = { type: 'create', request: decodeCreate(rd.bytes()) }
    else if (wt === WIRE_LEN && field === 2) req = { type: 'cancel', watchId: decodeCancel(rd.bytes()) }
    else if (wt === WIRE_LEN && field === 3) {
      rd.bytes()
      req = { type: 'progress' }
    } else rd.skip(wt)
  }
  return req
}
