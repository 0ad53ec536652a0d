// Maintenance and MemberList cases: Status, Hash, HashKV, Alarm (with NOSPACE), Defragment, MoveLeader
// and MemberList. Expectations follow etcd 3.4 etcdserver/api/v3rpc/maintenance.go and member.go,
// mvcc/kvstore.go (HashByRev: compact_revision -1 before any compaction, the compact revision itself is
// compacted), etcdserver/apply.go (applierV3Capped: with NOSPACE raised, puts, txns with puts and lease
// grants fail; reads, deletes and compaction go on) and alarm/alarms.go. Checked against etcd 3.4.23.
//
// Hash values, database sizes, raft indexes and the version string legitimately differ between etcd and
// etcdlite, so the cases assert their shape and their relations (a hash is stable at a revision and moves
// with a write; the leader is this member; dbSizeInUse <= dbSize), never the values themselves.
import type { StatusResponse } from '../harness/client.js'
import { b, ERR, FRESH_RAFT_TERM, kv, NO_HEADER, opDel, opPut, saved, type Case, type LooseWant, type Step } from '../harness/case.js'
import { get, rq } from './kv.js'
import {
  allOf, atMostField, capture, differs, greaterThan, headerMember, Matcher, nonEmptyString, oneOf, positive, same,
  stringList, uint32,
} from '../harness/match.js'

/**
 * The `rev` of an AlarmResponse: etcd 3.4 sends none (its applier builds the response without a header);
 * 3.5 and later fill it with the current revision. Either is etcd's behaviour.
 */
const alarmRev = (rev: number): Matcher => oneOf(`revision ${rev}, or no header (etcd 3.4)`, NO_HEADER, rev)
/** Every etcd release answers Defragment and MoveLeader without a header; a filled one is harmless. */
const bareRev = (rev: number): Matcher => oneOf(`no header (as etcd), or revision ${rev}`, NO_HEADER, rev)
/** A Status error naming a raised alarm, as etcd prints an AlarmMember (Go proto text, trailing space). */
const alarmText = (member: string, alarm: string): Matcher =>
  new Matcher(`"memberID:<${member}> alarm:${alarm} "`, (x, ctx) => {
    const id = ctx.saved.get(member)
    return typeof id === 'bigint' && x === `memberID:${id} alarm:${alarm} `
  })
const nonEmptyList = new Matcher('a non-empty list of non-empty strings', (x, ctx) => Array.isArray(x) && x.length > 0 && stringList.test(x, ctx))

/** What Status answers for a healthy single member at `rev`, with no alarm raised. */
const healthyWant = (rev: number): LooseWant<StatusResponse> => ({
    version: nonEmptyString,
    dbSize: positive,
    leader: headerMember,
    raftIndex: positive,
    raftTerm: FRESH_RAFT_TERM,
    raftAppliedIndex: allOf(positive, atMostField('raftIndex')),
    errors: [],
    dbSizeInUse: allOf(positive, atMostField('dbSize')),
    isLearner: false,
    rev,
})
const status = (want: LooseWant<StatusResponse>): Step => ({ status: true, want })
const healthy = (rev: number): Step => status(healthyWant(rev))
/** Status at `rev`, capturing this member's ID as `me` (from the leader field, which must be this member). */
const whoAmI = (rev: number): Step => status({ ...healthyWant(rev), leader: capture('me', headerMember) })
const put = (key: string, value = '1'): Step => ({ put: { key: b(key), value: b(value) } })
const listAlarms = (rev: number, ...alarms: { memberId: Matcher | bigint; alarm: 'NOSPACE' | 'CORRUPT' }[]): Step =>
  ({ alarm: { action: 'GET', memberId: 0n, alarm: 'NONE' }, want: { alarms, rev: alarmRev(rev) } })

const STATUS_CASES: readonly Case[] = [
  { name: 'status describes this member: leader is itself, the raft term, sizes and a version', steps: [healthy(1)] },
  {
    name: 'status follows writes: its header has the new revision and the raft index grew',
    steps: [
      status({ ...healthyWant(1), raftIndex: capture('index', positive) }),
      put('a'),
      status({ ...healthyWant(2), raftIndex: greaterThan('index') }),
    ],
  },
]

