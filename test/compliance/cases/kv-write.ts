// Put, DeleteRange, Compact and header cases. Expectations follow etcd 3.4 v3rpc/key.go (request checks),
// etcdserver/apply.go (Put, DeleteRange, Compaction) and mvcc (revisions, compaction bounds).
import { b, ERR, kv, puts, type Case, type Step } from '../harness/case.js'
import { get, rq } from './kv.js'

/** etcd's default --max-request-bytes is 1.5 MiB; 1.6 MiB is over it but under gRPC's limit (+512 KiB). */
const MAX_REQUEST = 1.5 * 1024 * 1024
const TOO_LARGE = 1.6 * 1024 * 1024
const LARGE_OK = 1024 * 1024
/**
 * etcd measures the marshalled InternalRaftRequest: a put of key "k" and a value of V bytes is V + 24 or
 * V + 25 bytes (or V + 23), depending on how long the varint of the random request ID is. So a value of
 * MAX - 30 always fits and MAX - 20 never does, on any member.
 */
const JUST_UNDER = MAX_REQUEST - 30
const JUST_OVER = MAX_REQUEST - 20

const PUT_CASES: readonly Case[] = [
  {
    name: 'put creates a key at the next revision',
    steps: [{ put: { key: b('a'), value: b('1') }, want: { rev: 2 } }, get(rq('a'), 2, [kv('a', '1', 2, 2, 1)])],
  },
  {
    name: 'each put bumps mod_revision and version and keeps create_revision',
    steps: [
      ...puts(['a', '1'], ['b', 'x'], ['a', '2']),
      { put: { key: b('a'), value: b('3') }, want: { rev: 5 } },
      get(rq('a'), 5, [kv('a', '3', 2, 5, 3)]),
    ],
  },
  {
    name: 'delete resets version; a new put starts a new create_revision',
    steps: [
      ...puts(['a', '1'], ['a', '2']),
      { deleteRange: { key: b('a') } },
      { put: { key: b('a'), value: b('3') }, want: { rev: 5 } },
      get(rq('a'), 5, [kv('a', '3', 5, 5, 1)]),
    ],
  },
  { name: 'prev_kv on a new key returns no prev_kv', steps: [{ put: { key: b('a'), value: b('1'), prevKv: true }, want: { rev: 2 } }] },
  {
    name: 'prev_kv returns the pair before the put',
    steps: [...puts(['a', '1']), { put: { key: b('a'), value: b('2'), prevKv: true }, want: { rev: 3, prevKv: kv('a', '1', 2, 2, 1) } }],
  },
  {
    name: 'ignore_value keeps the value and still bumps version',
    steps: [
      ...puts(['a', '1']),
      { put: { key: b('a'), ignoreValue: true, prevKv: true }, want: { rev: 3, prevKv: kv('a', '1', 2, 2, 1) } },
      get(rq('a'), 3, [kv('a', '1', 2, 3, 2)]),
    ],
  },
  {
    name: 'ignore_value with a value is refused and takes no revision',
    steps: [...puts(['a', '1']), { put: { key: b('a'), value: b('2'), ignoreValue: true }, err: ERR.valueProvided }, get(rq('a'), 2, [kv('a', '1', 2, 2, 1)])],
  },
  {
    name: 'ignore_value on a missing key is refused with key not found',
    steps: [{ put: { key: b('a'), ignoreValue: true }, err: ERR.keyNotFound }, get(rq('a'), 1, [])],
  },
  {
    name: 'ignore_lease keeps the lease and takes the new value',
    steps: [...puts(['a', '1']), { put: { key: b('a'), value: b('2'), ignoreLease: true }, want: { rev: 3 } }, get(rq('a'), 3, [kv('a', '2', 2, 3, 2)])],
  },
  {
    name: 'ignore_lease with a lease is refused before the key is looked up',
    steps: [{ put: { key: b('a'), value: b('2'), ignoreLease: true, lease: 5n }, err: ERR.leaseProvided }],
  },
  {
    name: 'ignore_lease on a missing key is refused with key not found',
    steps: [{ put: { key: b('a'), value: b('2'), ignoreLease: true }, err: ERR.keyNotFound }, get(rq('a'), 1, [])],
  },
  {
    name: 'ignore_value and ignore_lease together rewrite the key as is',
    steps: [...puts(['a', '1']), { put: { key: b('a'), ignoreValue: true, ignoreLease: true }, want: { rev: 3 } }, get(rq('a'), 3, [kv('a', '1', 2, 3, 2)])],
  },
  { name: 'ignore_lease with lease 0 is allowed', steps: [...puts(['a', '1']), { put: { key: b('a'), value: b('2'), ignoreLease: true, lease: 0n }, want: { rev: 3 } }] },
  {
    name: 'an unknown lease is refused with NOT_FOUND and takes no revision',
    steps: [{ put: { key: b('a'), value: b('1'), lease: 12345n }, err: ERR.leaseNotFound }, get(rq('a'), 1, [])],
  },
  {
    name: 'an empty value is stored',
    steps: [{ put: { key: b('a'), value: b('') }, want: { rev: 2 } }, { put: { key: b('b') }, want: { rev: 3 } }, get(rq('a', 'c'), 3, [kv('a', '', 2, 2, 1), kv('b', '', 3, 3, 1)])],
  },
  {
    name: 'binary keys and values keep every byte, 0x00 and 0xff included',
    steps: [
      ...puts(['\xff\xff', '\xff'], ['\x00', '\xff\x00'], ['a\x00b', '\x00'], ['a\xff', '\x00\x00\xff']),
      get(rq('\x00', '\x00'), 5, [kv('\x00', '\xff\x00', 3, 3, 1), kv('a\x00b', '\x00', 4, 4, 1), kv('a\xff', '\x00\x00\xff', 5, 5, 1), kv('\xff\xff', '\xff', 2, 2, 1)]),
      get(rq('\x00'), 5, [kv('\x00', '\xff\x00', 3, 3, 1)]),
      get(rq('a', 'b'), 5, [kv('a\x00b', '\x00', 4, 4, 1), kv('a\xff', '\x00\x00\xff', 5, 5, 1)]),
      get(rq('\xff', '\x00'), 5, [kv('\xff\xff', '\xff', 2, 2, 1)]),
    ],
  },
  { name: 'put with an empty key is refused', steps: [{ put: { key: b(''), value: b('x') }, err: ERR.emptyKey }] },
  {
    name: 'put of 1.6 MiB is refused as too large and takes no revision',
    requires: ['requestSizeLimit'],
    steps: [{ put: { key: b('big'), value: new Uint8Array(TOO_LARGE) }, err: ERR.requestTooLarge }, get(rq('big'), 1, [])],
  },
  {
    name: 'the size limit counts the encoded request: a few bytes under fits, a few over does not',
    requires: ['requestSizeLimit'],
    steps: [
      { put: { key: b('k'), value: new Uint8Array(JUST_UNDER) }, want: { rev: 2 } },
      { put: { key: b('k'), value: new Uint8Array(JUST_OVER) }, err: ERR.requestTooLarge },
    ],
  },
  {
    name: 'request checks come before the size check, which comes before lease and key lookups',
    requires: ['requestSizeLimit'],
    steps: [
      { put: { key: b(''), value: new Uint8Array(TOO_LARGE) }, err: ERR.emptyKey },
      { put: { key: b('a'), value: new Uint8Array(TOO_LARGE), ignoreValue: true }, err: ERR.valueProvided },
      { put: { key: b('a'), value: new Uint8Array(TOO_LARGE), lease: 5n }, err: ERR.requestTooLarge },
      { put: { key: b('a'), value: new Uint8Array(TOO_LARGE), ignoreLease: true }, err: ERR.requestTooLarge },
    ],
  },
  {
    name: 'put of 1 MiB is accepted',
    requires: ['requestSizeLimit'],
    steps: [{ put: { key: b('big'), value: new Uint8Array(LARGE_OK) }, want: { rev: 2 } }, get(rq('big', undefined, { countOnly: true }), 2, [], 1)],
  },
]

