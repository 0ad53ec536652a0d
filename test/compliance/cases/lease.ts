// Lease cases: grant (server-picked and explicit IDs, the minimum and maximum TTL, duplicates), revoke
// (attached keys deleted in one revision, seen by a watcher as one response), keep-alive, time-to-live,
// leases, and how puts, txns and deletes attach and detach keys. Expectations follow etcd 3.4
// etcdserver/api/v3rpc/lease.go, etcdserver/v3_server.go (LeaseGrant picks a positive ID; LeaseTimeToLive),
// etcdserver/apply.go (LeaseGrant/LeaseRevoke headers; checkRequestPut on the txn path taken) and
// lease/lessor.go (Grant: TTL limit before the duplicate check, minimum TTL; Revoke deletes the sorted keys
// in one txn, which takes no revision when there are none). Checked against the real etcd 3.4.23.
//
// Every lease here lives far longer than a case (TTL 600 s): nothing expires while a case runs. Expiry is
// covered with a ManualClock in test/unit/embed/lease-clock.test.ts. A TTL that counts down is compared
// as a range (1..granted), never as a number of seconds.
import { b, cmp, ERR, kv, opPut, rPut, saved, type Case, type Step, type View } from '../harness/case.js'
import type { KeyValue } from '../../../src/etcdserver/types/kv.js'
import { get, rq } from './kv.js'
import { allOf, between, capture, differs, positive, same, type Loose } from '../harness/match.js'
import { delEv, events, expect, putEv, watch, watchKey } from '../harness/watch-steps.js'

const TTL = 600
/** etcd's minimum lease TTL with the default election timeout (1.5 x 1000 ms, rounded up to seconds). */
const MIN_TTL = 2
/** lease.MaxLeaseTTL. */
const MAX_TTL = 9_000_000_000
const S = 's'

// Builders

/** Seed: grant lease `id` (TTL 600 unless given); must succeed. */
const grant = (id: bigint, ttl = TTL): Step => ({ leaseGrant: { id, ttl } })
/** Seed: put key=value attached to `lease` (0n: none). */
const put = (key: string, value: string, lease = 0n): Step => ({ put: { key: b(key), value: b(value), lease } })
/** A grant step and its exact answer. */
const granted = (id: bigint, ttl: number, rev: number, wantTtl = ttl): Step =>
  ({ leaseGrant: { id, ttl }, want: { id, ttl: wantTtl, error: '', rev } })
const revoke = (id: bigint, rev: number): Step => ({ leaseRevoke: { id }, want: { rev } })
/** time-to-live of a live lease granted `grantedTtl`; with `keys`, the attached keys (any order). */
const alive = (id: bigint | string, rev: number, keys?: string[], grantedTtl = TTL): Step => {
  const ref = typeof id === 'bigint' ? id : saved(id)
  const wantId: Loose<bigint> = typeof id === 'bigint' ? id : same(id)
  return {
    leaseTimeToLive: keys === undefined ? { id: ref } : { id: ref, keys: true },
    want: { id: wantId, ttl: between(1, grantedTtl), grantedTtl, keys: keys ?? [], rev },
  }
}
/** time-to-live of a lease that does not exist: TTL -1, granted 0, no keys; not an error. */
const gone = (id: bigint, rev: number): Step =>
  ({ leaseTimeToLive: { id, keys: true }, want: { id, ttl: -1, grantedTtl: 0, keys: [], rev } })
const leases = (rev: number, ...ids: bigint[]): Step => ({ leaseLeases: true, want: { leases: ids.map((id) => ({ id })), rev } })
/** A key-value attached to `lease`. */
const lkv = (key: string, value: string, create: number, mod: number, version: number, lease: bigint): View<KeyValue> =>
  kv(key, value, create, mod, version, lease)

