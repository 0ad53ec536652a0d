// A plain HTTP listener, as etcd serves its --listen-metrics-urls.
import { createServer, type RequestListener, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A plain HTTP listener (etcd's --listen-metrics-urls). */
export class HttpListener {
  readonly host: string
  readonly port: number
  private readonly server: Server
  private closing: Promise<void> | undefined

  private constructor(server: Server, host: string, port: number) {
    this.server = server
    this.host = host
    this.port = port
  }

  /** Listen on host:port (port 0 picks a free one) and serve `handler`. */
  static listen(handler: RequestListener, host: string, port: number): Promise<HttpListener> {
    const server = createServer(handler)
    return new Promise((resolve, reject) => {
      server.once('error', reject)
      server.listen({ host, port }, () => {
        server.off('error', reject)
        resolve(new HttpListener(server, host, (server.address() as AddressInfo).port))
      })
    })
  }

  /** Stop listening; requests in flight finish (up to graceMs), idle connections close at once. Idempotent. */
  close(graceMs = 5000): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.server.closeAllConnections(), graceMs)
      timer.unref()
      this.server.close(() => {
        clearTimeout(timer)
        resolve()
      })
    })
    return this.closing
  }
}