// Seed for deletes: a, ab, b, c at revisions 2..5.
const DSEED = puts(['a', '1'], ['ab', '2'], ['b', '3'], ['c', '4'])
const DA = kv('a', '1', 2, 2, 1)
const DAB = kv('ab', '2', 3, 3, 1)
const DB = kv('b', '3', 4, 4, 1)
const DC = kv('c', '4', 5, 5, 1)

const del = (key: string, rangeEnd: string | undefined, rev: number, deleted: number, prevKv = false): Step =>
  ({ deleteRange: rangeEnd === undefined ? { key: b(key), prevKv } : { key: b(key), rangeEnd: b(rangeEnd), prevKv }, want: { rev, deleted, prevKvs: [] } })

const DELETE_CASES: readonly Case[] = [
  {
    name: 'delete a single key; older revisions still see it',
    steps: [...DSEED, del('a', undefined, 6, 1), get(rq('\x00', '\x00'), 6, [DAB, DB, DC]), get(rq('a', undefined, { revision: 5 }), 6, [DA])],
  },
  {
    name: 'deleting nothing takes no revision',
    steps: [...DSEED, del('zz', undefined, 5, 0), { put: { key: b('z'), value: b('1') }, want: { rev: 6 } }],
  },
  {
    name: 'delete [key, range_end) removes several keys at one revision',
    steps: [...DSEED, del('a', 'b', 6, 2), get(rq('\x00', '\x00'), 6, [DB, DC]), get(rq('\x00', '\x00', { revision: 5 }), 6, [DA, DAB, DB, DC])],
  },
  { name: 'delete by prefix', steps: [...DSEED, del('ab', 'ac', 6, 1), get(rq('a', 'b'), 6, [DA])] },
  { name: 'delete from key (range_end "\\0")', steps: [...DSEED, del('ab', '\x00', 6, 3), get(rq('\x00', '\x00'), 6, [DA])] },
  {
    name: 'delete everything ("\\0", "\\0"), then recreate from scratch',
    steps: [
      ...DSEED,
      del('\x00', '\x00', 6, 4),
      get(rq('\x00', '\x00'), 6, []),
      { put: { key: b('a'), value: b('x') }, want: { rev: 7 } },
      get(rq('a'), 7, [kv('a', 'x', 7, 7, 1)]),
    ],
  },
  {
    name: 'prev_kv returns the deleted pairs in key order',
    steps: [...DSEED, { deleteRange: { key: b('a'), rangeEnd: b('b'), prevKv: true }, want: { rev: 6, deleted: 2, prevKvs: [DA, DAB] } }],
  },
  { name: 'prev_kv when nothing is deleted', steps: [...DSEED, del('zz', undefined, 5, 0, true)] },
  { name: 'range_end before key deletes nothing', steps: [...DSEED, del('c', 'a', 5, 0, true)] },
  {
    name: 'delete everything with prev_kv includes the key "\\0"',
    steps: [
      ...puts(['a', '1'], ['\x00', '0']),
      { deleteRange: { key: b('\x00'), rangeEnd: b('\x00'), prevKv: true }, want: { rev: 4, deleted: 2, prevKvs: [kv('\x00', '0', 3, 3, 1), kv('a', '1', 2, 2, 1)] } },
    ],
  },
  { name: 'delete with an empty key is refused', steps: [{ deleteRange: { key: b('') }, err: ERR.emptyKey }] },
]

