// The client's side of an HTTP/2 connection as frames, on its way to node:http2 (nghttp2): passed on
// unchanged, except for the two things nghttp2 would hold against clients that etcd serves.
//
// - :authority. etcdctl 3.4 sends the whole endpoint URL ("http://127.0.0.1:2379") as :authority on the
//   connections it dials per endpoint (endpoint status, hashkv, defrag, move-leader). nghttp2 checks
//   :authority in server sessions and resets such a stream with PROTOCOL_ERROR ('/' is not allowed), and
//   Node offers no way to turn its HTTP checks off; grpc-go, etcd's server, takes any :authority. The
//   first header block of a connection decides: when its :authority is a URL, every header block of the
//   connection is decoded (HPACK, with the client's dynamic table) and re-encoded for nghttp2 with the
//   URL's host:port as :authority; otherwise header blocks pass untouched and are never decoded.
// - RST_STREAM. nghttp2 (1.57 and later) answers more than 1000 RST_STREAMs from a client, refilled at 33
//   per second, with GOAWAY(INTERNAL_ERROR), its protection against rapid-reset floods; every RST_STREAM
//   it receives takes a token, whatever the stream's state. Each RST_STREAM is offered to `onReset`,
//   which may take it over (closing the stream through node:http2 itself, which costs no token); only the
//   ones it does not take reach nghttp2.
//
// Anything unexpected (a frame too large, a broken header block) goes to nghttp2 as it came, and the
// filter passes the rest of the connection untouched, so nghttp2 gives its own verdict on it.

import { encodeWithoutIndexing, HpackDecoder, HpackError, type HeaderField } from './hpack.js'

/** The HTTP/2 client connection preface (RFC 9113 section 3.4). */
export const CONNECTION_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n')

export const FRAME_HEADER_BYTES = 9
export const FrameType = { DATA: 0, HEADERS: 1, PRIORITY: 2, RST_STREAM: 3, SETTINGS: 4, PING: 6, GOAWAY: 7, CONTINUATION: 9 } as const
export const FrameFlag = { END_STREAM: 0x1, ACK: 0x1, END_HEADERS: 0x4, PADDED: 0x8, PRIORITY: 0x20 } as const

/**
 * SETTINGS_MAX_FRAME_SIZE as node:http2 announces it (its default, which grpc-js keeps): a frame the
 * filter must read whole is never larger, and re-encoded header blocks are cut into frames of this size.
 */
export const MAX_FRAME_BYTES = 16384

/** The most header-block bytes (HEADERS and CONTINUATIONs) buffered for one block before giving up on it. */
export const MAX_HEADER_BLOCK_BYTES = 1 << 20

/** Encode a frame header. */
export function frameHeader(length: number, type: number, flags: number, streamId: number): Buffer {
  const h = Buffer.allocUnsafe(FRAME_HEADER_BYTES)
  h.writeUIntBE(length, 0, 3)
  h[3] = type
  h[4] = flags
  h.writeUInt32BE(streamId & 0x7fffffff, 5)
  return h
}

/**
 * The :authority to hand nghttp2 for one a client sent: a URL's host:port (what is left after the scheme,
 * up to the first '/'), or undefined when it is not a URL and stays as it is.
 */
export function authorityOfUrl(authority: string): string | undefined {
  const m = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)/.exec(authority)
  return m === null ? undefined : m[1]
}

/** What the filter does with header blocks: not yet known (before the first), pass as they are, or rewrite. */
type HeaderMode = 'undecided' | 'pass' | 'rewrite'

/**
 * Takes an RST_STREAM for `streamId` with `code` over (true: the filter drops the frame), or leaves it to
 * nghttp2 (false).
 */
export type ResetHandler = (streamId: number, code: number) => boolean

export class Http2FrameFilter {
  private pending: Buffer = Buffer.alloc(0)
  private prefaceLeft = CONNECTION_PREFACE.length
  /** Payload bytes of the current frame still to pass through as they arrive. */
  private skip = 0
  /** Every later byte passes through untouched. */
  private passAll = false
  private headerMode: HeaderMode = 'undecided'
  private readonly decoder = new HpackDecoder()
  /** The frames of the header block being read (HEADERS, then CONTINUATIONs until END_HEADERS). */
  private block: Buffer[] = []
  private blockBytes = 0
  /** Header blocks passing untouched: inside one (its HEADERS or a CONTINUATION lacked END_HEADERS). */
  private inPassedBlock = false

