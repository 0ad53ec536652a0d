// The JSON gateway on the client port (etcd's grpc-gateway, registered by embed/serve.go): HTTP/1.1 POSTs
// under /v3/ with a JSON body become gRPC calls, and their answers JSON. As in etcd, the gateway is a gRPC
// client of the server's own listener: every call goes through the same services as any other client's,
// so auth, quotas, metrics, limits and errors are theirs. The pieces: routes.ts (the path table),
// json-decoder.ts and jsonpb-*.ts (the JSON codec, driven by the protos), errors.ts (statuses and error
// bodies), metadata.ts (headers to gRPC metadata), stream.ts (streaming calls).
import * as grpc from '@grpc/grpc-js'
import { clean } from '../pkg/go-path.js'
import { readBody, BodyTooLargeError } from './body.js'
import type { GatewayStatus } from './errors.js'
import type { GatewayHandler, GatewayRequest, GatewayResponse } from './http-shapes.js'
import { WebSocketProxy } from './websocket-proxy.js'
import { EOF, JsonStreamDecoder, JsonSyntaxError } from './json-decoder.js'
import { marshalMessage } from './jsonpb-marshal.js'
import { JsonpbError, unmarshalMessage } from './jsonpb-unmarshal.js'
import { annotate } from './metadata.js'
import { gatewayRoutes, type Route } from './routes.js'
import { forwardResponses, RESPONSE_HEADERS, sendRequests, statusOf, writeError } from './stream.js'

export interface GrpcGatewayOptions {
  /**
   * The largest request body (or, in a streaming call, the largest single JSON request) read, in bytes.
   * etcd reads bodies whole without a limit; a body that large could never make a request the server
   * takes anyway (see GATEWAY_BODY_LIMIT).
   */
  readonly maxBodyBytes: number
  /** Whether the server reports a 3.4 version: error bodies then take grpc-gateway v1.9's key order. Default: never. */
  readonly reports34?: () => boolean
}

/**
 * The body limit for a server taking requests of up to `maxRequestBytes`: base64 makes bytes 4/3 as long, so
 * 4 times the limit plus 1 MiB leaves room for field names, white space and escapes.
 */
export function gatewayBodyLimit(maxRequestBytes: number): number {
  return 4 * maxRequestBytes + 1024 * 1024
}

const identity = (b: Buffer): Buffer => b

/** Go's http.Error. */
function httpError(res: GatewayResponse, code: number, msg: string): void {
  res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' })
  res.end(`${msg}\n`)
}

/** Go's ServeMux redirect to a cleaned path (301, with a link for GET). */
function redirect(req: GatewayRequest, res: GatewayResponse, to: string): void {
  const headers: Record<string, string> = { Location: to }
  if (req.method === 'GET' || req.method === 'HEAD') headers['Content-Type'] = 'text/html; charset=utf-8'
  res.writeHead(301, headers)
  res.end(req.method === 'GET' ? `<a href="${to}">Moved Permanently</a>.\n\n` : undefined)
}

/** A decoded and encoded request, or the status refusing it. */
function encodeRequest(route: Route, body: Buffer): Buffer | GatewayStatus {
  const dec = new JsonStreamDecoder()
  dec.push(body)
  dec.end()
  try {
    const v = dec.next()
    const obj = v === EOF || v === undefined ? {} : unmarshalMessage(route.requestType, v)
    const buf = route.requestType.encode(route.requestType.fromObject(obj)).finish()
    return Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength)
  } catch (err) {
    if (err instanceof JsonSyntaxError || err instanceof JsonpbError) return { code: grpc.status.INVALID_ARGUMENT, message: err.message }
    throw err
  }
}

/**
 * The gateway: connect() it to the gRPC listener, serve /v3/ requests with `serve` (after /v3beta/ is
 * rewritten to /v3/), close() it when the listener stops.
 */
export class GrpcGateway {
  private readonly maxBodyBytes: number
  private readonly routes = gatewayRoutes()
  private client: grpc.Client | undefined
  /** Cancels of the calls in flight, so that close() leaves none. */
  private readonly open = new Set<() => void>()

  private readonly v34: () => boolean
  /** WebSocket connections to gateway paths, each one call of the route (etcd's wsproxy). */
  readonly webSocket: WebSocketProxy

  constructor(opts: GrpcGatewayOptions) {
    this.maxBodyBytes = opts.maxBodyBytes
    this.v34 = opts.reports34 ?? (() => false)
    this.webSocket = new WebSocketProxy((req, res) => this.serve(req, res), opts.maxBodyBytes, (path) => this.routes.get(path)?.kind === 'bidi')
  }