const GRANT_CASES: readonly Case[] = [
  {
    name: 'grant without an ID: the server picks a positive one that every lease call accepts',
    steps: [
      { leaseGrant: { ttl: TTL }, want: { id: capture('L', positive), ttl: TTL, error: '', rev: 1 } },
      alive('L', 1),
      { leaseLeases: true, want: { leases: [{ id: same('L') }], rev: 1 } },
      { leaseKeepAlive: [{ id: saved('L') }], want: [{ id: same('L'), ttl: TTL, rev: 1 }] },
      { leaseRevoke: { id: saved('L') }, want: { rev: 1 } },
      { leaseTimeToLive: { id: saved('L') }, want: { id: same('L'), ttl: -1, grantedTtl: 0, keys: [], rev: 1 } },
    ],
  },
  {
    name: 'grant with ID 0 lets the server pick, and two picks differ',
    steps: [
      { leaseGrant: { id: 0n, ttl: TTL }, want: { id: capture('A', positive), ttl: TTL, error: '', rev: 1 } },
      { leaseGrant: { id: 0n, ttl: TTL }, want: { id: allOf(positive, differs('A')), ttl: TTL, error: '', rev: 1 } },
    ],
  },
  { name: 'grant with an explicit ID returns that ID and the requested TTL', steps: [granted(1000n, TTL, 1), alive(1000n, 1)] },
  { name: 'grant with an explicit ID above 2^53 keeps every bit', steps: [granted(0x7fff_ffff_ffff_fff0n, TTL, 1), leases(1, 0x7fff_ffff_ffff_fff0n)] },
  // etcd only refuses ID 0 (it means "pick one"); a negative explicit ID is granted as given.
  { name: 'grant with a negative explicit ID is granted as given', steps: [granted(-5n, TTL, 1), leases(1, -5n)] },
  {
    name: 'grant of an existing ID fails with lease already exists and leaves the lease as it was',
    steps: [grant(7n), { leaseGrant: { id: 7n, ttl: 100 }, err: ERR.leaseExists }, alive(7n, 1)],
  },
  ...([1, 0, -5] as const).map((ttl): Case => ({
    name: `a TTL of ${ttl} is raised to the minimum of ${MIN_TTL} s`,
    steps: [granted(1n, ttl, 1, MIN_TTL)],
  })),
  { name: 'a TTL of exactly the minimum is kept', steps: [granted(1n, MIN_TTL, 1)] },
  { name: 'a TTL just above the minimum is kept', steps: [granted(1n, MIN_TTL + 1, 1)] },
  { name: `the largest TTL, ${MAX_TTL} s, is granted`, steps: [granted(1n, MAX_TTL, 1)] },
  {
    name: 'a TTL above the largest fails with too large lease TTL and grants nothing',
    steps: [{ leaseGrant: { id: 5n, ttl: MAX_TTL + 1 }, err: ERR.leaseTtlTooLarge }, leases(1), gone(5n, 1)],
  },
  {
    name: 'the TTL limit is checked before the existing ID',
    steps: [grant(5n), { leaseGrant: { id: 5n, ttl: MAX_TTL + 1 }, err: ERR.leaseTtlTooLarge }],
  },
  {
    name: 'grant takes no revision; its header carries the current one',
    steps: [put('a', '1'), put('b', '1'), granted(1n, TTL, 3), { put: { key: b('c'), value: b('1') }, want: { rev: 4 } }],
  },
  { name: 'a revoked ID can be granted again', steps: [grant(7n), revoke(7n, 1), granted(7n, 100, 1), alive(7n, 1, [], 100)] },
  { name: 'a fresh server has no leases', steps: [leases(1)] },
  {
    name: 'leases lists every live lease, and a revoked one no more',
    steps: [grant(3n), grant(1n), grant(2n), leases(1, 1n, 2n, 3n), revoke(2n, 1), leases(1, 1n, 3n)],
  },
]

const REVOKE_CASES: readonly Case[] = [
  { name: 'revoke of an unknown lease fails with lease not found', steps: [{ leaseRevoke: { id: 99n }, err: ERR.leaseNotFound }] },
  {
    name: 'after revoke the lease is gone: revoke again fails, keep-alive answers TTL 0, time-to-live -1',
    steps: [
      grant(7n),
      revoke(7n, 1),
      { leaseRevoke: { id: 7n }, err: ERR.leaseNotFound },
      { leaseKeepAlive: [{ id: 7n }], want: [{ id: 7n, ttl: 0, rev: 1 }] },
      gone(7n, 1),
      leases(1),
    ],
  },
  {
    name: 'revoke deletes every attached key in one revision; a watcher gets the deletes in one response, in key order',
    steps: [
      grant(7n),
      put('b', '1', 7n),
      put('a', '1', 7n),
      put('c', '1'),
      put('d', '1', 7n),
      ...watch(S, watchKey('\x00', '\x00'), 0, 5),
      revoke(7n, 6),
      expect(S, events(0, 6, delEv('a', 6), delEv('b', 6), delEv('d', 6))),
      get(rq('\x00', '\x00'), 6, [kv('c', '1', 4, 4, 1)]),
      // The revoke took one revision: the next write is the next one, and its event follows the deletes.
      { put: { key: b('e'), value: b('1') }, want: { rev: 7 } },
      expect(S, events(0, 7, putEv(kv('e', '1', 7, 7, 1)))),
    ],
  },
  {
    name: 'the delete events of a revoke carry prev_kv with the lease',
    steps: [
      grant(7n),
      put('a', '1', 7n),
      ...watch(S, watchKey('a', undefined, { prevKv: true }), 0, 2),
      revoke(7n, 3),
      expect(S, events(0, 3, delEv('a', 3, lkv('a', '1', 2, 2, 1, 7n)))),
    ],
  },
  {
    name: 'revoke of a lease without keys takes no revision',
    steps: [put('a', '1'), grant(7n), revoke(7n, 2), { put: { key: b('b'), value: b('1') }, want: { rev: 3 } }],
  },
  {
    name: 'a put with a revoked lease fails with lease not found and takes no revision',
    steps: [grant(7n), revoke(7n, 1), { put: { key: b('a'), value: b('1'), lease: 7n }, err: ERR.leaseNotFound }, get(rq('a'), 1, [])],
  },
]