  /** `onPing` hears of each PING the client sends (not its ACKs), before nghttp2 answers it. */
  constructor(private readonly onReset: ResetHandler, private readonly onPing?: () => void) {}

  /** Feed bytes from the client; returns the bytes for nghttp2 (possibly none yet). */
  push(chunk: Buffer): Buffer[] {
    if (this.passAll) return [chunk]
    const out: Buffer[] = []
    let data = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk])
    this.pending = Buffer.alloc(0)
    if (this.prefaceLeft > 0) {
      const n = Math.min(this.prefaceLeft, data.length)
      out.push(data.subarray(0, n))
      this.prefaceLeft -= n
      data = data.subarray(n)
    }
    while (data.length > 0 && !this.passAll) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, data.length)
        out.push(data.subarray(0, n))
        this.skip -= n
        data = data.subarray(n)
        continue
      }
      if (data.length < FRAME_HEADER_BYTES) break
      const length = data.readUIntBE(0, 3)
      const type = data[3] as number
      const inBlock = this.block.length > 0
      const wanted = type === FrameType.RST_STREAM || (this.headerMode !== 'pass' && (type === FrameType.HEADERS || type === FrameType.CONTINUATION))
      if (inBlock && type !== FrameType.CONTINUATION) {
        // Another frame inside a header block: a connection error that nghttp2 is to report.
        this.giveUp(out)
        break
      }
      if (!wanted) {
        if (type === FrameType.PING && ((data[4] as number) & FrameFlag.ACK) === 0) this.onPing?.()
        if (type === FrameType.HEADERS || type === FrameType.CONTINUATION) this.inPassedBlock = ((data[4] as number) & FrameFlag.END_HEADERS) === 0
        out.push(data.subarray(0, FRAME_HEADER_BYTES))
        this.skip = length
        data = data.subarray(FRAME_HEADER_BYTES)
        continue
      }
      if (length > MAX_FRAME_BYTES) {
        this.giveUp(out)
        break
      }
      if (data.length < FRAME_HEADER_BYTES + length) break
      const frame = data.subarray(0, FRAME_HEADER_BYTES + length)
      data = data.subarray(FRAME_HEADER_BYTES + length)
      if (type === FrameType.RST_STREAM) {
        // Inside a header block it is nghttp2's connection error, not a reset.
        if (this.inPassedBlock || !this.reset(frame)) out.push(frame)
      } else {
        this.headerFrame(frame, out)
      }
    }
    if (this.passAll) {
      if (data.length > 0) out.push(data)
    } else if (data.length > 0) {
      this.pending = Buffer.from(data)
    }
    return coalesce(out)
  }

  /** Offer a whole RST_STREAM frame to onReset; true when taken over. */
  private reset(frame: Buffer): boolean {
    const length = frame.readUIntBE(0, 3)
    const streamId = frame.readUInt32BE(5) & 0x7fffffff
    // Malformed (wrong length, stream 0): nghttp2's connection error.
    if (length !== 4 || streamId === 0) return false
    return this.onReset(streamId, frame.readUInt32BE(FRAME_HEADER_BYTES))
  }

  /** A whole HEADERS or CONTINUATION frame, while header blocks are still decoded. */
  private headerFrame(frame: Buffer, out: Buffer[]): void {
    const type = frame[3] as number
    if ((type === FrameType.CONTINUATION) !== (this.block.length > 0)) {
      // A CONTINUATION outside a block: nghttp2's connection error.
      this.block.push(frame)
      this.giveUp(out)
      return
    }
    this.block.push(frame)
    this.blockBytes += frame.length
    if (this.blockBytes > MAX_HEADER_BLOCK_BYTES) {
      this.giveUp(out)
      return
    }
    if (((frame[4] as number) & FrameFlag.END_HEADERS) === 0) return
    const frames = this.block
    this.block = []
    this.blockBytes = 0
    let fields: HeaderField[]
    try {
      fields = this.decoder.decode(Buffer.concat(frames.map(fragmentOf)))
    } catch (err) {
      if (!(err instanceof HpackError)) throw err
      out.push(...frames)
      this.passAll = true
      return
    }
    if (this.headerMode === 'undecided') {
      const authority = fields.find((f) => f.name === ':authority')?.value
      this.headerMode = authority !== undefined && authorityOfUrl(authority) !== undefined ? 'rewrite' : 'pass'
    }
    if (this.headerMode === 'pass') {
      out.push(...frames)
      return
    }
    out.push(...reencode(frames[0] as Buffer, fields.map(rewriteAuthority)))
  }

  /** Pass what is buffered as it came and every later byte untouched. */
  private giveUp(out: Buffer[]): void {
    out.push(...this.block)
    this.block = []
    this.blockBytes = 0
    this.passAll = true
  }
}

