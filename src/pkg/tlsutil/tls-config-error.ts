/**
 * A TLS setting etcd refuses (a cipher suite or TLS version it does not know, versions that contradict each
 * other): the message is etcd's text, which etcd prints as the reason it does not start.
 */
export class TlsConfigError extends Error {
  override readonly name = 'TlsConfigError'
}
