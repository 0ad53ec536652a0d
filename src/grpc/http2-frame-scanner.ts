// Frame boundaries in one direction of an HTTP/2 connection, for watching without changing anything: the
// HTTP/2 front reports the server's HEADERS, DATA and GOAWAY frames to the keep-alive enforcement as
// nghttp2 writes them. Only frame headers are read; payloads are skipped however they are chunked.
import { FRAME_HEADER_BYTES } from './http2-frame-filter.js'

/** Called with each frame's type and flags, once its 9-byte header has been seen. */
export type FrameListener = (type: number, flags: number) => void

export class Http2FrameScanner {
  /** Payload bytes of the current frame still to skip. */
  private skip = 0
  /** The start of a frame header split across writes (fewer than 9 bytes). */
  private partial: Buffer | undefined

  constructor(private readonly onFrame: FrameListener) {}

  /** Scan bytes written after the connection preface (the server sends none: it starts with SETTINGS). */
  push(chunk: Buffer): void {
    let data = this.partial === undefined ? chunk : Buffer.concat([this.partial, chunk])
    this.partial = undefined
    while (data.length > 0) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, data.length)
        this.skip -= n
        data = data.subarray(n)
        continue
      }
      if (data.length < FRAME_HEADER_BYTES) {
        this.partial = Buffer.from(data)
        return
      }
      this.skip = data.readUIntBE(0, 3)
      this.onFrame(data[3] as number, data[4] as number)
      data = data.subarray(FRAME_HEADER_BYTES)
    }
  }
}
