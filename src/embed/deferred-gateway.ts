// The JSON gateway of one listener (gateway/gateway.ts), loaded by the first request it serves: its module,
// protobufjs and the protos it reads cost start-up time and memory that a server no one sends JSON to never
// needs. Until then it only records what it is to dial; once loaded, it is the gateway.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { ChannelCredentials } from '@grpc/grpc-js'
import type { GrpcGateway } from '../gateway/gateway.js'

export interface DeferredGatewayOptions {
  /** The server's --max-request-bytes (the gateway's body limit follows from it). */
  readonly maxRequestBytes: number
  /** Whether the server reports a 3.4 version (see GrpcGatewayOptions.reports34). */
  readonly reports34: () => boolean
  /** Told if the gateway cannot be loaded; the request gets a 500. */
  readonly report: (err: unknown) => void
}

export class DeferredGateway {
  private readonly opts: DeferredGatewayOptions
  private gateway: GrpcGateway | undefined
  private loading: Promise<GrpcGateway> | undefined
  private dial: { readonly target: string; readonly credentials: ChannelCredentials } | undefined
  private closed = false

  constructor(opts: DeferredGatewayOptions) {
    this.opts = opts
  }

  /** GrpcGateway.connect(), now if loaded, else when it is. */
  connect(target: string, credentials: ChannelCredentials): void {
    this.dial = { target, credentials }
    this.gateway?.connect(target, credentials)
  }

  /** GrpcGateway.close(): a gateway loaded afterwards never connects, and answers as a closed one does. */
  close(): void {
    this.closed = true
    this.gateway?.close()
  }

  /** GrpcGateway.serve, once loaded. The request's body waits, unread, meanwhile. */
  readonly serve: RequestListener = (req, res) => {
    if (this.gateway !== undefined) return this.gateway.serve(req, res)
    this.loading ??= this.load()
    this.loading.then((g) => g.serve(req, res), (err: unknown) => {
      this.opts.report(err)
      failed(res)
    })
  }

  /** GrpcGateway's WebSocket proxy takes the connection, once loaded; its bytes wait meanwhile. */
  readonly upgrade = (req: IncomingMessage, socket: Socket, head: Buffer): void => {
    this.loading ??= this.load()
    this.loading.then((g) => g.webSocket.handleUpgrade(req, socket, head)).catch((err: unknown) => {
      this.opts.report(err)
      socket.destroy()
    })
  }

  private async load(): Promise<GrpcGateway> {
    const { GrpcGateway, gatewayBodyLimit } = await import('../gateway/gateway.js')
    const g = new GrpcGateway({ maxBodyBytes: gatewayBodyLimit(this.opts.maxRequestBytes), reports34: this.opts.reports34 })
    if (this.dial !== undefined && !this.closed) g.connect(this.dial.target, this.dial.credentials)
    this.gateway = g
    return g
  }
}

function failed(res: ServerResponse): void {
  if (res.headersSent) {
    res.destroy()
    return
  }
  res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' })
  res.end('Internal Server Error\n')
}
