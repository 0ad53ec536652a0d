// The send half of a long-lived server stream (Watch): responses are queued and handed to HTTP/2 in batches,
// at most one batch in flight, the way the backend commits writes (group commit).
//
// grpc-js sends one message per HTTP/2 write and takes the next only when that write completes: every
// message pays a Writable round trip, a write request to nghttp2 and its completion callback, about 7 µs
// here, more than etcd spends on a whole watch response. A fan-out round gives one stream a response per
// watcher, so the writer below frames them all (gRPC's 5-byte length prefix each) into one buffer and
// writes that once to the call's HTTP/2 stream. The bytes on the wire are the same messages; only the
// number of writes changes.
//
// A write carries at most WRITE_BYTES (a larger message goes alone), and the next is framed only once it is
// done: what a slow client has not read stays queued as response objects, which share their events with
// every other watcher, not as bytes. Framed bytes belong to one stream each: a backlog framed whole would
// hold tens of MB per stream once thousands of watchers fall behind, and the GC and page faults on that
// memory would cost more than the encoding. HTTP/2 flow control sends no faster than the client reads anyway.
//
// Writing to the HTTP/2 stream needs grpc-js's call object under the public ServerDuplexStream (its
// `call`, a BaseServerInterceptingCall: `stream`, `handler.serialize`, `maybeSendMetadata()`,
// `checkCancelled()`, `maxSendMessageSize`). Its shape is checked once per call; a grpc-js that lacks any
// part gets the per-message path (call.write), which is slower but the same on the wire.
import { status, type ServerDuplexStream } from '@grpc/grpc-js'

/** Where a batch goes: written in order; `done` runs once what it took is handed to HTTP/2, or failed. */
export interface BatchOut<T> {
  /** True when batches are framed onto the HTTP/2 stream, false when each item goes through call.write. */
  readonly framed: boolean
  /**
   * Write the first items of `items` (at least one) and return how many it took; the rest wait for the next
   * batch. `done` may be called before this returns (nothing was written: the call is gone, or its first
   * message failed).
   */
  writeBatch(items: readonly T[], done: (err: Error | undefined) => void): number
}

/** The part of grpc-js's HTTP/2 stream the framed path uses. */
interface Http2Out {
  readonly destroyed: boolean
  write(chunk: Uint8Array, cb: (err?: Error | null) => void): boolean
}