// Seed for compaction: a three times, then b: revisions 2..5.
const CSEED = puts(['a', '1'], ['a', '2'], ['a', '3'], ['b', '1'])

const COMPACT_CASES: readonly Case[] = [
  {
    name: 'after compaction, reads below the compact revision fail and the compact revision is readable',
    steps: [
      ...CSEED,
      { compact: { revision: 3 }, want: { rev: 5 } },
      { range: rq('a', undefined, { revision: 2 }), err: ERR.compacted },
      get(rq('a', undefined, { revision: 3 }), 5, [kv('a', '2', 2, 3, 2)]),
      get(rq('a', undefined, { revision: 4 }), 5, [kv('a', '3', 2, 4, 3)]),
      get(rq('\x00', '\x00'), 5, [kv('a', '3', 2, 4, 3), kv('b', '1', 5, 5, 1)]),
    ],
  },
  {
    name: 'compacting the same or an older revision fails',
    steps: [...CSEED, { compact: { revision: 3 } }, { compact: { revision: 3 }, err: ERR.compacted }, { compact: { revision: 2 }, err: ERR.compacted }],
  },
  {
    name: 'a fresh store compacts revision 0, then 1, each once',
    steps: [
      { compact: { revision: 0 }, want: { rev: 1 } },
      { compact: { revision: 0 }, err: ERR.compacted },
      { compact: { revision: 1 }, want: { rev: 1 } },
      { compact: { revision: 1 }, err: ERR.compacted },
    ],
  },
  { name: 'compacting a negative revision fails as compacted', steps: [{ compact: { revision: -1 }, err: ERR.compacted }] },
  { name: 'compacting a future revision fails', steps: [...CSEED, { compact: { revision: 6 }, err: ERR.futureRev }] },
  {
    name: 'compacting the current revision',
    steps: [...CSEED, { compact: { revision: 5 }, want: { rev: 5 } }, { range: rq('a', undefined, { revision: 4 }), err: ERR.compacted }, get(rq('b', undefined, { revision: 5 }), 5, [kv('b', '1', 5, 5, 1)])],
  },
  { name: 'compaction takes no revision', steps: [...CSEED, { compact: { revision: 3 } }, { put: { key: b('c'), value: b('1') }, want: { rev: 6 } }] },
  {
    name: 'physical compaction waits and then behaves the same',
    requires: ['physicalCompaction'],
    steps: [
      ...CSEED,
      { compact: { revision: 4, physical: true }, want: { rev: 5 } },
      { range: rq('a', undefined, { revision: 3 }), err: ERR.compacted },
      get(rq('a', undefined, { revision: 4 }), 5, [kv('a', '3', 2, 4, 3)]),
    ],
  },
  {
    name: 'physical compactions one after another',
    requires: ['physicalCompaction'],
    steps: [
      ...CSEED,
      { compact: { revision: 2, physical: true }, want: { rev: 5 } },
      { compact: { revision: 3, physical: true }, want: { rev: 5 } },
      { range: rq('a', undefined, { revision: 2 }), err: ERR.compacted },
      get(rq('a', undefined, { revision: 3 }), 5, [kv('a', '2', 2, 3, 2)]),
    ],
  },
  {
    name: 'a key deleted at or before the compact revision is gone from it',
    steps: [...CSEED, { deleteRange: { key: b('a') } }, { compact: { revision: 6 } }, get(rq('a', undefined, { revision: 6 }), 6, []), get(rq('\x00', '\x00'), 6, [kv('b', '1', 5, 5, 1)])],
  },
]

const HEADER_CASES: readonly Case[] = [
  {
    name: 'every response carries the same non-zero cluster_id and member_id, raft_term and the store revision',
    steps: [
      get(rq('a'), 1, []),
      { put: { key: b('a'), value: b('1') }, want: { rev: 2 } },
      get(rq('a', undefined, { serializable: true }), 2, [kv('a', '1', 2, 2, 1)]),
      { deleteRange: { key: b('zz') }, want: { rev: 2, deleted: 0, prevKvs: [] } },
      { txn: {}, want: { rev: 2, succeeded: true, responses: [] } },
      { compact: { revision: 2 }, want: { rev: 2 } },
      { deleteRange: { key: b('a') }, want: { rev: 3, deleted: 1, prevKvs: [] } },
    ],
  },
]

export const KV_WRITE_CASES: readonly Case[] = [...PUT_CASES, ...DELETE_CASES, ...COMPACT_CASES, ...HEADER_CASES]
