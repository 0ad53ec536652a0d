// What etcd logs as the error of a rejected TLS connection is Go's crypto/tls error; node:tls reports
// OpenSSL's. The failures clients commonly cause are given Go's text; any other keeps OpenSSL's reason.

/** Go's text for an alert the client sent, by node's error code for it. */
const REMOTE_ALERTS: Readonly<Record<string, string>> = {
  ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE: 'bad certificate',
  ERR_SSL_SSLV3_ALERT_UNSUPPORTED_CERTIFICATE: 'unsupported certificate',
  ERR_SSL_SSLV3_ALERT_CERTIFICATE_REVOKED: 'revoked certificate',
  ERR_SSL_SSLV3_ALERT_CERTIFICATE_EXPIRED: 'expired certificate',
  ERR_SSL_SSLV3_ALERT_CERTIFICATE_UNKNOWN: 'unknown certificate',
  ERR_SSL_TLSV1_ALERT_UNKNOWN_CA: 'unknown certificate authority',
  ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE: 'handshake failure',
  ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION: 'protocol version not supported',
  ERR_SSL_TLSV1_ALERT_DECRYPT_ERROR: 'error decrypting message',
  ERR_SSL_TLSV1_ALERT_DECODE_ERROR: 'error decoding message',
  ERR_SSL_TLSV1_ALERT_INTERNAL_ERROR: 'internal error',
  ERR_SSL_TLSV1_ALERT_ACCESS_DENIED: 'access denied',
  ERR_SSL_TLSV1_ALERT_NO_APPLICATION_PROTOCOL: 'no application protocol',
  ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED: 'certificate required',
}

/** Go's text for the server's own verdicts, by node's error code. */
const LOCAL: Readonly<Record<string, string>> = {
  ERR_SSL_HTTP_REQUEST: 'tls: first record does not look like a TLS handshake',
  ERR_SSL_WRONG_VERSION_NUMBER: 'tls: first record does not look like a TLS handshake',
  ERR_SSL_PEER_DID_NOT_RETURN_A_CERTIFICATE: "tls: client didn't provide a certificate",
  ERR_SSL_NO_SHARED_CIPHER: 'tls: no cipher suite supported by both client and server',
  ERR_SSL_CERTIFICATE_VERIFY_FAILED: 'tls: failed to verify certificate: x509: certificate signed by unknown authority',
}

const address = (host: string | undefined, port: number | undefined): string =>
  host?.includes(':') === true ? `[${host}]:${port ?? 0}` : `${host ?? ''}:${port ?? 0}`

export interface ConnectionAddresses {
  readonly localAddress?: string | undefined
  readonly localPort?: number | undefined
  readonly remoteAddress?: string | undefined
  readonly remotePort?: number | undefined
}

/** The text etcd would log for a handshake that failed with `err` on the connection at these addresses. */
export function goHandshakeError(err: Error, socket: ConnectionAddresses): string {
  const code = (err as NodeJS.ErrnoException).code ?? ''
  const remote = REMOTE_ALERTS[code]
  if (remote !== undefined) return `remote error: tls: ${remote}`
  const local = LOCAL[code]
  if (local !== undefined) return local
  if (code === 'ECONNRESET') {
    // node: "socket hang up" when the client closed cleanly mid-handshake (Go reads EOF), "read ECONNRESET" on a reset.
    if (err.message !== 'read ECONNRESET') return 'EOF'
    return `read tcp ${address(socket.localAddress, socket.localPort)}->${address(socket.remoteAddress, socket.remotePort)}: read: connection reset by peer`
  }
  // OpenSSL: "<hex>:error:<hex>:SSL routines:<function>:<reason>:<file>:<line>:".
  return /:SSL routines:[^:]*:([^:]+):/.exec(err.message)?.[1] ?? err.message
}
