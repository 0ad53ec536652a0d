// The member's identity across starts: member and cluster IDs fixed when the data dir is created (etcd's,
// computed from the cluster flags, when the command passes them; random otherwise), and the raft term, one
// more on each start (a one-member etcd campaigns once per start).
import { randomBytes } from 'node:crypto'
import type { Backend } from '../backend/backend.js'
import { readU64, u64 } from '../backend/meta-u64.js'
import { META } from '../backend/schema.js'

export interface Identity {
  readonly memberId: bigint
  readonly clusterId: bigint
  readonly raftTerm: number
}

/** The IDs a store takes when it has none yet. */
export interface NewIdentity {
  readonly memberId: bigint
  readonly clusterId: bigint
}

const randomId = (): bigint => {
  for (;;) {
    const id = randomBytes(8).readBigUInt64BE(0)
    if (id !== 0n) return id
  }
}

/**
 * Load the stored IDs, or store `fresh` (random IDs when not given) in a store that has none, and count
 * this start as a new term. A store keeps its IDs whatever the flags say later, as etcd's data dir keeps
 * its member and cluster (--force-new-cluster included). Writes into the backend's open batch; the caller
 * commits.
 */
export function startIdentity(backend: Backend, fresh?: NewIdentity): Identity {
  let memberId = readU64(backend.get('meta', META.memberId))
  let clusterId = readU64(backend.get('meta', META.clusterId))
  if (memberId === undefined || clusterId === undefined) {
    memberId = fresh?.memberId ?? randomId()
    clusterId = fresh?.clusterId ?? randomId()
    backend.put('meta', META.memberId, u64(memberId))
    backend.put('meta', META.clusterId, u64(clusterId))
  }
  const lastTerm = readU64(backend.get('meta', META.term))
  const raftTerm = lastTerm === undefined ? 2 : Number(lastTerm) + 1
  backend.put('meta', META.term, u64(BigInt(raftTerm)))
  return { memberId, clusterId, raftTerm }
}