  /** Dial the gRPC server (etcd: the client listener's own address; a TLS listener with TLS that trusts it). */
  connect(target: string, credentials: grpc.ChannelCredentials): void {
    this.client?.close()
    this.client = new grpc.Client(target, credentials, {
      'grpc.max_receive_message_length': -1,
      'grpc.max_send_message_length': -1,
      'grpc.enable_channelz': 0,
      'grpc.enable_retries': 0,
    })
  }

  /** Cancel every call in flight and close the connection. */
  close(): void {
    this.webSocket.close()
    for (const cancel of [...this.open]) cancel()
    this.client?.close()
    this.client = undefined
  }

  /** Serves a request whose path starts with /v3 (grpc-gateway's ServeMux behind Go's ServeMux). */
  readonly serve: GatewayHandler = (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost')
    const path = url.pathname
    // Go's ServeMux: "/v3" redirects to the subtree, and a path that is not clean to its clean form.
    if (path === '/v3') return redirect(req, res, `/v3/${url.search}`)
    let cleaned = clean(path)
    if (path.endsWith('/') && cleaned !== '/') cleaned += '/'
    if (cleaned !== path) return redirect(req, res, cleaned + url.search)
    const route = this.routes.get(path)
    if (route === undefined) return httpError(res, 404, 'Not Found')
    if (req.method !== 'POST') return httpError(res, 405, 'Method Not Allowed')
    const client = this.client
    if (client === undefined) return writeError(res, { code: grpc.status.UNAVAILABLE, message: 'grpc: the client connection is closing' }, this.v34())
    const ann = annotate(req)
    if ('error' in ann) return writeError(res, ann.error, this.v34())
    const options: grpc.CallOptions = ann.deadline === undefined ? {} : { deadline: ann.deadline }
    if (route.kind === 'bidi') return this.bidi(client, route, req, res, ann.metadata, options)
    this.readAndCall(client, route, req, res, ann.metadata, options).catch((err: unknown) => writeError(res, statusOf(err), this.v34()))
  }

  private async readAndCall(
    client: grpc.Client, route: Route, req: GatewayRequest, res: GatewayResponse, md: grpc.Metadata, options: grpc.CallOptions,
  ): Promise<void> {
    let body: Buffer
    try {
      body = await readBody(req, this.maxBodyBytes)
    } catch (err) {
      if (err instanceof BodyTooLargeError) writeError(res, { code: grpc.status.INVALID_ARGUMENT, message: err.message }, this.v34())
      // Otherwise the client went away: nobody to answer.
      return
    }
    const encoded = encodeRequest(route, body)
    if (!Buffer.isBuffer(encoded)) return writeError(res, encoded, this.v34())
    if (route.kind === 'server-stream') {
      const call = client.makeServerStreamRequest(route.method, identity, identity, encoded, md, options)
      const cancel = (): void => call.cancel()
      this.open.add(cancel)
      forwardResponses(call, route.responseType, res, () => this.open.delete(cancel), true)
      return
    }
    let done = false
    const call = client.makeUnaryRequest(route.method, identity, identity, encoded, md, options, (err, value) => {
      done = true
      this.open.delete(cancel)
      res.off('close', onClose)
      if (err !== null || value === undefined) return writeError(res, statusOf(err), this.v34())
      let json: string
      try {
        json = marshalMessage(route.responseType, route.responseType.decode(value))
      } catch (e) {
        return writeError(res, statusOf(e), this.v34())
      }
      res.writeHead(200, { ...RESPONSE_HEADERS, 'Content-Length': String(Buffer.byteLength(json)) })
      res.end(json)
    })
    const cancel = (): void => call.cancel()
    const onClose = (): void => {
      if (!done) call.cancel()
    }
    this.open.add(cancel)
    res.on('close', onClose)
  }

  private bidi(client: grpc.Client, route: Route, req: GatewayRequest, res: GatewayResponse, md: grpc.Metadata, options: grpc.CallOptions): void {
    const call = client.makeBidiStreamRequest(route.method, identity, identity, md, options)
    const cancel = (): void => call.cancel()
    this.open.add(cancel)
    // Errors before forwarding starts are answered by sendRequests' first failure.
    const ignore = (): void => {}
    call.on('error', ignore)
    const onClose = (): void => {
      call.cancel()
      this.open.delete(cancel)
    }
    res.once('close', onClose)
    sendRequests(req, call, route.requestType, this.maxBodyBytes, (end) => {
      res.off('close', onClose)
      if (end !== undefined && !end.eof) {
        call.cancel()
        this.open.delete(cancel)
        writeError(res, end.error, this.v34())
        return
      }
      if (res.destroyed) {
        onClose()
        return
      }
      forwardResponses(call, route.responseType, res, () => {
        this.open.delete(cancel)
        call.off('error', ignore)
      }, end === undefined)
    })
  }
}
