// Requests and responses of etcd's Watch service.
// Domain form: camelCase, Uint8Array keys and values, number revisions (checked safe at the edge), bigint IDs;
// optional request fields default to etcd's proto3 zero values.
import type { WatchId } from '../../pkg/watch-id.js'
import type { WireEvent, WireWatchResponse } from '../../wire/watch.js'
import type { ResponseHeader } from './header.js'

/** A watch filter: NOPUT drops PUT events, NODELETE drops DELETE events (etcd's FilterType). */
export type WatchFilter = 'NOPUT' | 'NODELETE'

/**
 * Create a watcher on a watch stream (etcd's WatchCreateRequest).
 * - key/rangeEnd: as in RangeRequest. rangeEnd absent or empty: the single key; `"\0"`: every key >= key;
 *   key empty is read as `"\0"`. key >= rangeEnd (both set) fails with "mvcc: watcher range is empty".
 * - startRevision: 0 or absent = from the next revision; <= the current revision replays history from
 *   there (below the compacted revision: a canceled response with compactRevision set); a future revision
 *   waits for it. Negative: refused with cancel_reason "etcdserver: mvcc: required revision has been
 *   compacted", as etcd does since etcd-io/etcd#20693.
 * - watchId: 0 or absent = the stream picks one (counting from 0, skipping IDs in use); another ID (any
 *   int64, negative ones too; beyond the safe integers a bigint, see WatchId) is used as is, and one already in use on the stream fails with "mvcc: duplicate watch ID provided on the
 *   WatchStream".
 * - fragment: split responses over the server's limit into several, all but the last flagged `fragment`.
 */
export interface WatchCreateRequest {
  readonly key: Uint8Array
  readonly rangeEnd?: Uint8Array
  readonly startRevision?: number
  readonly progressNotify?: boolean
  readonly filters?: readonly WatchFilter[]
  readonly prevKv?: boolean
  readonly watchId?: WatchId
  readonly fragment?: boolean
}

/** One request on a watch stream (etcd's WatchRequest oneof). */
export type WatchRequest =
  | { readonly type: 'create'; readonly request: WatchCreateRequest }
  | { readonly type: 'cancel'; readonly watchId: WatchId }
  | { readonly type: 'progress' }

export type EventType = WireEvent['type']

/**
 * A change seen by a watcher (mvccpb.Event; its wire form is wire/watch.ts). A DELETE's kv holds the
 * key and modRevision = the revision of the delete (other fields zero). prevKv: the key's value just
 * before, when the watcher asked for it and that revision is not compacted.
 */
export type WatchEvent = WireEvent

/**
 * One response on a watch stream (etcd's WatchResponse). Kinds, as etcd sends them:
 * - created: `created` true (on failure also `canceled`, watchId -1 and `cancelReason`);
 * - events: one revision's events (or up to 1000 revisions' in catch-up), in revision order;
 * - progress: no events; header.revision says everything up to it has been sent (watchId -1 when asked
 *   for with a progress request);
 * - compacted: `compactRevision` set and `canceled` true; the watcher is gone;
 * - canceled: `canceled` true after a cancel request.
 */
export interface WatchResponse extends WireWatchResponse {
  readonly header: ResponseHeader
  readonly events: readonly WatchEvent[]
}
