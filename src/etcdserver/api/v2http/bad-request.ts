// Go's net/http answer to a request it cannot parse (a request target with a bad escape, say): a bare 400
// with the connection closed, before any handler runs. Its own module: the client URL's handler uses it
// with or without the v2 API, and the v2 handler's modules load only when the v2 API is on.
import type { ServerResponse } from 'node:http'

export function badRequest(res: ServerResponse): void {
  for (const h of res.getHeaderNames()) res.removeHeader(h)
  res.removeHeader('Content-Length')
  res.removeHeader('Transfer-Encoding')
  res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' })
  res.end('400 Bad Request')
}
