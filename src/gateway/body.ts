// Reading a unary call's request body, bounded: grpc-gateway reads the whole body before decoding it, and
// so does this, up to a limit, past which the request fails as Go's http.MaxBytesReader fails it.
import type { GatewayRequest } from './http-shapes.js'

/** The error text of Go's http.MaxBytesReader, which the gateway reports as InvalidArgument. */
export const BODY_TOO_LARGE = 'http: request body too large'

/** A body over the limit. */
export class BodyTooLargeError extends Error {
  override name = 'BodyTooLargeError'
  constructor() {
    super(BODY_TOO_LARGE)
  }
}

/**
 * The body, whole; rejects with BodyTooLargeError past `limit` bytes (the rest is read and dropped, so the
 * connection stays usable), or with the stream's error if the client goes away.
 */
export function readBody(req: GatewayRequest, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let over = false
    req.on('data', (c: Buffer) => {
      if (over) return
      size += c.length
      if (size > limit) {
        over = true
        chunks.length = 0
        return
      }
      chunks.push(c)
    })
    req.once('end', () => (over ? reject(new BodyTooLargeError()) : resolve(Buffer.concat(chunks))))
    req.once('error', reject)
    req.once('close', () => {
      if (!req.complete) reject(new Error('request body aborted'))
    })
  })
}
