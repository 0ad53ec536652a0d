// Go's http.Error, as etcd's HTTP handlers answer every error.
import type { ServerResponse } from 'node:http'

/** The Content-Type of etcd's plain-text answers. */
export const TEXT = 'text/plain; charset=utf-8'

/** Go's http.Error: the message and a newline, as plain text that must not be sniffed. */
export function httpError(res: ServerResponse, code: number, msg: string, headers: Record<string, string> = {}): void {
  res.writeHead(code, { ...headers, 'Content-Type': TEXT, 'X-Content-Type-Options': 'nosniff' })
  res.end(`${msg}\n`)
}