const HASH_CASES: readonly Case[] = [
  { name: 'hashKV of a fresh store: compact_revision -1 (nothing compacted yet)', steps: [{ hashKV: { revision: 0 }, want: { hash: uint32, compactRevision: -1, rev: 1 } }] },
  {
    name: 'hashKV at a revision is stable across later writes; the current one moves with them',
    steps: [
      put('a'),
      put('b'),
      { hashKV: { revision: 3 }, want: { hash: capture('h3', uint32), compactRevision: -1, rev: 3 } },
      { hashKV: { revision: 0 }, want: { hash: same('h3'), compactRevision: -1, rev: 3 } },
      put('c'),
      { hashKV: { revision: 3 }, want: { hash: same('h3'), compactRevision: -1, rev: 4 } },
      { hashKV: { revision: 0 }, want: { hash: allOf(uint32, differs('h3'), capture('h4')), compactRevision: -1, rev: 4 } },
      { hashKV: { revision: 4 }, want: { hash: same('h4'), compactRevision: -1, rev: 4 } },
      { hashKV: { revision: 2 }, want: { hash: differs('h3'), compactRevision: -1, rev: 4 } },
    ],
  },
  {
    name: 'hashKV moves when only a value changes',
    steps: [
      put('a', '1'),
      { hashKV: { revision: 0 }, want: { hash: capture('h2', uint32), compactRevision: -1, rev: 2 } },
      put('a', '2'),
      { hashKV: { revision: 0 }, want: { hash: differs('h2'), compactRevision: -1, rev: 3 } },
    ],
  },
  {
    name: 'after compaction hashKV reports the compact revision; the compact revision itself and older ones are compacted',
    steps: [
      put('a', '1'),
      put('a', '2'),
      put('a', '3'),
      { compact: { revision: 3 } },
      { hashKV: { revision: 4 }, want: { hash: uint32, compactRevision: 3, rev: 4 } },
      { hashKV: { revision: 0 }, want: { hash: uint32, compactRevision: 3, rev: 4 } },
      { hashKV: { revision: 3 }, err: ERR.compacted },
      { hashKV: { revision: 2 }, err: ERR.compacted },
    ],
  },
  { name: 'hashKV of a future revision fails', steps: [put('a'), { hashKV: { revision: 3 }, err: ERR.futureRev }] },
  {
    name: 'hash covers the whole store at the current revision and moves with a write',
    steps: [
      { hash: true, want: { hash: capture('h1', uint32), rev: 1 } },
      put('a'),
      { hash: true, want: { hash: allOf(uint32, differs('h1')), rev: 2 } },
    ],
  },
]

