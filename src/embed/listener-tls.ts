// What TLS changes about one listener (ListenOptions.tls): the gRPC server's TLS options, the stream limit
// etcd's servers apply, how the listener's own gateway dials it, and the scheme MemberList advertises.
import type { ChannelCredentials } from '@grpc/grpc-js'
import type { TlsServerOptions } from '../grpc/server-tls.js'
import type { Logger } from '../pkg/logger.js'
import type { ListenOptions, ListenTlsOptions } from './options.js'

/**
 * ListenOptions.tls as the gRPC server takes it: checked as etcd checks its flags (TlsConfigError), and
 * refused connections logged as etcd logs them.
 */
export async function toTlsServerOptions(t: ListenTlsOptions, logger: Logger): Promise<TlsServerOptions> {
  // Loaded only for TLS (see grpc/server.ts's tlsListener on why).
  const { serverConfig } = await import('../pkg/transport/tls-info.js')
  const config = serverConfig(t)
  if (t.logRejectedConnections === false) return config
  return {
    ...config,
    onRejected: (r) => logger.warn('rejected connection on client endpoint', {
      'remote-addr': r.remoteAddr,
      'server-name': r.serverName,
      ...(r.ipAddresses === undefined ? {} : { 'ip-addresses': r.ipAddresses, 'dns-names': r.dnsNames }),
      error: r.error,
    }),
  }
}

/**
 * The stream limit a listener enforces: etcd's --max-concurrent-streams, where 0 means what it does to
 * etcd's servers: grpc-go (plaintext) takes it as no limit, Go's net/http2 (TLS) as its default, 250.
 */
export function streamLimit(max: number | undefined, secure: boolean): number | undefined {
  if (max !== 0) return max
  return secure ? 250 : undefined
}

/**
 * How etcd's gateway dials the listener it serves on: plaintext where the port takes it, else TLS that
 * trusts the server and presents the server's own certificate.
 */
export async function gatewayCredentials(tls: TlsServerOptions | undefined, alsoInsecure: boolean): Promise<ChannelCredentials> {
  const { credentials } = await import('@grpc/grpc-js')
  return tls === undefined || alsoInsecure
    ? credentials.createInsecure()
    : credentials.createSsl(null, Buffer.from(tls.key), Buffer.from(tls.cert), { rejectUnauthorized: false, checkServerIdentity: () => undefined })
}

/** The schemes MemberList advertises a listener under: a TLS listener is https://, one that takes both is both. */
export function clientUrlSchemes(opts: ListenOptions): readonly string[] {
  if (opts.tls === undefined) return ['http']
  return opts.alsoInsecure === true ? ['http', 'https'] : ['https']
}
