// The Watch service's messages, protobuf (proto-loader objects) <-> domain, the client's direction
// (connect()): it builds WatchRequests and reads WatchResponses. The server decodes and encodes them by hand
// (wire/watch.ts, wire/watch-fanout.ts).
import type { WatchCreateRequest as pb_WatchCreateRequest } from './generated/etcdserverpb/WatchCreateRequest.js'
import type { WatchRequest as pb_WatchRequest } from './generated/etcdserverpb/WatchRequest.js'
import type { WatchResponse__Output as pb_WatchResponse__Output } from './generated/etcdserverpb/WatchResponse.js'
import type { Event__Output as pb_Event__Output } from './generated/mvccpb/Event.js'
import type { WatchCreateRequest, WatchEvent, WatchRequest, WatchResponse } from '../etcdserver/types/watch.js'
import { watchIdOf } from '../pkg/watch-id.js'
import { fromPbHeader } from './convert-header.js'
import { fromPbKeyValue, kvOrZero } from './convert-kv.js'
import { big, num, opt, rangeEnd } from './convert-scalars.js'

export function toPbWatchCreateRequest(c: WatchCreateRequest): pb_WatchCreateRequest {
  return {
    key: c.key, ...rangeEnd(c.rangeEnd), ...opt('start_revision', c.startRevision),
    ...opt('progress_notify', c.progressNotify), ...opt('filters', c.filters?.slice()), ...opt('prev_kv', c.prevKv),
    ...opt('watch_id', c.watchId === undefined ? undefined : String(c.watchId)), ...opt('fragment', c.fragment),
  }
}

export function toPbWatchRequest(r: WatchRequest): pb_WatchRequest {
  switch (r.type) {
    case 'create': return { create_request: toPbWatchCreateRequest(r.request) }
    case 'cancel': return { cancel_request: { watch_id: String(r.watchId) } }
    case 'progress': return { progress_request: {} }
  }
}

function fromPbEvent(e: pb_Event__Output): WatchEvent {
  // Enums arrive by name; a number is a type our proto lacks, which no etcd sends.
  const type = e.type === 'DELETE' ? 'DELETE' : 'PUT'
  const kv = kvOrZero(e.kv)
  return e.prev_kv === null ? { type, kv } : { type, kv, prevKv: fromPbKeyValue(e.prev_kv) }
}

export function fromPbWatchResponse(r: pb_WatchResponse__Output): WatchResponse {
  return {
    header: fromPbHeader(r.header),
    watchId: watchIdOf(big(r.watch_id)),
    created: r.created,
    canceled: r.canceled,
    compactRevision: num(r.compact_revision),
    cancelReason: r.cancel_reason,
    fragment: r.fragment,
    events: r.events.map(fromPbEvent),
  }
}
