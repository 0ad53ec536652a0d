// Handlers for services registered ahead of their implementation: every method answers UNIMPLEMENTED
// with a message naming it, whatever its streaming shape.
import { status, Metadata, type ServiceDefinition, type UntypedServiceImplementation } from '@grpc/grpc-js'

interface ErrorSink {
  emit(event: 'error', err: unknown): boolean
}
type Callback = (err: unknown) => void

export function unimplementedHandlers(def: ServiceDefinition): UntypedServiceImplementation {
  const handlers: UntypedServiceImplementation = {}
  for (const [name, method] of Object.entries(def)) {
    const details = `etcdlite: ${method.path} is not implemented yet`
    const err = { code: status.UNIMPLEMENTED, details, message: details, metadata: new Metadata() }
    const handler = (call: ErrorSink, cb?: Callback): void => {
      // Streaming responses fail through the call; unary and client-streaming calls through the callback.
      if (method.responseStream || cb === undefined) call.emit('error', err)
      else cb(err)
    }
    handlers[name] = handler
  }
  return handlers
}
