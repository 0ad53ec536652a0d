// The status of a request over the receive limit (etcd's --max-request-bytes plus gRPC's overhead): grpc-go
// answers RESOURCE_EXHAUSTED "grpc: received message larger than max (N vs. M)", and clients match on that
// text. grpc-js refuses such a message itself, from the length prefix and before buffering any of it, with
// the same code but its own text, "Received message larger than max (N vs M)", and sends that status from
// inside the call, past every interceptor's responder. This interceptor therefore rewrites the status on
// the call object grpc-js sends it from.
import { status, type ServerInterceptingCall, type ServerInterceptor } from '@grpc/grpc-js'

/** The status a server call sends (grpc-js's PartialStatusObject, which its index does not export). */
type PartialStatusObject = Parameters<Parameters<ServerInterceptor>[1]['sendStatus']>[0]

const GRPC_JS_TOO_LARGE = /^Received message larger than max \((\d+) vs (\d+)\)$/

/** grpc-go's status for what grpc-js refused as too large; any other status unchanged. */
export function receiveLimitStatus(s: PartialStatusObject): PartialStatusObject {
  if (s.code !== status.RESOURCE_EXHAUSTED) return s
  const m = GRPC_JS_TOO_LARGE.exec(s.details ?? '')
  return m === null ? s : { ...s, details: `grpc: received message larger than max (${m[1] ?? ''} vs. ${m[2] ?? ''})` }
}

/**
 * The server interceptor that gives a too large request grpc-go's status. It must come first (it is
 * given grpc-js's own call, whose sendStatus the size check calls), and it hands that same call on:
 * grpc-js uses what an interceptor returns only through the call interface, and another layer would cost
 * every call its own listener and responder.
 */
export const receiveLimitInterceptor: ServerInterceptor = (_method, call) => {
  const send = call.sendStatus.bind(call)
  call.sendStatus = (s) => send(receiveLimitStatus(s))
  return call as ServerInterceptingCall
}
