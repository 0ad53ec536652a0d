/**
 * Buckets and meta keys, mirroring etcd's bbolt buckets in mvcc/kvstore.go. A bucket is a one-byte key
 * prefix in the one LevelDB keyspace (see BUCKET_PREFIX).
 * - `key`: the revision log. Key = 17-byte revision (+ 't' for a tombstone), value = encoded mvccpb.KeyValue.
 * - `meta`: store counters and identity.
 * - `lease`: one record per lease. Key = 8-byte big-endian lease ID, value = encoded leasepb.Lease (ID, TTL).
 * - `alarm`: raised alarms. Key = encoded etcdserverpb.AlarmMember, value empty (as etcd stores them).
 * - `auth`: the enabled flag (`authEnabled` = 1 byte, 1 or 0) and the auth revision (`authRevision`, 8-byte
 *   big-endian), as etcd's `auth` bucket.
 * - `authUsers`: one record per user. Key = user name, value = encoded authpb.User (password as a bcrypt hash).
 * - `authRoles`: one record per role. Key = role name, value = encoded authpb.Role.
 * - `v2store`: the v2 API's store (etcd keeps it in raft snapshots, not in its bbolt backend), written only
 *   with --enable-v2; etcdserver/api/v2store/persist.ts has its records.
 */
export type Bucket = 'key' | 'meta' | 'lease' | 'alarm' | 'auth' | 'authUsers' | 'authRoles' | 'v2store'

/**
 * The buckets of etcd's backend, which Hash covers and snapshots carry: every bucket but `v2store` (etcd's
 * v2 store is not in its backend, so a v2 write changes no hash, and a restored member starts a new one).
 */
export const BUCKETS: readonly Bucket[] = ['key', 'meta', 'lease', 'alarm', 'auth', 'authUsers', 'authRoles']

/**
 * The key prefix of each bucket. Prefix bytes rather than abstract-level sublevels: a sublevel re-encodes
 * every key on every read and every batch op, about a fifth of a put's CPU, and the prefix is all a
 * sublevel would store anyway.
 */
export const BUCKET_PREFIX: Readonly<Record<Bucket, number>> = {
  key: 0x6b /* k */,
  meta: 0x6d /* m */,
  lease: 0x6c /* l */,
  alarm: 0x61 /* a */,
  auth: 0x41 /* A */,
  authUsers: 0x55 /* U */,
  authRoles: 0x52 /* R */,
  v2store: 0x32 /* 2 */,
}

/** The stored key: the bucket's prefix byte, then the key. */
export function prefixed(bucket: Bucket, key: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(key.length + 1)
  out[0] = BUCKET_PREFIX[bucket]
  out.set(key, 1)
  return out
}

const ascii = (s: string): Uint8Array => Buffer.from(s, 'latin1')

/** Meta keys. Compact revisions are stored as 17-byte revision keys with sub = 0, as etcd does. */
export const META = {
  scheduledCompactRev: ascii('scheduledCompactRev'),
  finishedCompactRev: ascii('finishedCompactRev'),
  /** 8-byte big-endian member ID, chosen at random when the data dir is created. */
  memberId: ascii('memberID'),
  /** 8-byte big-endian cluster ID, chosen with the member ID. */
  clusterId: ascii('clusterID'),
  /** 8-byte big-endian raft term of the last start; each start campaigns once more, as a one-member etcd does. */
  term: ascii('term'),
  /**
   * 8-byte big-endian count of applied requests that take no revision (lease grants and revokes, alarm
   * changes, compactions): Status reports raftIndex = current revision + this count.
   */
  extraIndex: ascii('etcdliteExtraIndex'),
  /**
   * The downgrade info as etcd stores it in its `cluster` bucket under `downgrade`: JSON
   * `{"target-version":"3.4.0","enabled":true}`; absent until a downgrade is first enabled.
   */
  downgrade: ascii('downgrade'),
} as const
