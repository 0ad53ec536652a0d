// Who a gRPC call comes from (the inputs of etcd's AuthInfoFromCtx): the `token` metadata, or swagger's
// `authorization` field, and the common name of a client certificate the listener verified. A listener
// requests and verifies client certificates only with --client-cert-auth, so a CN is present only then.
import type { Metadata } from '@grpc/grpc-js'
import type { PeerCertificate } from 'node:tls'
import type { CallCredentials } from '../etcdserver/types.js'

/** The part of a server call the credentials come from (every grpc-js server call has it). */
export interface CallWithCredentials {
  readonly metadata: Metadata
  getAuthContext(): { readonly sslPeerCertificate?: PeerCertificate | undefined }
}

/** etcd's rpctypes.TokenFieldNameGRPC and TokenFieldNameSwagger. */
const TOKEN_FIELDS = ['token', 'authorization'] as const

/** The call's credentials; undefined when it carries neither a token nor a verified client certificate. */
export function credentialsOf(call: CallWithCredentials): CallCredentials | undefined {
  let token: string | undefined
  for (const field of TOKEN_FIELDS) {
    const v = call.metadata.get(field)[0]
    if (v !== undefined) {
      token = typeof v === 'string' ? v : v.toString('latin1')
      break
    }
  }
  // A subject with several CNs parses as an array, whatever the typings say; Go takes the first.
  const cn: unknown = call.getAuthContext().sslPeerCertificate?.subject.CN
  const commonName = Array.isArray(cn) ? (cn[0] as unknown) : cn
  if (commonName !== undefined && typeof commonName !== 'string') return token === undefined ? undefined : { token }
  if (token === undefined && commonName === undefined) return undefined
  return { token, commonName }
}
