// etcd's tlsListener (transport/listener_tls.go) for the client port: a node:tls Server that never listens,
// fed each accepted socket. It runs the handshake, then etcd's checks of the client's certificate, and
// only then hands the decrypted TLSSocket on. A failed handshake or check closes the connection and is
// reported ("rejected connection on client endpoint" in etcd's log); a client that never finishes its
// handshake is cut after node:tls's handshakeTimeout (120 s; etcd waits forever).
//
// The checks, in etcd's order:
// - --client-cert-allowed-hostname (etcd's VerifyPeerCertificate): when client certificates are asked for,
//   the verified certificate must match one of the names by Go's VerifyHostname. Go fails the handshake
//   with a bad_certificate alert; node:tls has no hook inside the handshake, so the connection is closed
//   right after it instead, before a byte of it is served (a TLS 1.3 client sees the same either way: its
//   side of the handshake is done before the server judges its certificate).
// - --client-crl-file (etcd's checkCRL, after the handshake): the serial of every certificate the client
//   presented is looked up in the CRL file, read again for every connection.
import { createServer, type Server, type TLSSocket, type TlsOptions } from 'node:tls'
import type { Socket } from 'node:net'
import { certificateFields, type CertificateFields } from './certificate-fields.js'
import { checkCrl } from './crl.js'
import { goHandshakeError } from './handshake-error.js'
import { verifyHostname } from './verify-hostname.js'

/** A connection the listener refused, with what etcd logs about it. */
export interface RejectedConnection {
  readonly remoteAddr: string
  /** The name the client asked for (SNI), '' without one. */
  readonly serverName: string
  /** The client certificate's IP and DNS names, when it presented one that was read. */
  readonly ipAddresses?: readonly string[]
  readonly dnsNames?: readonly string[]
  /** Go's error text. */
  readonly error: string
}

export interface TlsListenerOptions {
  /** node:tls's options for the handshake (certificate, CAs, client certificates, versions, ciphers, ALPN). */
  readonly tls: TlsOptions
  /** --client-crl-file: re-read for every connection; absent: no CRL check. */
  readonly crlFile?: string | undefined
  /** --client-cert-allowed-hostname: checked when client certificates are requested; empty: no check. */
  readonly allowedHostnames?: readonly string[] | undefined
  /** Told of every refused connection. */
  readonly onRejected?: ((r: RejectedConnection) => void) | undefined
}

/** Local and remote address and port: unique among open TCP connections, and the same on a TLSSocket and the socket it wraps. */
function connectionKey(s: Socket): string {
  return `${s.localAddress ?? ''}|${s.localPort ?? ''}|${s.remoteAddress ?? ''}|${s.remotePort ?? ''}`
}

/** An accepted socket mid-handshake, with its addresses as they were at accept. */
interface Handshake {
  readonly key: string
  readonly socket: Socket
  readonly remoteAddress: string | undefined
  readonly remotePort: number | undefined
  readonly localAddress: string | undefined
  readonly localPort: number | undefined
}

const hostPort = (host: string | undefined, port: number | undefined): string =>
  host?.includes(':') === true ? `[${host}]:${port ?? 0}` : `${host ?? ''}:${port ?? 0}`

