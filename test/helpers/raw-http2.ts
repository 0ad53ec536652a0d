// A bare HTTP/2 client for gRPC servers (etcd, etcdlite) that opens streams regardless of the server's
// SETTINGS and records every frame it gets: for what a misbehaving client is answered.
import { once } from 'node:events'
import { constants } from 'node:http2'
import { connect as netConnect, type Socket } from 'node:net'
import { connect as tlsConnect } from 'node:tls'
import { encodeWithoutIndexing } from '../../src/grpc/hpack.js'
import { CONNECTION_PREFACE, FRAME_HEADER_BYTES, frameHeader, FrameType } from '../../src/grpc/http2-frame-filter.js'
import { until } from './until.js'

/** A SETTINGS frame with these entries (none and flag 1: an ACK). */
export function settingsFrame(entries: ReadonlyArray<readonly [number, number]>, flags = 0): Buffer {
  const payload = Buffer.alloc(entries.length * 6)
  entries.forEach(([id, value], i) => {
    payload.writeUInt16BE(id, i * 6)
    payload.writeUInt32BE(value, i * 6 + 2)
  })
  return Buffer.concat([frameHeader(payload.length, FrameType.SETTINGS, flags, 0), payload])
}

export interface Frame {
  readonly type: number
  readonly flags: number
  readonly stream: number
  readonly payload: Buffer
}

/** The client; open() connects (TLS when given the CA to trust) and sends the preface and an empty SETTINGS. */
export class RawClient {
  readonly frames: Frame[] = []
  private buf = Buffer.alloc(0)

  private constructor(private readonly socket: Socket, private readonly authority: string, private readonly scheme: string) {
    socket.on('data', (d: Buffer) => {
      this.buf = Buffer.concat([this.buf, d])
      while (this.buf.length >= FRAME_HEADER_BYTES) {
        const len = this.buf.readUIntBE(0, 3)
        if (this.buf.length < FRAME_HEADER_BYTES + len) break
        this.frames.push({ type: this.buf[3] ?? 0, flags: this.buf[4] ?? 0, stream: this.buf.readUInt32BE(5) & 0x7fffffff, payload: this.buf.subarray(9, 9 + len) })
        this.buf = this.buf.subarray(9 + len)
      }
    })
    socket.on('error', () => undefined)
  }

  static async open(port: number, ca?: string | Buffer): Promise<RawClient> {
    const socket = ca !== undefined
      ? tlsConnect({ host: '127.0.0.1', port, ca, ALPNProtocols: ['h2'] })
      : netConnect({ host: '127.0.0.1', port })
    await once(socket, ca !== undefined ? 'secureConnect' : 'connect')
    const c = new RawClient(socket, `127.0.0.1:${port}`, ca !== undefined ? 'https' : 'http')
    socket.write(Buffer.concat([CONNECTION_PREFACE, settingsFrame([])]))
    return c
  }

  /** The value of a setting in the server's first SETTINGS frame, undefined if it sent none. */
  setting(id: number): number | undefined {
    const f = this.frames.find((x) => x.type === FrameType.SETTINGS && (x.flags & 1) === 0)
    for (let at = 0; f !== undefined && at + 6 <= f.payload.length; at += 6) if (f.payload.readUInt16BE(at) === id) return f.payload.readUInt32BE(at + 2)
    return undefined
  }

  /** The server's SETTINGS (not the ACK) has arrived. */
  async serverSettings(): Promise<void> {
    await until(() => this.frames.some((f) => f.type === FrameType.SETTINGS && (f.flags & 1) === 0), 'the server\'s SETTINGS')
  }

  ack(): void {
    this.socket.write(settingsFrame([], 1))
  }

  /** Open a stream: a Watch (stays open) or a Status call (answered at once). */
  open(stream: number, call: 'watch' | 'status'): void {
    const path = call === 'watch' ? '/etcdserverpb.Watch/Watch' : '/etcdserverpb.Maintenance/Status'
    const block = encodeWithoutIndexing([
      { name: ':method', value: 'POST' }, { name: ':scheme', value: this.scheme }, { name: ':path', value: path },
      { name: ':authority', value: this.authority }, { name: 'content-type', value: 'application/grpc' }, { name: 'te', value: 'trailers' },
    ])
    const frames = [frameHeader(block.length, FrameType.HEADERS, 0x4, stream), block]
    // Status: one empty StatusRequest message, and the end of the stream.
    if (call === 'status') frames.push(frameHeader(5, FrameType.DATA, 0x1, stream), Buffer.alloc(5))
    this.socket.write(Buffer.concat(frames))
  }

  reset(stream: number): void {
    const code = Buffer.alloc(4)
    code.writeUInt32BE(constants.NGHTTP2_CANCEL)
    this.socket.write(Buffer.concat([frameHeader(4, FrameType.RST_STREAM, 0, stream), code]))
  }

  /** RST_STREAM codes the server sent, by stream. */
  resets(): Map<number, number> {
    return new Map(this.frames.filter((f) => f.type === FrameType.RST_STREAM).map((f) => [f.stream, f.payload.readUInt32BE(0)]))
  }

  answered(stream: number): boolean {
    return this.frames.some((f) => f.type === FrameType.HEADERS && f.stream === stream)
  }

  goaway(): boolean {
    return this.frames.some((f) => f.type === FrameType.GOAWAY)
  }

  close(): void {
    this.socket.destroy()
  }
}
