// A bidirectional gRPC stream that its owner replaces when it breaks (a watch stream, a keep-alive): the
// messages and the end of a call reach the owner only while that call is still the owner's current one, so
// a late event of a call already given up is ignored.
import type * as grpc from '@grpc/grpc-js'
import type { PickedChannel } from './endpoints.js'
import type { Rpc } from './rpc.js'

export interface BidiHandlers<Res> {
  /** Whether `call` is still the one in use. */
  readonly current: (call: unknown) => boolean
  readonly data: (m: Res) => void
  /** The call failed (with the error) or the server ended it (undefined). */
  readonly broken: (err: Error | undefined) => void
}

export function openBidi<Req, Res>(channel: PickedChannel, rpc: Rpc<Req, Res>, metadata: grpc.Metadata, h: BidiHandlers<Res>): grpc.ClientDuplexStream<Req, Res> {
  const call = channel.client.makeBidiStreamRequest(rpc.path, rpc.serialize, rpc.deserialize, metadata, {})
  call.on('data', (m: Res) => {
    if (h.current(call)) h.data(m)
  })
  call.on('error', (e: Error) => {
    if (h.current(call)) h.broken(e)
  })
  call.on('end', () => {
    if (h.current(call)) h.broken(undefined)
  })
  return call
}
