// Downgrade (etcd 3.5) and MemberList's linearizable field. Expectations follow etcd 3.5.17's
// etcdserver/v3_server.go (downgradeValidate, downgradeEnable, downgradeCancel), cluster_util.go
// convertToClusterVersion (go-semver, or major.minor with ".0" appended), membership/downgrade.go
// (AllowedDowngradeVersion: one minor below the cluster version) and api/v3rpc/maintenance.go; the root
// role after the CVE-2026-33413 hardening. etcd 3.5's applier returns no result for the DowngradeInfoSet
// proposal that ENABLE and CANCEL make, so there those calls take effect and then fail with "request timed
// out"; etcd 3.6 answers them with the cluster version, and the cases expect that fix.
// etcd 3.4 has no Downgrade: the reference adapter skips these cases (supports.downgrade).
import { ERR, type Case, type Step } from '../harness/case.js'
import type { DowngradeRequest } from '../harness/client.js'
import type { Op } from './auth-model.js'
import { matrixCase } from './auth-matrix.js'
import { capture, greaterThan, headerMember, nonEmptyString, positive, stringList } from '../harness/match.js'

/** The cluster version of etcdlite's default etcd version (3.5.17): what a validated downgrade answers. */
const CLUSTER_VERSION = '3.5.0'

const dg = (action: NonNullable<DowngradeRequest['action']>, version = ''): { readonly downgrade: DowngradeRequest } => ({ downgrade: { action, version } })
const validates = (version: string, rev = 1): Step => ({ ...dg('VALIDATE', version), want: { version: CLUSTER_VERSION, rev } })
/** ENABLE or CANCEL answered as etcd 3.6 answers them (etcd 3.5 takes the change, then times out). */
const applies = (action: 'ENABLE' | 'CANCEL', version = '', rev = 1): Step => ({ ...dg(action, version), want: { version: CLUSTER_VERSION, rev } })

const VALIDATE_CASES: readonly Case[] = [
  {
    name: 'downgrade validate: the previous minor version, as major.minor or a full version, answers with the cluster version',
    // go-semver accepts an empty pre-release or metadata after its separator, and leading zeros.
    steps: ['3.4', '3.4.0', '3.4.23', '3.4.0-rc.1', '3.4.1+meta', '3.4.0-alpha.1+build.5', '03.04.0', '3.4.0+', '3.4.0-'].map((v) => validates(v)),
  },
  {
    name: 'downgrade validate: a version go-semver cannot read, even with ".0" appended, is a wrong format',
    steps: ['', 'abc', '3', 'v3.4', '3.4.x', '3.4.0.1', '3.4.', '.4', '3.4-rc', '3.4.0-rc..1', '3.4+', '-3.4', ' 3.4', '3.4.99999999999999999999']
      .map((v): Step => ({ ...dg('VALIDATE', v), err: ERR.wrongDowngradeVersionFormat })),
  },
  {
    name: 'downgrade validate: any target but one minor below the cluster version is invalid',
    steps: ['3.3', '3.5', '3.5.17', '3.6', '2.4', '4.4', '3.2.0']
      .map((v): Step => ({ ...dg('VALIDATE', v), err: ERR.invalidDowngradeTargetVersion })),
  },
  {
    name: 'downgrade: the action defaults to validate (proto3 zero value)',
    steps: [{ downgrade: { version: '3.4' }, want: { version: CLUSTER_VERSION, rev: 1 } }, { downgrade: { version: '3.3' }, err: ERR.invalidDowngradeTargetVersion }],
  },
  {
    name: 'downgrade cancel with no downgrade enabled: no inflight downgrade job',
    steps: [dg('CANCEL'), dg('CANCEL', '3.4')].map((s): Step => ({ ...s, err: ERR.noInflightDowngrade })),
  },
]

