// KeyPairError on its own, so that the public surface exports the class without loading the key and
// certificate code (key-pair.ts).

/** A TLS file etcd refuses: the message is Go's. */
export class KeyPairError extends Error {
  override readonly name = 'KeyPairError'
}
