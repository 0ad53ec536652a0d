// The gateway over WebSocket, as etcd serves it: etcd wraps its /v3/ gateway in grpc-websocket-proxy
// (wsproxy, with a request mutator that makes every call a POST). A WebSocket connection to a gateway path
// becomes one call of that route: each message the client sends is a line of the request body, each line
// of the response body a text message back, and the call ends when either side closes. So a browser can
// watch, keep a lease alive or observe an election over one WebSocket. The WebSocket protocol is the `ws`
// library's; what travels over it is wsproxy's:
// - the upgrade is accepted from any origin, and a Sec-WebSocket-Protocol starting with "Bearer" is
//   answered with the subprotocol "Bearer";
// - the call carries Authorization from the Sec-WebSocket-Protocol "Bearer, <token>" (as "Bearer <token>"),
//   or from a `token` cookie, and the client's Origin and Referer;
// - the response's status and headers are not sent anywhere: a failed call's error body arrives as a
//   message like any other line, and then the connection closes;
// - empty lines are skipped, and the connection is dropped, without a close frame, when the call ends.
import { PassThrough } from 'node:stream'
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { EventEmitter } from 'node:events'
import type { WebSocket, WebSocketServer } from 'ws'
import type { GatewayHandler, GatewayRequest, GatewayResponse } from './http-shapes.js'
import { JsonStreamDecoder } from './json-decoder.js'

/** wsproxy's TokenCookieName. */
const TOKEN_COOKIE = 'token'
/** Bytes queued on the WebSocket past which the call's responses wait (the HTTP/2 window's role). */
const SEND_HIGH_WATER = 1024 * 1024

/** Go's websocket.IsWebSocketUpgrade: Connection has the token "upgrade" and Upgrade has "websocket". */
export function isWebSocketUpgrade(req: IncomingMessage): boolean {
  const has = (v: string | string[] | undefined, token: string): boolean =>
    (Array.isArray(v) ? v.join(',') : (v ?? '')).split(',').some((t) => t.trim().toLowerCase() === token)
  return has(req.headers.connection, 'upgrade') && has(req.headers.upgrade, 'websocket')
}

/** wsproxy's transformSubProtocolHeader: "Bearer, <token>" (spaces or not) as "Bearer <token>", else "". */
function authorizationOf(subprotocol: string): string {
  const i = subprotocol.indexOf('Bearer,')
  return i < 0 ? '' : `Bearer ${subprotocol.slice(i + 'Bearer,'.length).trim()}`
}

