// What an informer needs from etcd: paginated, revision-pinned ranges and a revisioned watch. The embedded
// Etcd satisfies it as it is; a remote client with the same range()/watch() shape does too. Every field is
// the narrowest the informer reads, so that a client with richer types still fits.

/** A key-value pair as ranges and watch events carry it (mvccpb.KeyValue's fields that are read). */
export interface SourceKeyValue {
  readonly key: Uint8Array
  readonly value: Uint8Array
  readonly createRevision: number
  readonly modRevision: number
  readonly version: number
}

export interface SourceRangeRequest {
  readonly key: Uint8Array
  readonly rangeEnd: Uint8Array
  readonly limit: number
  /** 0: the current revision; otherwise read as of this revision. */
  readonly revision: number
}

export interface SourceRangeResponse {
  readonly header: { readonly revision: number }
  readonly kvs: readonly SourceKeyValue[]
  readonly more: boolean
}

export interface SourceWatchOptions {
  readonly key: Uint8Array
  readonly rangeEnd: Uint8Array
  readonly startRevision: number
  readonly prevKv: boolean
  readonly progressNotify: boolean
}

export interface SourceWatchEvent {
  readonly type: 'PUT' | 'DELETE'
  readonly kv: SourceKeyValue
  readonly prevKv?: SourceKeyValue
}

/**
 * One watch response: events, or none (a progress notification: every event up to header.revision has
 * been sent). `compactRevision` non-zero: the start revision was compacted and the watcher is gone.
 */
export interface SourceWatchResponse {
  readonly header: { readonly revision: number }
  readonly events: readonly SourceWatchEvent[]
  readonly compactRevision?: number
  readonly canceled?: boolean
  readonly created?: boolean
}

/** Why a watcher ended; 'compacted' (with compactRevision) is the one that makes an informer relist. */
export interface SourceWatchEnd {
  readonly reason: string
  readonly compactRevision?: number
}

/**
 * A watcher: iterate its responses until it ends (the iteration may also throw, for a transport error);
 * `closed` then says why.
 */
export interface SourceWatcher extends AsyncIterable<SourceWatchResponse> {
  readonly closed: Promise<SourceWatchEnd>
  /** Ask for a progress response (sent once every event up to the current revision has been delivered). */
  requestProgress(): void
  cancel(): Promise<void>
}

/** The subset of Etcd (and of a remote client) that informers use. */
export interface ListWatchSource {
  range(req: SourceRangeRequest): Promise<SourceRangeResponse>
  watch(opts: SourceWatchOptions): SourceWatcher
}

/** etcd's text for ErrCompacted, as the embedded server and a gRPC status both carry it. */
const COMPACTED_TEXT = 'required revision has been compacted'

/** Whether a failed range() read a revision that has been compacted (then the list starts again). */
export function isCompactedError(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false
  const e = err as { code?: unknown; message?: unknown; details?: unknown }
  if (e.code === 'COMPACTED') return true
  return [e.message, e.details].some((t) => typeof t === 'string' && t.includes(COMPACTED_TEXT))
}
