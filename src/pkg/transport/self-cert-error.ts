// SelfCertError on its own, so that the public surface exports the class without loading the certificate
// code (self-cert.ts), which loads with the first selfCert().

/** A certificate SelfCert could not make (etcd then stops: "failed to get client self-signed certs"). */
export class SelfCertError extends Error {
  override readonly name = 'SelfCertError'
}