const ENABLE_CASES: readonly Case[] = [
  {
    name: 'downgrade enable: takes effect and answers the cluster version [etcd 3.6; 3.5 times out]; then validate and enable are in process, cancel ends it',
    steps: [
      { ...dg('ENABLE', 'x'), err: ERR.wrongDowngradeVersionFormat },
      { ...dg('ENABLE', '3.3'), err: ERR.invalidDowngradeTargetVersion },
      applies('ENABLE', '3.4'),
      { ...dg('VALIDATE', '3.4'), err: ERR.downgradeInProcess },
      { ...dg('ENABLE', '3.4.2'), err: ERR.downgradeInProcess },
      // The target is checked before the state.
      { ...dg('ENABLE', '3.3'), err: ERR.invalidDowngradeTargetVersion },
      { ...dg('VALIDATE', 'nope'), err: ERR.wrongDowngradeVersionFormat },
      applies('CANCEL'),
      validates('3.4'),
      { ...dg('CANCEL'), err: ERR.noInflightDowngrade },
      applies('ENABLE', '3.4.0'),
      { ...dg('VALIDATE', '3.4'), err: ERR.downgradeInProcess },
    ],
  },
  {
    // Status is in the Maintenance service.
    requires: ['maintenance'],
    name: 'downgrade enable and cancel are raft entries: the raft index grows, the revision does not',
    steps: [
      { put: { key: new TextEncoder().encode('a'), value: new TextEncoder().encode('1') } },
      { status: true, want: { version: nonEmptyString, dbSize: positive, leader: headerMember, raftIndex: capture('i0', positive), raftTerm: positive, raftAppliedIndex: positive, errors: [], dbSizeInUse: positive, isLearner: false, rev: 2 } },
      applies('ENABLE', '3.4', 2),
      { status: true, want: { version: nonEmptyString, dbSize: positive, leader: headerMember, raftIndex: allOfGreater('i0', 'i1'), raftTerm: positive, raftAppliedIndex: positive, errors: [], dbSizeInUse: positive, isLearner: false, rev: 2 } },
      applies('CANCEL', '', 2),
      { status: true, want: { version: nonEmptyString, dbSize: positive, leader: headerMember, raftIndex: greaterThan('i1'), raftTerm: positive, raftAppliedIndex: positive, errors: [], dbSizeInUse: positive, isLearner: false, rev: 2 } },
      validates('3.4', 2),
    ],
  },
]

/** Greater than the captured `prev`, and captured as `name` for the next step. */
function allOfGreater(prev: string, name: string): ReturnType<typeof capture> {
  return capture(name, greaterThan(prev))
}

/** Validating an allowed target changes nothing, so every principal can run it in turn. */
const downgradeValidateOp: Op = {
  name: 'downgrade validate 3.4',
  need: () => ({ kind: 'admin' }),
  run: async (c) => void (await c.downgrade({ action: 'VALIDATE', version: '3.4' })),
}
const downgradeBadTargetOp: Op = {
  name: 'downgrade validate 3.3 (an invalid target)',
  need: () => ({ kind: 'admin' }),
  allowed: () => ERR.invalidDowngradeTargetVersion,
  run: async (c) => void (await c.downgrade({ action: 'VALIDATE', version: '3.3' })),
}
const downgradeCancelOp: Op = {
  name: 'downgrade cancel (none in flight)',
  need: () => ({ kind: 'admin' }),
  allowed: () => ERR.noInflightDowngrade,
  run: async (c) => void (await c.downgrade({ action: 'CANCEL', version: '' })),
}

const AUTH_CASES: readonly Case[] = [
  {
    ...matrixCase('downgrade (root only, checked before the request) [after the CVE-2026-33413 hardening]', [downgradeValidateOp, downgradeBadTargetOp, downgradeCancelOp]),
    requires: ['auth', 'downgrade', 'authHardened'],
  },
]

const MEMBER_LIST_CASES: readonly Case[] = [
  {
    // etcd 3.5 reads a linearizable index first; etcd 3.4 skips the field it does not know.
    name: 'member list with linearizable set answers as without it',
    steps: [
      {
        memberList: { linearizable: true },
        want: { members: [{ id: capture('id', headerMember), name: nonEmptyString, peerUrls: stringList, clientUrls: stringList, isLearner: false }], rev: 0 },
      },
      { memberList: { linearizable: false }, want: { members: [{ id: headerMember, name: nonEmptyString, peerUrls: stringList, clientUrls: stringList, isLearner: false }], rev: 0 } },
    ],
  },
]

export const DOWNGRADE_CASES: readonly Case[] = [
  ...[...VALIDATE_CASES, ...ENABLE_CASES].map((c) => ({ ...c, requires: [...new Set(['downgrade' as const, ...(c.requires ?? [])])] })),
  ...AUTH_CASES,
  ...MEMBER_LIST_CASES.map((c) => ({ ...c, requires: ['maintenance' as const] })),
]