const KEEPALIVE_CASES: readonly Case[] = [
  {
    name: 'keep-alive answers each request on one stream in order: the granted TTL, or TTL 0 for an unknown lease',
    steps: [
      put('a', '1'),
      put('b', '1'),
      grant(7n),
      grant(8n, 300),
      {
        leaseKeepAlive: [{ id: 7n }, { id: 99n }, { id: 8n }, { id: 7n }],
        want: [{ id: 7n, ttl: TTL, rev: 3 }, { id: 99n, ttl: 0, rev: 3 }, { id: 8n, ttl: 300, rev: 3 }, { id: 7n, ttl: TTL, rev: 3 }],
      },
    ],
  },
  {
    name: 'keep-alive resets the time left to the granted TTL',
    steps: [grant(7n, 300), { leaseKeepAlive: [{ id: 7n }], want: [{ id: 7n, ttl: 300, rev: 1 }] }, alive(7n, 1, undefined, 300)],
  },
]

const TIME_TO_LIVE_CASES: readonly Case[] = [
  {
    name: 'time-to-live reports the time left and the granted TTL, and the attached keys only when asked',
    steps: [
      grant(7n),
      put('b', '1', 7n),
      put('a', '1', 7n),
      put('x', '1'),
      put('c', '1', 7n),
      alive(7n, 5),
      alive(7n, 5, ['a', 'b', 'c']),
    ],
  },
  { name: 'time-to-live of an unknown lease answers TTL -1 and granted TTL 0, not an error', steps: [put('a', '1'), gone(99n, 2)] },
  {
    name: 'time-to-live keys are the keys, not their values or revisions: a key put twice is listed once',
    steps: [grant(7n), put('a', '1', 7n), put('a', '2', 7n), put('\x00\xff', '1', 7n), alive(7n, 4, ['\x00\xff', 'a'])],
  },
]

