// etcd's --max-concurrent-streams: the SETTINGS_MAX_CONCURRENT_STREAMS every client connection is told
// (default 2^32-1, as etcd's math.MaxUint32), and what a client that opens more streams than that gets.
//
// etcd answers the stream beyond the limit with RST_STREAM and serves the others on: REFUSED_STREAM on
// a plaintext port (grpc-go's own HTTP/2 server); on a TLS port (Go's net/http2 server, which etcd's
// https listener runs gRPC through) REFUSED_STREAM while the client has not yet acknowledged the server's
// SETTINGS, PROTOCOL_ERROR after. nghttp2, enforcing the limit it advertised, does the first but not the
// second: node:http2 answers the stream error it then reports by tearing the whole session down with
// GOAWAY(INTERNAL_ERROR). So for connections through the HTTP/2 front, nghttp2 is configured without a
// limit and the front rewrites the server's first SETTINGS frame to advertise the configured one, and
// StreamLimit refuses the streams beyond it, with etcd's codes, before grpc-js sees them. A connection
// handed to node:http2 natively (TLS with client certificate auth) has nghttp2 advertise and enforce the
// limit itself: a client exceeding it after acknowledging the SETTINGS loses the connection there.
import type { EventEmitter } from 'node:events'
import { constants, type Http2Session, type ServerHttp2Session, type ServerHttp2Stream } from 'node:http2'
import { FRAME_HEADER_BYTES, FrameType } from './http2-frame-filter.js'

/** etcd's default: math.MaxUint32, the largest value SETTINGS can carry. */
export const DEFAULT_MAX_CONCURRENT_STREAMS = 2 ** 32 - 1

const SETTINGS_MAX_CONCURRENT_STREAMS = 0x3
/** The SETTINGS frame's ACK flag. */
const ACK = 0x1

/** The open client streams of one session, and whether the client has acknowledged the server's SETTINGS. */
interface SessionStreams {
  readonly open: Set<ServerHttp2Stream>
  acked: boolean
}

/**
 * Counts each session's open streams and refuses those beyond the limit (see the file comment). `secure`:
 * the connections are TLS (net/http2's codes) rather than plaintext (grpc-go's).
 */
export class StreamLimit {
  private readonly sessions = new WeakMap<Http2Session, SessionStreams>()

  constructor(private readonly max: number, private readonly secure: boolean) {}

  /** Start counting a new session's streams. */
  attach(session: ServerHttp2Session): void {
    const s: SessionStreams = { open: new Set(), acked: false }
    this.sessions.set(session, s)
    // node:http2 emits 'localSettings' when the client acknowledges the server's SETTINGS.
    session.once('localSettings', () => {
      s.acked = true
    })
  }

  /** Whether a stream node:http2 just announced may be served; a refused one has been reset. */
  admit(stream: ServerHttp2Stream): boolean {
    const session = stream.session
    const s = session === undefined ? undefined : this.sessions.get(session)
    if (s === undefined) return true
    if (s.open.size >= this.max) {
      // A stream the client has just reset (or that just ended) is closed already though its 'close' event
      // is still to come: etcd's servers count it out at once, before reading the next frame.
      for (const o of s.open) if (o.closed || o.destroyed) s.open.delete(o)
    }
    if (s.open.size >= this.max) {
      // Closing with an error code makes node:http2 emit it on the stream, which no one else listens to.
      stream.on('error', () => undefined)
      stream.close(this.secure && s.acked ? constants.NGHTTP2_PROTOCOL_ERROR : constants.NGHTTP2_REFUSED_STREAM)
      return false
    }
    s.open.add(stream)
    stream.once('close', () => s.open.delete(stream))
    return true
  }

  /**
   * Put this limit between node:http2 and grpc-js: every 'stream' listener the http2 server has (grpc-js's)
   * hears only the streams admitted; every session is counted.
   */
  guard(http2: EventEmitter): void {
    const listeners = http2.rawListeners('stream')
    http2.removeAllListeners('stream')
    http2.on('stream', (stream: ServerHttp2Stream, ...rest: unknown[]) => {
      if (!this.admit(stream)) return
      for (const l of listeners) Reflect.apply(l, http2, [stream, ...rest])
    })
    http2.on('session', (session: ServerHttp2Session) => this.attach(session))
  }
}

/**
 * Rewrites the server's first frame, its SETTINGS, to advertise `max` concurrent streams where nghttp2
 * advertises another number (or none). Bytes are held only until that frame is whole; after it, every
 * chunk passes as it is.
 */
export class SettingsRewriter {
  private held: Buffer | undefined = Buffer.alloc(0)

  constructor(private readonly max: number) {}

  /** The first frame has passed: nothing more to rewrite. */
  get done(): boolean {
    return this.held === undefined
  }

  /** The bytes to send for `chunk` (none while the first frame is still incomplete). */
  push(chunk: Buffer): Buffer[] {
    if (this.held === undefined) return [chunk]
    const buf = this.held.length === 0 ? chunk : Buffer.concat([this.held, chunk])
    if (buf.length < FRAME_HEADER_BYTES) {
      this.held = buf
      return []
    }
    const length = buf.readUIntBE(0, 3)
    if (buf.length < FRAME_HEADER_BYTES + length) {
      this.held = buf
      return []
    }
    this.held = undefined
    const type = buf[3]
    const flags = buf[4] ?? 0
    if (type !== FrameType.SETTINGS || (flags & ACK) !== 0 || length % 6 !== 0) return [buf]
    const end = FRAME_HEADER_BYTES + length
    for (let at = FRAME_HEADER_BYTES; at < end; at += 6) {
      if (buf.readUInt16BE(at) === SETTINGS_MAX_CONCURRENT_STREAMS) {
        const out = Buffer.from(buf)
        out.writeUInt32BE(this.max, at + 2)
        return [out]
      }
    }
    // nghttp2 advertised no limit: add the entry, lengthening the frame by one setting.
    const entry = Buffer.alloc(6)
    entry.writeUInt16BE(SETTINGS_MAX_CONCURRENT_STREAMS, 0)
    entry.writeUInt32BE(this.max, 2)
    const header = Buffer.from(buf.subarray(0, FRAME_HEADER_BYTES))
    header.writeUIntBE(length + 6, 0, 3)
    return [header, buf.subarray(FRAME_HEADER_BYTES, end), entry, buf.subarray(end)]
  }
}
