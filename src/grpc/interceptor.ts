// Who a gRPC call comes from (the inputs of etcd's AuthInfoFromCtx): the `token` metadata, or swagger's
// `authorization` field, and the common name of a client certificate the listener verified. A listener
// requests and verifies client certificates only with --client-cert-auth, so a CN is present only then.
import type { Metadata } from '@grpc/grpc-js'
import type { PeerCertificate } from 'node:tls'
import type { CallCredentials } from '../etcdserver/types/credentials.js'

/** The part of a server call the credentials come from (every grpc-js server call has it). */
export interface CallWithCredentials {
  readonly metadata: Metadata
  getAuthContext(): { readonly sslPeerCertificate?: PeerCertificate | undefined }
}

/** The metadata key the JSON gateway forwards the Accept header as, on every call it makes. */
const GATEWAY_MARK = 'grpcgateway-accept'

/** etcd's rpctypes.TokenFieldNameGRPC and TokenFieldNameSwagger. */
const TOKEN_FIELDS = ['token', 'authorization'] as const

/** The call's `token` (or `authorization`) metadata, as a string; undefined when it carries neither. */
function tokenOf(metadata: Metadata): string | undefined {
  for (const field of TOKEN_FIELDS) {
    const v = metadata.get(field)[0]
    if (v !== undefined) return typeof v === 'string' ? v : v.toString('latin1')
  }
  return undefined
}

/** The call's credentials; undefined when it carries neither a token nor a verified client certificate. */
export function credentialsOf(call: CallWithCredentials): CallCredentials | undefined {
  const token = tokenOf(call.metadata)
  // etcd 3.5's AuthInfoFromTLS: a call from the JSON gateway (marked by grpcgateway-accept) presents the
  // server's own certificate, whose CN must never name the caller.
  if (call.metadata.get(GATEWAY_MARK).length > 0) return token === undefined ? undefined : { token }
  // A subject with several CNs parses as an array, whatever the typings say; Go takes the first.
  const cn: unknown = call.getAuthContext().sslPeerCertificate?.subject.CN
  const commonName = Array.isArray(cn) ? (cn[0] as unknown) : cn
  if (commonName !== undefined && typeof commonName !== 'string') return token === undefined ? undefined : { token }
  if (token === undefined && commonName === undefined) return undefined
  return { token, commonName }
}

/**
 * {@link credentialsOf} for calls on a listener without --client-cert-auth (plaintext, or TLS that does not
 * verify client certificates), where no certificate ever names a user: only the token is read, and the
 * connection is not asked for its peer certificate (which costs a socket lookup per call in grpc-js).
 */
export function tokenCredentialsOf(call: Pick<CallWithCredentials, 'metadata'>): CallCredentials | undefined {
  const token = tokenOf(call.metadata)
  return token === undefined ? undefined : { token }
}