const ATTACH_CASES: readonly Case[] = [
  {
    name: 'a put with a lease attaches the key: reads show the lease ID',
    steps: [grant(7n), put('a', '1', 7n), get(rq('a'), 2, [lkv('a', '1', 2, 2, 1, 7n)])],
  },
  {
    name: 'prev_kv carries the lease of the previous value',
    steps: [grant(7n), put('a', '1', 7n), { put: { key: b('a'), value: b('2'), prevKv: true }, want: { rev: 3, prevKv: lkv('a', '1', 2, 2, 1, 7n) } }],
  },
  {
    name: 'a put without a lease detaches the key: revoke leaves it alone',
    steps: [
      grant(7n),
      put('a', '1', 7n),
      put('a', '2'),
      get(rq('a'), 3, [kv('a', '2', 2, 3, 2)]),
      alive(7n, 3, []),
      revoke(7n, 3),
      get(rq('a'), 3, [kv('a', '2', 2, 3, 2)]),
    ],
  },
  {
    name: 'ignore_lease keeps the lease: revoke still deletes the key',
    steps: [
      grant(7n),
      put('a', '1', 7n),
      { put: { key: b('a'), value: b('2'), ignoreLease: true }, want: { rev: 3 } },
      get(rq('a'), 3, [lkv('a', '2', 2, 3, 2, 7n)]),
      alive(7n, 3, ['a']),
      revoke(7n, 4),
      get(rq('a'), 4, []),
    ],
  },
  {
    name: 'ignore_value keeps the value and takes the new lease',
    steps: [
      grant(7n),
      grant(8n),
      put('a', '1', 7n),
      { put: { key: b('a'), ignoreValue: true, lease: 8n }, want: { rev: 3 } },
      get(rq('a'), 3, [lkv('a', '1', 2, 3, 2, 8n)]),
      alive(7n, 3, []),
      alive(8n, 3, ['a']),
    ],
  },
  {
    name: 'a put with another lease moves the key to it',
    steps: [
      grant(7n),
      grant(8n),
      put('a', '1', 7n),
      put('a', '2', 8n),
      alive(7n, 3, []),
      alive(8n, 3, ['a']),
      revoke(7n, 3),
      get(rq('a'), 3, [lkv('a', '2', 2, 3, 2, 8n)]),
      revoke(8n, 4),
      get(rq('a'), 4, []),
    ],
  },
  {
    name: 'a delete detaches the key: put again without a lease, revoke leaves it alone',
    steps: [
      grant(7n),
      put('a', '1', 7n),
      { deleteRange: { key: b('a') }, want: { rev: 3, deleted: 1, prevKvs: [] } },
      alive(7n, 3, []),
      put('a', '2'),
      revoke(7n, 4),
      get(rq('a'), 4, [kv('a', '2', 4, 4, 1)]),
    ],
  },
  {
    name: 'a key deleted and put again with the same lease is attached again, once',
    steps: [
      grant(7n),
      put('a', '1', 7n),
      { deleteRange: { key: b('a') } },
      put('a', '2', 7n),
      alive(7n, 4, ['a']),
      revoke(7n, 5),
      get(rq('a'), 5, []),
    ],
  },
  {
    name: 'compaction does not touch attachments: a key detached before the compact revision stays detached',
    steps: [
      grant(7n),
      put('a', '1', 7n),
      put('a', '2'),
      put('b', '1', 7n),
      { compact: { revision: 4 } },
      alive(7n, 4, ['b']),
      revoke(7n, 5),
      get(rq('\x00', '\x00'), 5, [kv('a', '2', 2, 3, 2)]),
    ],
  },
  {
    name: 'a range delete detaches every key it deletes, leased or not',
    steps: [
      grant(7n),
      put('a', '1', 7n),
      put('b', '1'),
      put('c', '1', 7n),
      { deleteRange: { key: b('a'), rangeEnd: b('c') }, want: { rev: 5, deleted: 2, prevKvs: [] } },
      alive(7n, 5, ['c']),
      revoke(7n, 6),
      get(rq('\x00', '\x00'), 6, []),
    ],
  },
  {
    name: 'a txn put with an unknown lease fails with lease not found and takes no revision',
    steps: [{ txn: { success: [opPut('a', '1', { lease: 5n })] }, err: ERR.leaseNotFound }, get(rq('a'), 1, [])],
  },
  {
    name: 'a txn checks leases only on the branch it takes; its puts attach keys',
    steps: [
      grant(7n),
      {
        txn: { compare: [cmp('a', 'VERSION', 'EQUAL', 0)], success: [opPut('a', '1', { lease: 7n })], failure: [opPut('b', '1', { lease: 99n })] },
        want: { rev: 2, succeeded: true, responses: [rPut(2)] },
      },
      {
        txn: { compare: [cmp('a', 'VERSION', 'EQUAL', 0)], success: [opPut('b', '1', { lease: 99n })], failure: [opPut('c', '1', { lease: 7n })] },
        want: { rev: 3, succeeded: false, responses: [rPut(3)] },
      },
      alive(7n, 3, ['a', 'c']),
      revoke(7n, 4),
      get(rq('\x00', '\x00'), 4, []),
    ],
  },
  {
    name: 'a txn compares the lease ID of a key',
    steps: [
      grant(7n),
      put('a', '1', 7n),
      { txn: { compare: [cmp('a', 'LEASE', 'EQUAL', 7n)] }, want: { rev: 2, succeeded: true, responses: [] } },
      { txn: { compare: [cmp('a', 'LEASE', 'EQUAL', 0n)] }, want: { rev: 2, succeeded: false, responses: [] } },
      { txn: { compare: [cmp('a', 'LEASE', 'GREATER', 6n)] }, want: { rev: 2, succeeded: true, responses: [] } },
    ],
  },
]

export const LEASE_CASES: readonly Case[] = [...GRANT_CASES, ...REVOKE_CASES, ...KEEPALIVE_CASES, ...TIME_TO_LIVE_CASES, ...ATTACH_CASES].map(
  (c) => ({ ...c, requires: [...(c.requires ?? []), 'lease'] }),
)