/** The part of grpc-js's BaseServerInterceptingCall (1.10 and later) the framed path uses. */
interface BaseCall {
  readonly stream: Http2Out
  readonly handler: { readonly serialize: (value: unknown) => Buffer }
  readonly maxSendMessageSize: number
  maybeSendMetadata(): void
  checkCancelled(): boolean
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null

/** grpc-js's call under `call`, if it has every part the framed path needs; undefined otherwise. */
function baseCallOf(call: object): BaseCall | undefined {
  const base = (call as { call?: unknown }).call
  if (!isObject(base)) return undefined
  const { stream, handler } = base
  const fns = ['maybeSendMetadata', 'checkCancelled'] as const
  if (!fns.every((f) => typeof base[f] === 'function')) return undefined
  if (typeof base['maxSendMessageSize'] !== 'number') return undefined
  if (!isObject(stream) || typeof stream['write'] !== 'function' || typeof stream['destroyed'] !== 'boolean') return undefined
  if (!isObject(handler) || typeof handler['serialize'] !== 'function') return undefined
  return base as unknown as BaseCall
}

/** The most bytes one write carries, unless a single message is larger (it then goes alone). */
export const WRITE_BYTES = 128 * 1024

/** Shared by every stream's flush (each is synchronous): grows up to WRITE_BYTES. */
let frameScratch: Buffer = Buffer.allocUnsafeSlow(16 * 1024)

/**
 * A message that could not be sent, with the status grpc-js ends the call with in that case: INTERNAL
 * "Error serializing response" when the serializer throws, RESOURCE_EXHAUSTED "Sent message larger than
 * max (n vs. max)" over the call's max send size.
 */
export class SendError extends Error {
  constructor(readonly code: status, message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = 'SendError'
  }
}

/**
 * Frame the first of `items` with the call's own serializer (so the metrics wrapper counts each message),
 * up to WRITE_BYTES, and write them to the call's HTTP/2 stream at once. The serializer may return a buffer
 * it reuses on the next call (wire/watch-fanout.ts's transient encoding): each result is copied before the next is
 * made, and the write gets a buffer of its own.
 */
function framedOut<T>(call: BaseCall): BatchOut<T> {
  return {
    framed: true,
    writeBatch(items, done) {
      if (call.checkCancelled()) {
        done(undefined)
        return items.length
      }
      let len = 0
      let taken = 0
      let own: Buffer | undefined
      let failed: Error | undefined
      for (const item of items) {
        let msg: Buffer
        try {
          msg = call.handler.serialize(item)
        } catch (err) {
          failed = new SendError(status.INTERNAL, 'Error serializing response', { cause: err })
          break
        }
        // grpc-js counts the 5-byte prefix in the size it reports.
        if (call.maxSendMessageSize !== -1 && msg.length > call.maxSendMessageSize) {
          failed = new SendError(status.RESOURCE_EXHAUSTED, `Sent message larger than max (${msg.length + 5} vs. ${call.maxSendMessageSize})`)
          break
        }
        const size = 5 + msg.length
        if (size > WRITE_BYTES) {
          // Alone in a write of its own; after what is framed already, it waits for the next batch.
          if (taken !== 0) break
          own = Buffer.allocUnsafeSlow(size)
          frame(own, 0, msg)
          taken = 1
          break
        }
        if (len + size > WRITE_BYTES) break
        if (frameScratch.length < len + size) {
          const grown = Buffer.allocUnsafeSlow(Math.min(WRITE_BYTES, Math.max(len + size, frameScratch.length * 2)))
          grown.set(frameScratch.subarray(0, len), 0)
          frameScratch = grown
        }
        len = frame(frameScratch, len, msg)
        taken++
      }
      // A message that failed ends the call, after what came before it (as one message at a time would).
      if (failed !== undefined) taken = items.length
      const out = own ?? (len === 0 ? undefined : Buffer.from(frameScratch.subarray(0, len)))
      if (out === undefined || call.stream.destroyed) {
        done(failed)
        return items.length
      }
      call.maybeSendMetadata()
      call.stream.write(out, (err) => done(err ?? failed))
      return taken
    },
  }
}

/** Write `msg` at `at` in `out` as one gRPC message (uncompressed flag, 4-byte length); returns its end. */
function frame(out: Buffer, at: number, msg: Uint8Array): number {
  out[at] = 0
  out.writeUInt32BE(msg.length, at + 1)
  out.set(msg, at + 5)
  return at + 5 + msg.length
}

/** The per-message path: each item through grpc-js's own write; done when the last one's write completes. */
function perMessageOut<T>(call: ServerDuplexStream<unknown, T>): BatchOut<T> {
  return {
    framed: false,
    writeBatch(items, done) {
      const last = items.length - 1
      items.forEach((item, i) => {
        if (i === last) call.write(item, (err: Error | null | undefined) => done(err ?? undefined))
        else call.write(item)
      })
      return items.length
    },
  }
}

/** 'framed': onto the call's HTTP/2 stream when grpc-js allows (else per message); 'per-message': call.write. */
export type WriteMode = 'framed' | 'per-message'

/** How a call's batches are written. */
export function batchOutOf<T>(call: ServerDuplexStream<unknown, T>, mode: WriteMode = 'framed'): BatchOut<T> {
  const base = mode === 'framed' ? baseCallOf(call) : undefined
  return base === undefined ? perMessageOut(call) : framedOut(base)
}

/**
 * Queue and batch one stream's responses. Items pushed while a batch is in flight wait (and may still be
 * changed by their owner until the next batch is sealed: see `onSeal`) until it completes, then go out
 * together, as many as the output takes at once (WRITE_BYTES when framed); with nothing in flight they go
 * out on the next tick, so one fan-out round makes one batch.
 */
export class StreamWriter<T> {
  private pending: T[] = []
  /** Batches handed to `out` and not yet done (more than one only after flushNow). */
  private inFlight = 0
  private scheduled = false
  private closed = false

  /**
   * `onSent(err)`: a batch completed (err set if it failed; the writer then takes nothing more).
   * `onSeal()`: what is queued is about to be handed to `out`; after this its owner must not change it.
   */
  constructor(
    private readonly out: BatchOut<T>,
    private readonly onSent: (err: Error | undefined) => void,
    private readonly onSeal: () => void,
  ) {}

  /** Items queued and not yet handed to HTTP/2. */
  get unsent(): number {
    return this.pending.length
  }

  /** Whether a batch is being written. */
  get writing(): boolean {
    return this.inFlight !== 0
  }

  push(item: T): void {
    if (this.closed) return
    this.pending.push(item)
    if (this.inFlight === 0) this.schedule()
  }

  /** Hand whatever is queued to HTTP/2 now, even with a batch in flight (the stream is about to end). */
  flushNow(): void {
    while (!this.closed && this.pending.length !== 0) this.flush()
  }

  private schedule(): void {
    if (this.scheduled) return
    this.scheduled = true
    process.nextTick(this.flushTick)
  }

  /** Take nothing more; what is queued is dropped. */
  close(): void {
    this.closed = true
    this.pending = []
  }

  private readonly flushTick = (): void => {
    this.scheduled = false
    if (this.inFlight === 0 && !this.closed && this.pending.length !== 0) this.flush()
  }

  private flush(): void {
    this.onSeal()
    const batch = this.pending
    this.pending = []
    this.inFlight++
    // At least one item goes, whatever the output says: a flush always makes progress.
    const taken = Math.max(1, this.out.writeBatch(batch, this.written))
    if (this.closed || taken >= batch.length) return
    // What the batch did not take waits, ahead of anything pushed since (nothing, unless `done` ran already).
    this.pending = this.pending.length === 0 ? batch.slice(taken) : batch.slice(taken).concat(this.pending)
    if (this.inFlight === 0) this.schedule()
  }

  private readonly written = (err: Error | undefined): void => {
    this.inFlight--
    if (err !== undefined) this.close()
    else if (this.inFlight === 0 && !this.closed && this.pending.length !== 0) this.flush()
    this.onSent(err)
  }
}