/**
 * Join neighbouring slices of the same memory: what passes unchanged leaves as one buffer per read, not one
 * per frame header and payload (each buffer handed on is one more call into nghttp2).
 */
function coalesce(parts: Buffer[]): Buffer[] {
  if (parts.length < 2) return parts
  const out: Buffer[] = []
  let cur = parts[0] as Buffer
  for (let i = 1; i < parts.length; i++) {
    const next = parts[i] as Buffer
    if (next.buffer === cur.buffer && cur.byteOffset + cur.length === next.byteOffset) {
      cur = Buffer.from(cur.buffer, cur.byteOffset, cur.length + next.length)
    } else {
      out.push(cur)
      cur = next
    }
  }
  out.push(cur)
  return out
}

function rewriteAuthority(f: HeaderField): HeaderField {
  if (f.name !== ':authority') return f
  const hostPort = authorityOfUrl(f.value)
  return hostPort === undefined ? f : { name: f.name, value: hostPort }
}

/** The header block fragment of a HEADERS or CONTINUATION frame, without padding and priority fields. */
function fragmentOf(frame: Buffer): Buffer {
  const flags = frame[4] as number
  let start = FRAME_HEADER_BYTES
  let end = frame.length
  if (frame[3] === FrameType.HEADERS) {
    if ((flags & FrameFlag.PADDED) !== 0) {
      const pad = frame[start] ?? 0
      start += 1
      end -= pad
    }
    if ((flags & FrameFlag.PRIORITY) !== 0) start += 5
  }
  if (start > end) throw new HpackError('padding longer than the frame')
  return frame.subarray(start, end)
}

/**
 * The frames of a header block re-encoded from `fields`: a HEADERS frame with the first frame's stream,
 * END_STREAM and priority (never padded), then CONTINUATIONs, none larger than MAX_FRAME_BYTES.
 */
function reencode(headers: Buffer, fields: readonly HeaderField[]): Buffer[] {
  const streamId = headers.readUInt32BE(5) & 0x7fffffff
  const flags = headers[4] as number
  const priority = (flags & FrameFlag.PRIORITY) !== 0
    ? headers.subarray(FRAME_HEADER_BYTES + ((flags & FrameFlag.PADDED) !== 0 ? 1 : 0), FRAME_HEADER_BYTES + ((flags & FrameFlag.PADDED) !== 0 ? 6 : 5))
    : Buffer.alloc(0)
  const block = Buffer.concat([priority, encodeWithoutIndexing(fields)])
  const out: Buffer[] = []
  for (let pos = 0, first = true; first || pos < block.length; first = false) {
    const n = Math.min(MAX_FRAME_BYTES, block.length - pos)
    const last = pos + n >= block.length
    const type = first ? FrameType.HEADERS : FrameType.CONTINUATION
    const f = (first ? flags & (FrameFlag.END_STREAM | FrameFlag.PRIORITY) : 0) | (last ? FrameFlag.END_HEADERS : 0)
    out.push(frameHeader(n, type, f, streamId), block.subarray(pos, pos + n))
    pos += n
  }
  return out
}
