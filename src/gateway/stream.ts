// grpc-gateway's streaming calls (the generated request_* functions for Watch, LeaseKeepAlive, Snapshot and
// Observe, and ForwardResponseStream): the response is chunked, one {"result":...} object and a newline per
// message, each sent as it arrives. A bidirectional call reads the body as a stream of JSON requests: the
// first is decoded before anything else happens (a bad one answers 500, Unknown, in the unary shape, as
// grpc-gateway reports a decode error it does not wrap); each later one is sent as it completes; the end of
// the body, or a later bad request, half-closes the call (a watch stays open; a keep-alive ends). A call the
// server fails, even before any message, ends with an {"error":{...}} chunk (with the HTTP status of its
// code if nothing was written yet): etcd's gateway reads a Trailers-Only answer's headers as received and
// learns of the error from the first Recv, in ForwardResponseStream. Backpressure
// runs both ways: a slow HTTP reader pauses the gRPC stream (HTTP/2 flow control then holds the server),
// and a server that stops taking requests pauses the body. The client's going away cancels the call.
import type { GatewayRequest, GatewayResponse } from './http-shapes.js'
import type * as grpc from '@grpc/grpc-js'
import { status } from '@grpc/grpc-js'
import type protobuf from 'protobufjs'
import { errorBody, httpStatusFromCode, streamErrorChunk, type GatewayStatus } from './errors.js'
import { EOF, JsonStreamDecoder, JsonSyntaxError } from './json-decoder.js'
import { unmarshalMessage } from './jsonpb-unmarshal.js'
import { marshalMessage } from './jsonpb-marshal.js'
import { BODY_TOO_LARGE } from './body.js'
import { errorMessage } from '../pkg/as-error.js'

/** The gRPC call a stream forwards: readable (responses as Buffers), and writable for a bidi call. */
export type GatewayCall = grpc.ClientReadableStream<Buffer> | grpc.ClientDuplexStream<Buffer, Buffer>

/** Headers every successful gateway response carries: JSON, and the server's content type as grpc-gateway forwards it. */
export const RESPONSE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'application/json',
  'Grpc-Metadata-Content-Type': 'application/grpc',
}

/** Answer a failed call in the unary shape (3.4's key order with `v34`). */
export function writeError(res: GatewayResponse, s: GatewayStatus, v34 = false): void {
  if (res.headersSent) {
    res.end()
    return
  }
  const body = errorBody(s, v34)
  res.writeHead(httpStatusFromCode(s.code), { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) })
  res.end(body)
}

/** A grpc-js error (or anything thrown) as a status. */
export function statusOf(err: unknown): GatewayStatus {
  const e = err as Partial<grpc.ServiceError>
  if (typeof e.code === 'number') return { code: e.code, message: e.details ?? '' }
  return { code: status.UNKNOWN, message: errorMessage(err) }
}

/**
 * Forward `call`'s responses to `res` until it ends; cancel it when the client goes away. `onDone` runs once
 * when the exchange is over, however it ends.
 */
export function forwardResponses(
  call: GatewayCall, responseType: protobuf.Type, res: GatewayResponse, onDone: () => void, headerMetadata: boolean,
): void {
  // grpc-gateway forwards the server's headers only when it waited for them: not after an empty body.
  const okHeaders = headerMetadata ? RESPONSE_HEADERS : { 'Content-Type': 'application/json' }
  let wrote = false
  let done = false
  const finish = (): void => {
    if (done) return
    done = true
    res.off('close', onClose)
    res.off('drain', onDrain)
    onDone()
  }
  const onClose = (): void => {
    if (!done) call.cancel()
    finish()
  }
  const onDrain = (): void => {
    call.resume()
  }
  res.on('close', onClose)
  res.on('drain', onDrain)
  call.on('data', (buf: Buffer) => {
    if (done) return
    let chunk: string
    try {
      chunk = `{"result":${marshalMessage(responseType, responseType.decode(buf))}}\n`
    } catch (err) {
      call.cancel()
      failed(statusOf(err))
      return
    }
    if (!wrote) res.writeHead(200, okHeaders)
    wrote = true
    if (!res.write(chunk)) call.pause()
  })
  const failed = (s: GatewayStatus): void => {
    if (!wrote) res.writeHead(httpStatusFromCode(s.code), { 'Content-Type': 'application/json' })
    res.end(streamErrorChunk(s))
    finish()
  }
  call.on('error', (err: unknown) => {
    if (done) return
    failed(statusOf(err))
  })
  call.on('status', (s: grpc.StatusObject) => {
    if (done || s.code !== status.OK) return
    // A clean end: the last data event has come before 'status' (grpc-js emits them in order).
    if (!wrote) res.writeHead(200, okHeaders)
    res.end()
    finish()
  })
}

/** Why the body's requests stopped: its end, or a request that could not be read. */
type SendEnd = { readonly eof: true } | { readonly eof: false; readonly error: GatewayStatus }

/**
 * Feed the JSON requests of `req`'s body to a bidi `call`. `onFirst` hears how the first request went (an
 * error there fails the whole exchange); later failures only half-close the call, as grpc-gateway's
 * send loop does. A value larger than `maxValueBytes` is a failure of its own.
 */
export function sendRequests(
  req: GatewayRequest, call: grpc.ClientDuplexStream<Buffer, Buffer>, requestType: protobuf.Type, maxValueBytes: number,
  onFirst: (end: SendEnd | undefined) => void,
): void {
  const dec = new JsonStreamDecoder()
  let first = true
  let stopped = false
  const stop = (end: SendEnd): void => {
    stopped = true
    req.off('data', onData)
    req.off('end', onEnd)
    // The rest of the body is read and dropped: the response goes on.
    req.resume()
    if (first) {
      first = false
      onFirst(end)
      if (end.eof) call.end()
      return
    }
    call.end()
  }
  const pump = (): void => {
    while (!stopped) {
      let v
      try {
        v = dec.next()
      } catch (err) {
        stop({ eof: false, error: { code: status.UNKNOWN, message: err instanceof JsonSyntaxError ? err.message : String(err) } })
        return
      }
      if (v === undefined) {
        if (dec.buffered > maxValueBytes) stop({ eof: false, error: { code: status.UNKNOWN, message: BODY_TOO_LARGE } })
        return
      }
      if (v === EOF) {
        stop({ eof: true })
        return
      }
      let buf: Uint8Array
      try {
        buf = requestType.encode(requestType.fromObject(unmarshalMessage(requestType, v))).finish()
      } catch (err) {
        stop({ eof: false, error: { code: status.UNKNOWN, message: errorMessage(err) } })
        return
      }
      const more = call.write(Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength))
      if (first) {
        first = false
        onFirst(undefined)
      }
      if (!more) {
        req.pause()
        call.once('drain', () => req.resume())
      }
    }
  }
  const onData = (c: Buffer): void => {
    dec.push(c)
    pump()
  }
  const onEnd = (): void => {
    dec.end()
    pump()
  }
  req.on('data', onData)
  req.on('end', onEnd)
}
