// etcd's v2http/http.go and etcdhttp's WriteError: how a v2 handler refuses a method, and how an error
// becomes a response (a v2 store error as its own JSON, an auth or HTTP error as {"message"}, anything
// else as a 500 "Internal Server Error").
import { V2Error } from '../v2error/error.js'
import { AuthError } from '../v2auth/errors.js'
import { httpError, type GoResponse } from './go-http.js'
import { HTTPError } from './httptypes.js'

/** Allow only `ms`: anything else is 405 with an Allow header listing them. */
export function allowMethod(w: GoResponse, m: string, ...ms: string[]): boolean {
  if (ms.includes(m)) return true
  w.setHeader('Allow', ms.join(','))
  httpError(w, 'Method Not Allowed', 405)
  return false
}

/** Write an error as etcd's v2 handlers do; `report` hears the ones etcd logs as unexpected. */
export function writeError(w: GoResponse, err: unknown, report: (err: unknown) => void = () => undefined): void {
  if (err instanceof AuthError) {
    new HTTPError(err.status, err.message).writeTo(w)
    return
  }
  if (err instanceof V2Error) {
    writeV2Error(w, err)
    return
  }
  if (err instanceof HTTPError) {
    err.writeTo(w)
    return
  }
  report(err)
  new HTTPError(500, 'Internal Server Error').writeTo(w)
}

/** v2error.Error.WriteTo: X-Etcd-Index, JSON, the code's status, the body and a newline. */
export function writeV2Error(w: GoResponse, e: V2Error): void {
  w.addHeader('X-Etcd-Index', String(e.index))
  w.setHeader('Content-Type', 'application/json')
  w.writeHeader(e.statusCode())
  w.write(e.body())
}
