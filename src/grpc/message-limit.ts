// The status of a message over gRPC's size limits, as grpc-go words it, because clients match on the text.
// A request over the receive limit (etcd's --max-request-bytes plus gRPC's overhead): grpc-go answers
// RESOURCE_EXHAUSTED "grpc: received message larger than max (N vs. M)"; grpc-js refuses it itself, from
// the length prefix and before buffering any of it, with the same code and "Received message larger than
// max (N vs M)". A response over the send limit (2^31 - 1 bytes in both): grpc-go answers "grpc: trying to
// send message larger than max (N vs. M)" on a unary call and the same without "grpc: " on a stream,
// counting the message alone; grpc-js says "Sent message larger than max (N vs. M)" counting its 5-byte
// frame header too. grpc-js sends both statuses from inside its own call object, past every interceptor's
// responder, so this interceptor rewrites them on the call object grpc-js sends them from.
import { status, type ServerInterceptingCall, type ServerInterceptor } from '@grpc/grpc-js'

/** The status a server call sends (grpc-js's PartialStatusObject, which its index does not export). */
type PartialStatusObject = Parameters<Parameters<ServerInterceptor>[1]['sendStatus']>[0]

const GRPC_JS_RECEIVED_TOO_LARGE = /^Received message larger than max \((\d+) vs (\d+)\)$/
const GRPC_JS_SENT_TOO_LARGE = /^Sent message larger than max \((\d+) vs\. (\d+)\)$/
/** The gRPC frame header grpc-js counts in a sent message's length: a flag byte and a 4-byte length. */
const FRAME_HEADER_BYTES = 5

/** grpc-go's status for what grpc-js refused as too large; any other status unchanged. */
export function messageLimitStatus(s: PartialStatusObject, unary: boolean): PartialStatusObject {
  if (s.code !== status.RESOURCE_EXHAUSTED) return s
  const details = s.details ?? ''
  const received = GRPC_JS_RECEIVED_TOO_LARGE.exec(details)
  if (received !== null) return { ...s, details: `grpc: received message larger than max (${received[1] ?? ''} vs. ${received[2] ?? ''})` }
  const sent = GRPC_JS_SENT_TOO_LARGE.exec(details)
  if (sent === null) return s
  const size = Number(sent[1]) - FRAME_HEADER_BYTES
  return { ...s, details: `${unary ? 'grpc: ' : ''}trying to send message larger than max (${size} vs. ${sent[2] ?? ''})` }
}

/**
 * The server interceptor that gives messages over the limits grpc-go's status. It must come first (it is
 * given grpc-js's own call, whose sendStatus the size checks call), and it hands that same call on:
 * grpc-js uses what an interceptor returns only through the call interface, and another layer would cost
 * every call its own listener and responder.
 */
export const messageLimitInterceptor: ServerInterceptor = (method, call) => {
  const unary = !method.requestStream && !method.responseStream
  const send = call.sendStatus.bind(call)
  call.sendStatus = (s) => send(messageLimitStatus(s, unary))
  return call as ServerInterceptingCall
}
