// The TLS calls of the public surface, each loading its module (and node:crypto's certificate code with it)
// by its first call: an in-process store, or a server without TLS, never needs them. Same signatures and
// results as the functions they call.
import type { SelfCertFiles, SelfCertOptions } from './self-cert.js'
import type { PeerTlsInfoFlags, PeerTlsOptions, ServerTls, ServerTlsOptions, TlsInfoFlags } from './server-tls.js'

/** selfCert (self-cert.ts): etcd's SelfCert. */
export async function selfCert(opts: SelfCertOptions): Promise<SelfCertFiles> {
  return (await import('./self-cert.js')).selfCert(opts)
}

/** serverTls (server-tls.ts): the client TLS of etcd's flags. */
export async function serverTls(flags: TlsInfoFlags, opts: ServerTlsOptions): Promise<ServerTls | undefined> {
  return (await import('./server-tls.js')).serverTls(flags, opts)
}

/** peerTls (server-tls.ts): the peer TLS of etcd's flags. */
export async function peerTls(flags: PeerTlsInfoFlags, opts: PeerTlsOptions): Promise<{ readonly certFile: string; readonly keyFile: string } | undefined> {
  return (await import('./server-tls.js')).peerTls(flags, opts)
}
