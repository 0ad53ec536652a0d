// Hand-written wire codec for the Watch stream: WatchRequest decodes straight into the domain request,
// WatchResponse encodes straight from the domain response (pkg/watch-wire.ts, which reuses each event's
// bytes across watchers). A unit test checks both against protobufjs.
import { encodeWatchResponse } from '../pkg/watch-wire.js'
import { Reader, WIRE_LEN, WIRE_VARINT } from '../pkg/proto-wire.js'
import type { WatchCreateRequest, WatchFilter, WatchRequest, WatchResponse } from '../etcdserver/types.js'

/** A WatchRequest with none of create/cancel/progress set: etcd ignores it. */
export interface EmptyWatchRequest {
  readonly type: 'none'
}

export type DecodedWatchRequest = WatchRequest | EmptyWatchRequest

const EMPTY: Uint8Array = new Uint8Array(0)
/** FilterType numbers; other numbers are ignored, as etcd's FiltersFromRequest does. */
const FILTERS: readonly WatchFilter[] = ['NOPUT', 'NODELETE']

function decodeCreate(buf: Uint8Array): WatchCreateRequest {
  let key = EMPTY
  let rangeEnd = EMPTY
  let startRevision = 0
  let progressNotify = false
  const filters: WatchFilter[] = []
  let prevKv = false
  let watchId = 0
  let fragment = false
  const addFilter = (n: number): void => {
    const f = FILTERS[n]
    if (f !== undefined) filters.push(f)
  }
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
      while (!packed.done) addFilter(packed.varint())
    } else if (wt !== WIRE_VARINT) rd.skip(wt)
    else {
      switch (field) {
        case 3: startRevision = rd.varint(); break
        case 4: progressNotify = rd.bool(); break
        case 5: addFilter(rd.varint()); break
        case 6: prevKv = rd.bool(); break
        case 7: watchId = rd.varint(); break
        case 8: fragment = rd.bool(); break
        default: rd.skip(wt)
      }
    }
  }
  return { key, rangeEnd, startRevision, progressNotify, filters, prevKv, watchId, fragment }
}

function decodeCancel(buf: Uint8Array): number {
  let watchId = 0
  const rd = new Reader(buf)
  while (!rd.done) {
    const tag = rd.varint()
    if (tag === ((1 << 3) | WIRE_VARINT)) watchId = rd.varint()
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

/** Encode an etcdserverpb.WatchResponse. */
export function encodeWatchResponseMessage(r: WatchResponse): Buffer {
  return encodeWatchResponse(r)
}
