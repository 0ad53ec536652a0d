// Calls where etcd 3.4.23 is wrong and a later release is right: each case expects the fix and names the
// release (the reference, 3.4.23, skips it), or says where etcdlite closes a hole no etcd release closes.
import type { EtcdTestClient } from '../harness/client.js'
import { b, opPut, opRange, opTxn, puts, type Case } from '../harness/case.js'
import { AUTH_ERR } from './auth-model.js'
import { watchCreate } from './auth-ops.js'
import { as, authSetup, put, role, user } from './auth-matrix.js'
import { between } from '../harness/match.js'

/** Maintenance calls that need root, as matrix cells. */
const MAINTENANCE_ADMIN: ReadonlyArray<readonly [string, (c: EtcdTestClient) => Promise<void>]> = [
  ['hash', async (c) => void (await c.hash())],
  ['hash KV', async (c) => void (await c.hashKV({ revision: 0 }))],
  ['defragment', async (c) => void (await c.defragment())],
  ['snapshot', async (c) => void (await c.snapshot())],
]

const CVE_2026_44283 = 'etcd 3.4.23 checks only write on the key of a put inside a txn (CVE-2026-44283, fixed in 3.4.44, 3.5.30 and 3.6.11)'

export const FIXED_CASES: readonly Case[] = [
  {
    name: 'a put with prev_kv needs read on the key, inside a txn as well',
    fixedIn: { version: '3.4.44', why: CVE_2026_44283 },
    steps: [
      ...authSetup([user('alice', role('ra', { type: 'WRITE', key: 'w' }))], puts(['w', 'secret'])),
      as('alice', { put: { key: b('w'), value: b('x'), prevKv: true }, err: AUTH_ERR.denied }),
      as('alice', { txn: { success: [opPut('w', 'x', { prevKv: true })] }, err: AUTH_ERR.denied }),
      as('alice', { ...put('w', 'x'), want: { rev: 3 } }),
    ],
  },
  {
    name: "a put attaching a lease needs write on the lease's keys, inside a txn as well",
    fixedIn: { version: '3.4.44', why: CVE_2026_44283 },
    steps: [
      ...authSetup([user('alice', role('ra', { type: 'READWRITE', key: 'a' }))], [{ leaseGrant: { id: 7n, ttl: 600 } }, { put: { key: b('b'), value: b('s'), lease: 7n } }]),
      as('alice', { put: { key: b('a'), value: b('x'), lease: 7n }, err: AUTH_ERR.denied }),
      as('alice', { txn: { success: [opPut('a', 'x', { lease: 7n })] }, err: AUTH_ERR.denied }),
      as('root', { range: { key: b('a') }, want: { kvs: [], more: false, count: 0, rev: 2 } }),
    ],
  },
  {
    name: 'a watch from a key on needs read on every key from it on, not on the first key only',
    fixedIn: { version: '3.4.44', why: 'etcd 3.4.23 checks a from-key watch ("\\0" range end) as a watch of its first key (GHSA-xg4h-6gfc-h4m8); the first release with the fix is assumed to be the one of CVE-2026-44283' },
    steps: [
      ...authSetup([user('alice', role('ra', { type: 'READ', key: 'a' }, { type: 'READ', key: 'b', end: 'c' }))], puts(['a', '1'])),
      {
        matrix: [{
          as: 'alice',
          cells: [
            { name: 'watch from "a"', run: (c) => watchCreate(c, { key: b('a'), rangeEnd: b('\x00') }), want: AUTH_ERR.denied },
            { name: 'watch from "b"', run: (c) => watchCreate(c, { key: b('b'), rangeEnd: b('\x00') }), want: AUTH_ERR.denied },
            { name: 'range from "a"', run: async (c) => void (await c.range({ key: b('a'), rangeEnd: b('\x00') })), want: AUTH_ERR.denied },
            { name: 'watch "a"', run: (c) => watchCreate(c, { key: b('a') }), want: 'ok' },
          ],
        }],
      },
    ],
  },
  {
    name: 'lease time-to-live needs read on every key of the lease, and a user',
    requires: ['lease'],
    fixedIn: { version: '3.4.26', why: 'etcd 3.4.23 shows any lease and its key names to anyone (CVE-2023-32082, fixed in 3.4.26 and 3.5.9)' },
    steps: [
      ...authSetup([user('alice', role('ra', { type: 'READWRITE', key: 'a' }))], [
        { leaseGrant: { id: 7n, ttl: 600 } }, { leaseGrant: { id: 8n, ttl: 600 } }, { leaseGrant: { id: 9n, ttl: 600 } },
        { put: { key: b('a'), value: b('1'), lease: 7n } }, { put: { key: b('b'), value: b('1'), lease: 7n } },
        { put: { key: b('a2'), value: b('1'), lease: 8n } },
      ]),
      { as: 'alice', step: { leaseTimeToLive: { id: 7n, keys: true }, err: AUTH_ERR.denied } },
      { as: 'alice', step: { leaseTimeToLive: { id: 7n }, err: AUTH_ERR.denied } },
      { as: 'alice', step: { leaseTimeToLive: { id: 8n }, err: AUTH_ERR.denied } },
      { as: 'alice', step: { leaseTimeToLive: { id: 9n, keys: true }, want: { id: 9n, ttl: between(1, 600), grantedTtl: 600, keys: [], rev: 4 } } },
      { leaseTimeToLive: { id: 9n }, err: AUTH_ERR.userEmpty },
      { as: 'root', step: { leaseTimeToLive: { id: 7n, keys: true }, want: { id: 7n, ttl: between(1, 600), grantedTtl: 600, keys: ['a', 'b'], rev: 4 } } },
    ],
  },
  {
    name: 'hash, hash KV, defragment and snapshot need root: others get PERMISSION_DENIED, no credentials USER_EMPTY',
    requires: ['maintenance'],
    fixedIn: { version: '3.6.0', why: 'etcd 3.4 and 3.5 send these refusals unmapped: UNKNOWN "auth: permission denied" / "auth: user name is empty"' },
    steps: [
      ...authSetup([user('alice', role('ra', { type: 'READWRITE', key: '\x00', end: '\x00' }))]),
      {
        matrix: [
          { as: 'alice', cells: MAINTENANCE_ADMIN.map(([name, run]) => ({ name, run, want: AUTH_ERR.denied })) },
          { cells: MAINTENANCE_ADMIN.map(([name, run]) => ({ name, run, want: AUTH_ERR.userEmpty })) },
          { as: 'root', cells: MAINTENANCE_ADMIN.map(([name, run]) => ({ name, run, want: 'ok' as const })) },
        ],
      },
    ],
  },
  {
    name: 'alarm with a garbage token fails with INVALID_AUTH_TOKEN',
    requires: ['maintenance', 'authToken'],
    fixedIn: { version: '3.5.0', why: 'etcd 3.4 sends the error of an Alarm call unmapped: UNKNOWN "auth: invalid auth token"' },
    steps: [
      ...authSetup([]),
      { useToken: 'bogus.1', name: 'bad' },
      { as: 'bad', step: { alarm: { action: 'GET', memberId: 0n, alarm: 'NONE' }, err: AUTH_ERR.invalidToken } },
    ],
  },
  {
    name: 'the ops of a nested txn are checked like the outer ones',
    deviation: 'etcd (3.4.23 and, as far as its sources show, every later release) does not check the ops of a nested txn at all (checkTxnReqsPermission has no RequestTxn case), so any user can read and write any key through one; etcdlite checks them',
    requires: ['nestedTxn'],
    steps: [
      ...authSetup([user('alice', role('ra', { type: 'READWRITE', key: 'a' }))], puts(['b', 'secret'])),
      as('alice', { txn: { success: [opTxn({ success: [opRange({ key: b('b') })] })] }, err: AUTH_ERR.denied }),
      as('alice', { txn: { success: [opTxn({ success: [opPut('b', 'x')] })] }, err: AUTH_ERR.denied }),
      as('alice', { txn: { success: [opTxn({ failure: [opPut('b', 'x')] })] }, err: AUTH_ERR.denied }),
      as('alice', { txn: { success: [opTxn({ success: [opPut('a', 'x')] })] } }),
    ],
  },
]

