// etcd's AccessController: which CORS origins get CORS headers (--cors) and which Host names a plaintext
// HTTP request may name (--host-whitelist, against DNS rebinding). An empty set, or one holding "*",
// allows all.
import { hostOf } from '../pkg/transport/host-port.js'

export class AccessController {
  private readonly cors: ReadonlySet<string>
  private readonly hostWhitelist: ReadonlySet<string>

  constructor(cors: Iterable<string> = ['*'], hostWhitelist: Iterable<string> = ['*']) {
    this.cors = new Set(cors)
    this.hostWhitelist = new Set(hostWhitelist)
  }

  /** Whether `origin` may be named in Access-Control-Allow-Origin ("*": every origin is). */
  originAllowed(origin: string): boolean {
    return this.cors.size === 0 || this.cors.has('*') || this.cors.has(origin)
  }

  /** Whether a plaintext request may name `host` (the Host header's host, without the port). */
  isHostWhitelisted(host: string): boolean {
    return this.hostWhitelist.size === 0 || this.hostWhitelist.has('*') || this.hostWhitelist.has(host)
  }
}

/**
 * Go's httputil.GetHostname: the host of a Host header "host:port" (brackets of an IPv6 literal removed),
 * or the whole header when net.SplitHostPort refuses it (no port, too many colons).
 */
export function hostnameOf(hostHeader: string): string {
  return hostOf(hostHeader) ?? hostHeader
}