/** Go's Request.Cookie(name): the first cookie of that name in the Cookie headers. */
function cookie(headers: IncomingHttpHeaders, name: string): string | undefined {
  for (const part of (headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=')
    if (eq >= 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1')
  }
  return undefined
}

/** The call a WebSocket connection makes: wsproxy's outgoing request. */
function callRequest(req: IncomingMessage): { readonly url: string; readonly method: string; readonly headers: Record<string, string> } {
  const headers: Record<string, string> = {}
  const swsp = req.headers['sec-websocket-protocol']
  if (swsp !== undefined && swsp !== '') headers['authorization'] = authorizationOf(swsp)
  for (const h of ['origin', 'referer']) {
    const v = req.headers[h]
    if (typeof v === 'string') headers[h] = v
  }
  const token = cookie(req.headers, TOKEN_COOKIE)
  if (token !== undefined) headers['authorization'] = `Bearer ${token}`
  // wsproxy's ?method= override is undone by etcd's request mutator, which makes every call a POST.
  return { url: req.url ?? '/', method: 'POST', headers }
}

/** The request side of the call: the messages received, one line each. */
class SocketRequest extends PassThrough implements GatewayRequest {
  readonly url: string
  readonly method: string
  readonly headers: IncomingHttpHeaders
  readonly rawHeaders: string[]
  readonly socket: { readonly remoteAddress?: string | undefined }
  complete = false

  constructor(call: ReturnType<typeof callRequest>, remoteAddress: string | undefined) {
    super()
    this.url = call.url
    this.method = call.method
    this.headers = call.headers
    this.rawHeaders = Object.entries(call.headers).flat()
    this.socket = { remoteAddress }
    this.once('end', () => (this.complete = true))
  }
}

/** The response side of the call: its body's lines, each sent as a text message. */
class SocketResponse extends EventEmitter implements GatewayResponse {
  headersSent = false
  destroyed = false
  private partial = ''
  private waiting = false
  /** Messages handed to the socket and not yet written. */
  private unsent = 0
  private ending = false

  constructor(private readonly ws: WebSocket) {
    super()
    ws.once('close', () => {
      this.destroyed = true
      this.emit('close')
    })
  }

  /** wsproxy's response writer keeps the status and headers to itself. */
  writeHead(): this {
    this.headersSent = true
    return this
  }

  write(chunk: string | Buffer): boolean {
    this.headersSent = true
    if (this.destroyed) return false
    const lines = (this.partial + chunk.toString()).split('\n')
    this.partial = lines.pop() ?? ''
    for (const line of lines) this.send(line)
    if (this.ws.bufferedAmount <= SEND_HIGH_WATER) return true
    this.waiting = true
    return false
  }

  end(chunk?: string | Buffer): this {
    if (chunk !== undefined) this.write(chunk)
    this.send(this.partial)
    this.partial = ''
    // wsproxy drops the connection once the call's handler returns, after what it wrote.
    this.ending = true
    if (this.unsent === 0) this.ws.terminate()
    return this
  }

  private send(line: string): void {
    if (line === '' || this.destroyed) return
    this.unsent++
    this.ws.send(line, { binary: false }, () => {
      this.unsent--
      if (this.ending && this.unsent === 0) this.ws.terminate()
      else if (this.waiting && this.ws.bufferedAmount <= SEND_HIGH_WATER) {
        this.waiting = false
        this.emit('drain')
      }
    })
  }
}

/** Serves WebSocket upgrades of gateway paths with `handler`, the gateway's own request handler. */
export class WebSocketProxy {
  private server: WebSocketServer | undefined
  private readonly open = new Set<WebSocket>()

  /**
   * `maxMessageBytes`: the largest message taken (the gateway's body limit); a larger one closes the
   * connection. `streamsRequests(path)`: whether the route reads a stream of requests; any other reads one
   * JSON value, as grpc-gateway decodes it without waiting for the body's end, so its body ends as soon as
   * the messages hold a whole value (or something that cannot start one).
   */
  constructor(
    private readonly handler: GatewayHandler,
    private readonly maxMessageBytes: number,
    private readonly streamsRequests: (path: string) => boolean,
  ) {}

  /** Take over the upgrade: the handshake, then the call, until either side ends it. */
  async handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const server = this.server ?? (this.server = await newServer(this.maxMessageBytes))
    server.handleUpgrade(req, socket, head, (ws) => this.serve(req, ws))
  }

  /** Drop every connection. */
  close(): void {
    for (const ws of this.open) ws.terminate()
    this.server?.close()
  }

  private serve(upgrade: IncomingMessage, ws: WebSocket): void {
    this.open.add(ws)
    const req = new SocketRequest(callRequest(upgrade), upgrade.socket.remoteAddress)
    const res = new SocketResponse(ws)
    const newline = Buffer.from('\n')
    const oneValue = this.streamsRequests(new URL(req.url, 'http://localhost').pathname) ? undefined : new JsonStreamDecoder()
    let held = 0
    ws.on('message', (data) => {
      if (req.writableEnded) return
      const payload = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data)
      if (oneValue !== undefined) {
        const line = Buffer.concat([payload, newline])
        oneValue.push(line)
        held += line.length
        // Past the body limit the gateway refuses the request as too large, whole value or not.
        let whole = held > this.maxMessageBytes
        try {
          whole ||= oneValue.next() !== undefined
        } catch {
          whole = true
        }
        if (whole) req.end(line)
        else req.write(line)
        return
      }
      // A call that cannot take more holds the client back: the socket stops reading until it can.
      if (!req.write(Buffer.concat([payload, newline]))) {
        ws.pause()
        req.once('drain', () => ws.resume())
      }
    })
    ws.on('error', () => ws.terminate())
    ws.once('close', () => {
      this.open.delete(ws)
      req.end()
      req.destroy()
    })
    this.handler(req, res)
  }
}

/** The ws server, loaded with the first WebSocket: gorilla's upgrader answers any origin. */
async function newServer(maxPayload: number): Promise<WebSocketServer> {
  const { WebSocketServer: Server } = await import('ws')
  return new Server({
    noServer: true,
    perMessageDeflate: false,
    // wsproxy answers the subprotocol "Bearer" when the requested ones start with it, and none otherwise.
    handleProtocols: (_protocols, req) => (req.headers['sec-websocket-protocol']?.startsWith('Bearer') === true ? 'Bearer' : false),
    maxPayload,
  })
}