/** An IP SAN as Go's net.IP.String() prints it. */
function ipString(ip: Buffer): string {
  if (ip.length === 4) return [...ip].join('.')
  if (ip.length !== 16) return `?${ip.toString('hex')}`
  // Go writes IPv4-mapped addresses as IPv4, and the longest run of zero groups (two or more) as "::".
  if (ip.subarray(0, 10).every((b) => b === 0) && ip[10] === 0xff && ip[11] === 0xff) return [...ip.subarray(12)].join('.')
  const groups = Array.from({ length: 8 }, (_, i) => ip.readUInt16BE(i * 2))
  let bestStart = -1
  let bestLen = 1
  for (let i = 0; i < 8; ) {
    let j = i
    while (j < 8 && groups[j] === 0) j++
    if (j - i > bestLen) {
      bestStart = i
      bestLen = j - i
    }
    i = j === i ? i + 1 : j
  }
  const hex = groups.map((g) => g.toString(16))
  if (bestStart < 0) return hex.join(':')
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`
}

/** The DER of every certificate the client presented, leaf first (node walks the chain by issuer). */
function peerChain(socket: TLSSocket): Buffer[] {
  const out: Buffer[] = []
  const seen = new Set<string>()
  for (let c = socket.getPeerCertificate(true); c.raw !== undefined; c = c.issuerCertificate) {
    const key = c.raw.toString('base64')
    if (seen.has(key)) break
    seen.add(key)
    out.push(c.raw)
    if (c.issuerCertificate === undefined) break
  }
  return out
}

export class TlsListener {
  private readonly server: Server
  /**
   * Accepted sockets whose handshake is still going on, by connection 4-tuple (node:tls does not hand out
   * the TLSSocket it wraps a socket in until it is secure, and the TLSSocket of a failed handshake may no
   * longer know its addresses).
   */
  private readonly handshaking = new Map<string, Handshake>()
  /** Secure sockets whose certificate checks are still going on. */
  private readonly checking = new Set<TLSSocket>()
  private closed = false

  constructor(private readonly opts: TlsListenerOptions, onSecure: (socket: TLSSocket) => void) {
    this.server = createServer(opts.tls, (socket) => {
      const h = this.handshaking.get(connectionKey(socket))
      // Half-open again, as the port's listener makes every connection (see accept()).
      if (h !== undefined) h.socket.allowHalfOpen = true
      this.handshaking.delete(connectionKey(socket))
      this.checking.add(socket)
      void this.check(socket).then((rejected) => {
        this.checking.delete(socket)
        if (this.closed) {
          socket.destroy()
          return
        }
        if (rejected === undefined) {
          onSecure(socket)
          return
        }
        opts.onRejected?.(rejected)
        // As Go's Conn.Close: close_notify, then the connection is closed.
        socket.destroySoon()
      })
    })
    // A failed handshake (plaintext client, unknown CA, no client certificate, reset): node:tls has
    // destroyed the socket already.
    this.server.on('tlsClientError', (err: Error, socket: TLSSocket) => {
      // Handshakes cut short by close() are the server's doing, not the client's.
      if (this.closed) return
      const raw = this.handshakeOf(socket)
      const servername: unknown = socket.servername
      opts.onRejected?.({
        remoteAddr: hostPort(raw?.remoteAddress ?? socket.remoteAddress, raw?.remotePort ?? socket.remotePort),
        serverName: typeof servername === 'string' ? servername : '',
        error: goHandshakeError(err, raw ?? socket),
      })
    })
  }

  /**
   * The accepted socket under a TLSSocket whose handshake failed: found by address while node:tls still
   * knows it, else the one socket that has closed meanwhile (a client that hung up takes its addresses with
   * it; accept() remembered them).
   */
  private handshakeOf(socket: TLSSocket): Handshake | undefined {
    const byKey = socket.remoteAddress === undefined ? undefined : this.handshaking.get(connectionKey(socket))
    const found = byKey ?? [...this.handshaking.values()].find((h) => h.socket.destroyed)
    if (found !== undefined) this.handshaking.delete(found.key)
    return found
  }

  /**
   * etcd's checks after the handshake (see the file comment); resolves with the rejection, or undefined
   * to serve the connection.
   */
  private async check(socket: TLSSocket): Promise<RejectedConnection | undefined> {
    const hostnames = this.opts.allowedHostnames ?? []
    const crlFile = this.opts.crlFile
    if ((hostnames.length === 0 || this.opts.tls.requestCert !== true) && crlFile === undefined) return undefined
    const chain = peerChain(socket)
    const first = chain[0]
    if (first === undefined) return undefined
    let leaf: CertificateFields
    try {
      leaf = certificateFields(first)
    } catch {
      // node:tls verified and parsed it; a certificate our reader cannot read has no SANs to report.
      leaf = { serial: Buffer.alloc(0), dnsNames: [], ipAddresses: [] }
    }
    const reject = (error: string): RejectedConnection => {
      const servername: unknown = socket.servername
      return {
        remoteAddr: hostPort(socket.remoteAddress, socket.remotePort),
        serverName: typeof servername === 'string' ? servername : '',
        ipAddresses: leaf.ipAddresses.map(ipString),
        dnsNames: leaf.dnsNames,
        error,
      }
    }
    if (hostnames.length > 0 && this.opts.tls.requestCert === true && socket.authorized) {
      if (!hostnames.some((h) => verifyHostname(leaf, h))) return reject('client certificate authentication failed')
    }
    if (crlFile !== undefined) {
      const serials: Buffer[] = []
      for (const der of chain) {
        try {
          serials.push(certificateFields(der).serial)
        } catch {
          // Not readable as a certificate: it has no serial to look up.
        }
      }
      const err = await checkCrl(crlFile, serials)
      if (err !== undefined) return reject(err.message)
    }
    return undefined
  }

  /** Start the handshake on a newly accepted socket. */
  accept(socket: Socket): void {
    if (this.closed) {
      socket.destroy()
      return
    }
    // Not half-open during the handshake: a client that hangs up mid-handshake (as node:tls clients do when
    // they reject the server's certificate) must fail it at once, as it does in Go (EOF), rather than sit
    // in CLOSE_WAIT until the handshake timeout.
    socket.allowHalfOpen = false
    const key = connectionKey(socket)
    const h: Handshake = { key, socket, remoteAddress: socket.remoteAddress, remotePort: socket.remotePort, localAddress: socket.localAddress, localPort: socket.localPort }
    this.handshaking.set(key, h)
    socket.once('close', () => {
      // Later than node:tls's tlsClientError for the same connection, which still looks it up.
      setImmediate(() => {
        if (this.handshaking.get(key) === h) this.handshaking.delete(key)
      })
    })
    this.server.emit('connection', socket)
  }

  /** Destroy every connection still mid-handshake or mid-check, and every one accepted from now on. */
  close(): void {
    this.closed = true
    for (const h of this.handshaking.values()) h.socket.destroy()
    this.handshaking.clear()
    for (const s of this.checking) s.destroy()
    this.checking.clear()
  }
}
