// What the gateway reads of a request and writes to a response: node:http's IncomingMessage and
// ServerResponse have these members, and so do the request and response the WebSocket proxy makes for a
// WebSocket connection (websocket-proxy.ts), which reach the same routes.
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http'

export interface GatewayRequest {
  readonly url?: string | undefined
  readonly method?: string | undefined
  readonly headers: IncomingHttpHeaders
  readonly rawHeaders: string[]
  readonly socket: { readonly remoteAddress?: string | undefined }
  /** The whole body has been received. */
  readonly complete: boolean
  on(event: 'data', listener: (chunk: Buffer) => void): this
  on(event: 'end' | 'close', listener: () => void): this
  on(event: 'error', listener: (err: Error) => void): this
  once(event: 'end' | 'close', listener: () => void): this
  once(event: 'error', listener: (err: Error) => void): this
  off(event: 'data', listener: (chunk: Buffer) => void): this
  off(event: 'end' | 'close', listener: () => void): this
  pause(): this
  resume(): this
}

export interface GatewayResponse {
  readonly headersSent: boolean
  readonly destroyed: boolean
  writeHead(status: number, headers?: OutgoingHttpHeaders): this
  /** False: stop writing until 'drain'. */
  write(chunk: string | Buffer): boolean
  end(chunk?: string | Buffer): this
  on(event: 'close' | 'drain', listener: () => void): this
  once(event: 'close' | 'drain', listener: () => void): this
  off(event: 'close' | 'drain', listener: () => void): this
}

/** A request handler of the gateway's. */
export type GatewayHandler = (req: GatewayRequest, res: GatewayResponse) => void
