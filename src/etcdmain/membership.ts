// Member and cluster IDs as etcd computes them for the members of a new cluster: membership.NewMember's
// computeMemberId (no time suffix for initial members) and RaftCluster.genID.
import { createHash } from 'node:crypto'

/** computeMemberId: SHA-1 over the sorted peer URLs joined with nothing, then the cluster token; first 8 bytes. */
export function computeMemberId(peerUrls: readonly string[], token: string): bigint {
  const joined = [...peerUrls].sort().join('')
  return createHash('sha1').update(joined + token, 'utf8').digest().readBigUInt64BE(0)
}

/** RaftCluster.genID: SHA-1 over the sorted member IDs as 8-byte big-endian each; first 8 bytes. */
export function genClusterId(memberIds: readonly bigint[]): bigint {
  const ids = [...memberIds].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const buf = Buffer.alloc(8 * ids.length)
  ids.forEach((id, i) => buf.writeBigUInt64BE(id, 8 * i))
  return createHash('sha1').update(buf).digest().readBigUInt64BE(0)
}
