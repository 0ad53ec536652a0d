// WatchResponse encoding for fan-out. Hand-written for speed: a response with several events reuses the whole
// events section of an earlier response carrying the same event objects (every watcher of a key gets the
// same batch), so a watcher's response costs one copy, not one encode and copy per event. The bytes must
// stay byte-identical to protobufjs/grpc-js output, the same as watch.ts's encodeWatchResponse, which a unit
// test checks.
import type { WatchResponse } from '../etcdserver/types/watch.js'
import { lenFieldSize, writeVarint } from './protobuf.js'
import { encodeHeaderField } from './response-header.js'
import {
  cancelReasonBytes, encodeEvent, encodeWatchResponse, EVENTS_TAG, fixedSize, writeFixedFields, type WireEvent,
} from './watch.js'

/** The encoded `events` fields (tag, length and body of each) of a response, and the events they encode. */
interface EventsSection {
  /** The list it was encoded from: a response carrying that very array (shared by watchers) hits at once. */
  readonly source: readonly WireEvent[]
  /** Our own copy of the list (a queued response's array may still grow before it is serialized). */
  readonly events: readonly WireEvent[]
  readonly bytes: Uint8Array
  /** ends[i]: where event i's field ends in `bytes`. */
  readonly ends: Uint32Array
}

/**
 * Events sections recently encoded, by their first event. Bounded in entries and bytes, oldest out first:
 * it only has to live as long as one fan-out round hands the same batch to every watcher. Watchers of a key
 * that lag by different amounts get lists that start alike and end apart: the common prefix is copied from
 * the cached section in one piece and only the rest is encoded event by event.
 */
class EventsSectionCache {
  private readonly byFirst = new Map<WireEvent, EventsSection>()
  private bytes = 0

  constructor(
    private readonly maxEntries: number,
    private readonly maxBytes: number,
  ) {}

  /** The section for `events` (at least one), from the cache when the same event objects were encoded lately. */
  get(events: readonly WireEvent[]): Uint8Array {
    const first = events[0] as WireEvent
    const hit = this.byFirst.get(first)
    // Lists are never changed once a response carrying them is serialized (a queued response appends to a
    // copy of its own, and only until it is serialized); the length check is a cheap guard all the same.
    if (hit?.source === events && hit.events.length === events.length) return hit.bytes
    let k = 0
    if (hit !== undefined) {
      const n = Math.min(hit.events.length, events.length)
      while (k < n && hit.events[k] === events[k]) k++
      if (k === events.length) return k === hit.events.length ? hit.bytes : hit.bytes.subarray(0, hit.ends[k - 1])
    }
    const section = encodeSection(events, hit, k)
    // Events with prev_kv are per watcher (a fresh object each): such a section is not worth keeping.
    if (first.prevKv !== undefined || section.bytes.length > this.maxBytes) return section.bytes
    if (hit !== undefined) {
      this.byFirst.delete(first)
      this.bytes -= hit.bytes.length
    }
    while (this.byFirst.size !== 0 && (this.byFirst.size >= this.maxEntries || this.bytes + section.bytes.length > this.maxBytes)) {
      const [oldKey, old] = this.byFirst.entries().next().value as [WireEvent, EventsSection]
      this.byFirst.delete(oldKey)
      this.bytes -= old.bytes.length
    }
    this.byFirst.set(first, section)
    this.bytes += section.bytes.length
    return section.bytes
  }

  clear(): void {
    this.byFirst.clear()
    this.bytes = 0
  }
}

/** Encode `events` as a section, copying the first `k` (the same objects as `prefix`'s first k) from `prefix`. */
function encodeSection(events: readonly WireEvent[], prefix: EventsSection | undefined, k: number): EventsSection {
  const prefixLen = k === 0 || prefix === undefined ? 0 : (prefix.ends[k - 1] as number)
  let size = prefixLen
  for (let i = k; i < events.length; i++) size += lenFieldSize(encodeEvent(events[i] as WireEvent).length)
  const out = Buffer.allocUnsafeSlow(size)
  const ends = new Uint32Array(events.length)
  if (prefixLen !== 0 && prefix !== undefined) {
    out.set(prefix.bytes.subarray(0, prefixLen), 0)
    ends.set(prefix.ends.subarray(0, k), 0)
  }
  let pos = prefixLen
  for (let i = k; i < events.length; i++) {
    const b = encodeEvent(events[i] as WireEvent)
    out[pos++] = EVENTS_TAG
    pos = writeVarint(out, pos, b.length)
    out.set(b, pos)
    pos += b.length
    ends[i] = pos
  }
  return { source: events, events: events.slice(), bytes: out, ends }
}

/** 256 sections of at most 16 MiB together: room for the batches of one fan-out round, whatever its size. */
const sections = new EventsSectionCache(256, 16 * 1024 * 1024)

/** @internal For tests: forget every cached events section. */
export function clearEventsSectionCache(): void {
  sections.clear()
}

/** Encode an etcdserverpb.WatchResponse (the same bytes as watch.ts's encodeWatchResponse). */
export function encodeWatchResponseMessage(r: WatchResponse): Buffer {
  return r.events.length < 2 ? encodeWatchResponse(r) : encodeWithSection(r, false)
}

/**
 * The same bytes as encodeWatchResponseMessage, but a response with several events may be written into a
 * buffer reused by the next call: only for a caller that copies the bytes before encoding anything else.
 * grpc-js's server serializeMessage does (it frames the message into a buffer of its own at once), and the
 * response then costs no buffer of its own: a fan-out response is tens of KB, and a fresh buffer for each
 * is external memory that keeps the GC busy.
 */
export function encodeWatchResponseTransient(r: WatchResponse): Buffer {
  return r.events.length < 2 ? encodeWatchResponse(r) : encodeWithSection(r, true)
}

/** Responses up to this size are encoded into the scratch buffer; larger ones get their own. */
const SCRATCH_MAX_BYTES = 1024 * 1024
let scratch: Buffer = Buffer.allocUnsafeSlow(64 * 1024)

function encodeWithSection(r: WatchResponse, transient: boolean): Buffer {
  const header = encodeHeaderField(r.header)
  const reason = cancelReasonBytes(r)
  const section = sections.get(r.events)
  const size = fixedSize(r, header.length, reason?.length ?? 0) + section.length
  let out: Buffer
  if (!transient || size > SCRATCH_MAX_BYTES) out = Buffer.allocUnsafe(size)
  else {
    if (scratch.length < size) scratch = Buffer.allocUnsafeSlow(Math.min(SCRATCH_MAX_BYTES, 2 ** Math.ceil(Math.log2(size))))
    out = scratch.subarray(0, size)
  }
  out.set(section, writeFixedFields(out, r, header, reason))
  return out
}
