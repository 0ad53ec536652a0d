// TLS on the client listeners: etcd's client TLS options, the ALPN choice that sends gRPC clients to HTTP/2
// and everything else to HTTP/1.1, and the TLS listener (pkg/transport), loaded only when a port serves TLS.
import type { TLSSocket } from 'node:tls'
import type { RejectedConnection, TlsListener } from '../pkg/transport/tls-listener.js'
import type { ServerConfig } from '../pkg/transport/tls-info.js'

/**
 * TLS for the client listeners: etcd's client TLS (pkg/transport's ServerConfig: certificate, trusted CAs,
 * --client-cert-auth, cipher suites, versions, CRL, allowed hostnames), and who hears of refused connections.
 *
 * clientCertAuth: require a client certificate that verifies against `ca` (Node's bundled root CAs without
 * `ca`, as Go's system roots for etcd) on every connection, and let its common name act as the user of calls
 * that send no token. grpc-js reports the verified certificate in `call.getAuthContext().sslPeerCertificate`
 * with clientCertAuth only (never with just `ca`), so a certificate found there is one whose CN etcd takes
 * as the user. A `ca` alone requires client certificates too, as etcd's TLSInfo.ServerConfig does.
 */
export interface TlsServerOptions extends ServerConfig {
  /** Told of every connection refused in or after the handshake (etcd logs "rejected connection on client endpoint"). */
  readonly onRejected?: (r: RejectedConnection) => void
}

/**
 * ALPN. gRPC clients (grpc-go, grpc-js, tonic, grpc-java, .NET) offer only h2 and get it. Clients that also
 * offer http/1.1 (curl, browsers, Go's net/http) get http/1.1, so /health, /metrics and /version reach the
 * HTTP/1 server: every HTTP/2 connection goes to grpc-js whole, which answers non-gRPC requests with 415,
 * where etcd routes each HTTP/2 request by its content-type. A client that offers neither gets a fatal
 * no_application_protocol alert, as from etcd (Go's TLS with NextProtos ["h2"]). A client that sends no ALPN
 * gets HTTP/1.x only: node:http2 refuses HTTP/2 over TLS without ALPN h2, as Go's server does.
 */
function selectAlpn({ protocols }: { readonly protocols: readonly string[] }): string | undefined {
  if (protocols.includes('http/1.1')) return 'http/1.1'
  if (protocols.includes('h2')) return 'h2'
  return undefined
}

/**
 * The TLS listener of a client port (pkg/transport's TlsListener, etcd's tlsListener) for these options.
 * Its modules load only when a port serves TLS: Node's module loader opens every file of the graph it is
 * loading at once, and a plaintext etcdlite must still start under `ulimit -n 64`.
 */
export async function tlsListener(opts: TlsServerOptions, onSecure: (socket: TLSSocket) => void): Promise<TlsListener> {
  const [{ TlsListener }, { nodeTlsOptions }] = await Promise.all([import('../pkg/transport/tls-listener.js'), import('../pkg/transport/tls-info.js')])
  return new TlsListener(
    {
      tls: { ...nodeTlsOptions(opts), ALPNCallback: selectAlpn },
      crlFile: opts.crlFile,
      allowedHostnames: opts.allowedHostnames,
      onRejected: opts.onRejected,
    },
    (socket) => {
      // A trusted CA alone makes clients prove a certificate, but only --client-cert-auth makes its CN a
      // user (etcd's ClientCertAuthEnabled gates AuthInfoFromTLS). grpc-js's getAuthContext() reports a
      // certificate only on an `authorized` socket, so without clientCertAuth none is reported.
      if (!opts.clientCertAuth) socket.authorized = false
      onSecure(socket)
    },
  )
}