const ALARM_CASES: readonly Case[] = [
  { name: 'a fresh server has no alarms', steps: [listAlarms(1)] },
  {
    name: 'NOSPACE raised: puts, txns with puts and lease grants fail; reads, deletes and compaction go on; disarming restores writes',
    requires: ['lease', 'noSpaceErrors'],
    steps: [
      put('a'),
      put('b'),
      whoAmI(3),
      { alarm: { action: 'ACTIVATE', memberId: saved('me'), alarm: 'NOSPACE' }, want: { alarms: [{ memberId: same('me'), alarm: 'NOSPACE' }], rev: alarmRev(3) } },
      listAlarms(3, { memberId: same('me'), alarm: 'NOSPACE' }),
      status({ ...healthyWant(3), errors: [alarmText('me', 'NOSPACE')] }),
      { put: { key: b('c'), value: b('1') }, err: ERR.noSpace },
      { txn: { success: [opPut('c', '1')] }, err: ERR.noSpace },
      { txn: { success: [opDel('a')], failure: [opPut('c', '1')] }, err: ERR.noSpace },
      { leaseGrant: { id: 7n, ttl: 600 }, err: ERR.noSpace },
      get(rq('\x00', '\x00'), 3, [kv('a', '1', 2, 2, 1), kv('b', '1', 3, 3, 1)]),
      { deleteRange: { key: b('a') }, want: { rev: 4, deleted: 1, prevKvs: [] } },
      { txn: { success: [opDel('b')] }, want: { rev: 5, succeeded: true, responses: [{ type: 'deleteRange', response: { header: { clusterId: 0n, memberId: 0n, revision: 5, raftTerm: 0 }, deleted: 1, prevKvs: [] } }] } },
      { compact: { revision: 4 }, want: { rev: 5 } },
      // Freeing space does not disarm the alarm.
      { put: { key: b('c'), value: b('1') }, err: ERR.noSpace },
      { alarm: { action: 'DEACTIVATE', memberId: saved('me'), alarm: 'NOSPACE' }, want: { alarms: [{ memberId: same('me'), alarm: 'NOSPACE' }], rev: alarmRev(5) } },
      listAlarms(5),
      healthy(5),
      { put: { key: b('c'), value: b('1') }, want: { rev: 6 } },
    ],
  },
  {
    name: 'raising an alarm that is raised answers it again; disarming one that is not raised answers no alarms',
    steps: [
      whoAmI(1),
      { alarm: { action: 'ACTIVATE', memberId: saved('me'), alarm: 'NOSPACE' }, want: { alarms: [{ memberId: same('me'), alarm: 'NOSPACE' }], rev: alarmRev(1) } },
      { alarm: { action: 'ACTIVATE', memberId: saved('me'), alarm: 'NOSPACE' }, want: { alarms: [{ memberId: same('me'), alarm: 'NOSPACE' }], rev: alarmRev(1) } },
      { alarm: { action: 'DEACTIVATE', memberId: saved('me'), alarm: 'NOSPACE' }, want: { alarms: [{ memberId: same('me'), alarm: 'NOSPACE' }], rev: alarmRev(1) } },
      { alarm: { action: 'DEACTIVATE', memberId: saved('me'), alarm: 'NOSPACE' }, want: { alarms: [], rev: alarmRev(1) } },
      listAlarms(1),
    ],
  },
  {
    name: 'raising alarm type NONE raises nothing',
    fixedIn: { version: '3.5.0', why: 'etcd 3.4 stores a NONE alarm for the member and lists it (etcd-io/etcd#13084 stopped that)' },
    steps: [
      whoAmI(1),
      { alarm: { action: 'ACTIVATE', memberId: saved('me'), alarm: 'NONE' }, want: { alarms: [], rev: alarmRev(1) } },
      listAlarms(1),
      healthy(1),
      { put: { key: b('a'), value: b('1') }, want: { rev: 2 } },
    ],
  },
]

const MEMBER_CASES: readonly Case[] = [
  {
    // etcd's ClusterServer builds this header itself, without a revision.
    name: 'member list shows this one member, whose ID is the header member_id; the header has no revision',
    steps: [
      put('a'),
      {
        memberList: true,
        want: { members: [{ id: headerMember, name: nonEmptyString, peerUrls: nonEmptyList, clientUrls: stringList, isLearner: false }], rev: 0 },
      },
    ],
  },
  {
    name: 'move leader to a member that does not exist fails with bad leader transferee',
    steps: [{ moveLeader: { targetId: 12345n }, err: ERR.badLeaderTransferee }],
  },
  {
    name: 'move leader to the leader itself succeeds',
    steps: [whoAmI(1), { moveLeader: { targetId: saved('me') }, want: { rev: bareRev(1) } }],
  },
]

const DEFRAG_CASES: readonly Case[] = [
  {
    name: 'defragment succeeds and leaves the data, the revision and the hashes as they were',
    steps: [
      put('a', '1'),
      put('a', '2'),
      put('b', '1'),
      { compact: { revision: 3 } },
      { hashKV: { revision: 0 }, want: { hash: capture('h', uint32), compactRevision: 3, rev: 4 } },
      { defragment: true, want: { rev: bareRev(4) } },
      get(rq('\x00', '\x00'), 4, [kv('a', '2', 2, 3, 2), kv('b', '1', 4, 4, 1)]),
      { hashKV: { revision: 0 }, want: { hash: same('h'), compactRevision: 3, rev: 4 } },
      { range: rq('a', undefined, { revision: 2 }), err: ERR.compacted },
      healthy(4),
      { put: { key: b('c'), value: b('1') }, want: { rev: 5 } },
    ],
  },
]

export const MAINTENANCE_CASES: readonly Case[] = [...STATUS_CASES, ...HASH_CASES, ...ALARM_CASES, ...MEMBER_CASES, ...DEFRAG_CASES].map(
  (c) => ({ ...c, requires: [...(c.requires ?? []), 'maintenance'] }),
)
