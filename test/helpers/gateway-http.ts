// HTTP/1.1 requests to the JSON gateway: a whole answer, or the first lines of a stream (then the request
// is dropped, as a client closing a watch does).
import { request, type IncomingHttpHeaders } from 'node:http'

export interface GatewayAnswer {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

export interface GatewayRequest {
  readonly path: string
  readonly body?: string
  readonly method?: string
  readonly headers?: Readonly<Record<string, string>>
  /** Stop after this many newline-ended lines (a stream that stays open); default: read to the end. */
  readonly lines?: number
}

/** Send `r` to host:port; resolves with the status, headers and body (or its first `lines` lines). */
export function gatewayRequest(endpoint: string, r: GatewayRequest): Promise<GatewayAnswer> {
  const [host, port] = endpoint.split(':')
  return new Promise((resolve, reject) => {
    // A stream that never says enough fails the test rather than hanging it.
    const timer = setTimeout(() => {
      req.destroy()
      reject(new Error(`no complete answer to ${r.path} within 10 s`))
    }, 10_000)
    const req = request({ host, port: Number(port), path: r.path, method: r.method ?? 'POST', headers: { ...(r.headers ?? {}) }, agent: false }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      const done = (): void => {
        clearTimeout(timer)
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body })
      }
      res.on('data', (c: string) => {
        body += c
        if (r.lines !== undefined && body.split('\n').length > r.lines) {
          const keep = body.split('\n').slice(0, r.lines)
          body = `${keep.join('\n')}\n`
          res.removeAllListeners('end')
          req.destroy()
          done()
        }
      })
      res.on('end', done)
      res.on('error', () => undefined)
    })
    req.on('error', (err) => {
      clearTimeout(timer)
      reject(err)
    })
    if (r.body !== undefined) req.write(r.body)
    req.end()
  })
}
