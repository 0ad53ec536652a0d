// Who is calling, as the transport saw it.

/**
 * Who is calling, as the transport saw it: the `token` metadata of a gRPC call (or the token of an embedded
 * `withToken()` view), and the common name of a client certificate that the listener verified (only with
 * --client-cert-auth). A token wins over the certificate, as in etcd's AuthInfoFromCtx.
 */
export interface CallCredentials {
  readonly token?: string | undefined
  readonly commonName?: string | undefined
}
