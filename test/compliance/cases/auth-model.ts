// The permission model of the auth cases: etcd's errors, who a call runs as, what a call needs, and what a
// principal gets for it. Written from etcd 3.4 auth/range_perm_cache.go (a single key is a point check; a
// range must be covered by the union of the user's ranges without a gap; "" as a permission key is
// +infinity, so such a permission grants nothing), etcdserver/apply_auth.go (Put, DeleteRange with prev_kv,
// Txn compares and ops, lease keys, admin calls; UserGet of oneself and RoleGet of one's own role),
// v3rpc/watch.go (a refused create is an in-band cancel whose reason is a Go status text), v3_server.go
// (which calls read the token at all) and server.go (membership needs root). The reference adapter, the
// real etcd, proves the model: every matrix cell runs there too.
import { status } from '@grpc/grpc-js'
import type { PermissionType } from '../../../src/etcdserver/types/auth.js'
import { ClientError, type EtcdTestClient } from '../harness/client.js'
import type { MatrixCell, WantError } from '../harness/case.js'

// Errors

/** etcd's auth errors, verbatim (rpctypes), with their gRPC status. */
export const AUTH_ERR = {
  userEmpty: { code: status.INVALID_ARGUMENT, message: 'etcdserver: user name is empty' },
  invalidToken: { code: status.UNAUTHENTICATED, message: 'etcdserver: invalid auth token' },
  denied: { code: status.PERMISSION_DENIED, message: 'etcdserver: permission denied' },
  authFailed: { code: status.INVALID_ARGUMENT, message: 'etcdserver: authentication failed, invalid user ID or password' },
  notEnabled: { code: status.FAILED_PRECONDITION, message: 'etcdserver: authentication is not enabled' },
  rootUserNotExist: { code: status.FAILED_PRECONDITION, message: 'etcdserver: root user does not exist' },
  rootRoleNotExist: { code: status.FAILED_PRECONDITION, message: 'etcdserver: root user does not have root role' },
  userExists: { code: status.FAILED_PRECONDITION, message: 'etcdserver: user name already exists' },
  userNotFound: { code: status.FAILED_PRECONDITION, message: 'etcdserver: user name not found' },
  roleExists: { code: status.FAILED_PRECONDITION, message: 'etcdserver: role name already exists' },
  roleNotFound: { code: status.FAILED_PRECONDITION, message: 'etcdserver: role name not found' },
  userNameEmpty: { code: status.INVALID_ARGUMENT, message: 'etcdserver: user name is empty' },
  roleNameEmpty: { code: status.INVALID_ARGUMENT, message: 'etcdserver: role name is empty' },
  roleNotGranted: { code: status.FAILED_PRECONDITION, message: 'etcdserver: role is not granted to the user' },
  permNotGranted: { code: status.FAILED_PRECONDITION, message: 'etcdserver: permission is not granted to the role' },
  invalidMgmt: { code: status.INVALID_ARGUMENT, message: 'etcdserver: invalid auth management' },
  // CheckPassword's error reaches the client unmapped (etcd 3.4 and 3.5): UNKNOWN with the auth package's text.
  noPasswordUser: { code: status.UNKNOWN, message: 'auth: authentication failed, password was given for no password user' },
} as const satisfies Record<string, WantError>

/** Go's codes.Code names, as a refused watch's cancel_reason spells its status ("rpc error: code = X desc = ..."). */
const GO_CODE: Readonly<Record<string, number>> = {
  Canceled: 1, Unknown: 2, InvalidArgument: 3, DeadlineExceeded: 4, NotFound: 5, AlreadyExists: 6, PermissionDenied: 7,
  ResourceExhausted: 8, FailedPrecondition: 9, Aborted: 10, OutOfRange: 11, Unimplemented: 12, Internal: 13,
  Unavailable: 14, DataLoss: 15, Unauthenticated: 16,
}
const GO_STATUS_TEXT = /^rpc error: code = (\w+) desc = ([\s\S]*)$/

/** The error a refused watch create stands for: its cancel_reason is a Go status error's text. */
export function watchRefusal(reason: string): ClientError {
  const m = GO_STATUS_TEXT.exec(reason)
  const code = m?.[1] === undefined ? undefined : GO_CODE[m[1]]
  // Not a Go status text: code -1 and the whole reason, so the failure shows it as it came.
  return code === undefined || m?.[2] === undefined ? new ClientError(-1, `(cancel_reason) ${reason}`) : new ClientError(code, m[2])
}

/** The cancel_reason of a watch create refused with `e`. */
export function refusalReason(e: WantError): string {
  const name = Object.entries(GO_CODE).find(([, v]) => v === e.code)?.[0] ?? String(e.code)
  return `rpc error: code = ${name} desc = ${e.message}`
}

// The model

/** A permission as granted: `end` absent is the single key, "\0" every key from `key` on. */
export interface Grant {
  readonly type: PermissionType
  readonly key: string
  readonly end?: string
}
export interface RoleSpec {
  readonly name: string
  readonly grants: readonly Grant[]
}
export interface UserSpec {
  readonly name: string
  readonly roles: readonly RoleSpec[]
}

/** Who a row acts as. */
export type Principal = { readonly kind: 'anon' } | { readonly kind: 'badToken' } | { readonly kind: 'user'; readonly user: UserSpec }

export type Access = 'READ' | 'WRITE'
/** One permission check: `end` absent: the single key (a point check); "\0": every key from `key` on. */
export interface Req {
  readonly access: Access
  readonly key: string
  readonly end?: string
}

/** What an operation needs. */
export type Need =
  /** Nothing: the server does not even read the token (Status, MemberList, LeaseLeases, ...). */
  | { readonly kind: 'none' }
  /** No permission, but the token is read, so a bad one fails (calls that go through raft, e.g. LeaseGrant). */
  | { readonly kind: 'token' }
  /** Any user, no permission (etcd's CVE-2026-33413 hardening: Status, MemberList, alarm list, leases). */
  | { readonly kind: 'user' }
  /**
   * Every check must pass; with no checks, even a caller without credentials passes, unless `user` says a
   * user is needed anyway (a LeaseRevoke after the CVE-2026-33413 hardening).
   */
  | { readonly kind: 'kv'; readonly reqs: readonly Req[]; readonly user?: boolean }
  | { readonly kind: 'admin' }
  /** UserGet: root, or the user itself. */
  | { readonly kind: 'userGet'; readonly user: string }
  /** RoleGet: root, or a holder of the role. */
  | { readonly kind: 'roleGet'; readonly role: string }

/** The state of the server the model tracks across cells: which keys each lease holds, what was compacted. */
export interface World {
  readonly leases: Map<bigint, Set<string>>
  compacted: boolean
}

export interface Op {
  readonly name: string
  readonly need: (w: World) => Need
  /** What the call answers when permitted (default 'ok'). */
  readonly allowed?: (w: World) => 'ok' | WantError
  /** What a permitted call changes. */
  readonly apply?: (w: World) => void
  readonly run: (c: EtcdTestClient) => Promise<void>
}

/** A byte string compared as etcd's adt.BytesAffineComparable: the empty string is +infinity. */
function affine(x: string, y: string): number {
  if (x === '') return y === '' ? 0 : 1
  if (y === '') return -1
  return x < y ? -1 : x > y ? 1 : 0
}
interface Ivl {
  readonly begin: string
  readonly end: string
}
/** getMergedPerms: a single key is the point [key, key\0); a "\0" end is +infinity. */
function grantIvl(g: Grant): Ivl {
  if (g.end === undefined || g.end === '') return { begin: g.key, end: `${g.key}\x00` }
  return { begin: g.key, end: g.end === '\x00' ? '' : g.end }
}
/** adt Interval.Compare() == 0. */
const overlaps = (x: Ivl, y: Ivl): boolean => !(affine(x.begin, y.begin) < 0 && affine(x.end, y.begin) <= 0) && affine(x.begin, y.end) < 0

/** isRangeOpPermitted over the intervals of one access type. */
function permitted(ivls: readonly Ivl[], r: Req): boolean {
  if (r.end === undefined || r.end === '') {
    const point = { begin: r.key, end: `${r.key}\x00` }
    return ivls.some((iv) => overlaps(iv, point))
  }
  // checkKeyInterval + IntervalTree.Contains: the overlapping ranges, by start, must leave no gap and cover it.
  const q = { begin: r.key, end: r.end === '\x00' ? '' : r.end }
  const hit = ivls.filter((iv) => overlaps(iv, q)).sort((x, y) => affine(x.begin, y.begin))
  const first = hit[0]
  if (first === undefined) return false
  let maxEnd = first.end
  for (const iv of hit.slice(1)) {
    if (affine(maxEnd, iv.begin) < 0) return false
    if (affine(iv.end, maxEnd) > 0) maxEnd = iv.end
  }
  return affine(maxEnd, q.end) >= 0 && affine(first.begin, q.begin) <= 0
}

export const isRoot = (u: UserSpec): boolean => u.name === 'root'
function userIvls(u: UserSpec, access: Access): Ivl[] {
  const types: readonly PermissionType[] = access === 'READ' ? ['READ', 'READWRITE'] : ['WRITE', 'READWRITE']
  return u.roles.flatMap((r) => r.grants.filter((g) => types.includes(g.type)).map(grantIvl))
}

/** What `p` gets for an operation needing `need` that answers `allowed` when permitted. */
export function expected(p: Principal, need: Need, allowed: 'ok' | WantError): 'ok' | WantError {
  if (need.kind === 'none') return allowed
  if (p.kind === 'badToken') return AUTH_ERR.invalidToken
  if (need.kind === 'token') return allowed
  if (p.kind === 'anon') return need.kind === 'kv' && need.reqs.length === 0 && need.user !== true ? allowed : AUTH_ERR.userEmpty
  const u = p.user
  if (isRoot(u)) return allowed
  switch (need.kind) {
    case 'kv':
      return need.reqs.every((r) => permitted(userIvls(u, r.access), r)) ? allowed : AUTH_ERR.denied
    case 'user':
      return allowed
    case 'admin':
      return AUTH_ERR.denied
    case 'userGet':
      return need.user === u.name ? allowed : AUTH_ERR.denied
    case 'roleGet':
      return u.roles.some((r) => r.name === need.role) ? allowed : AUTH_ERR.denied
  }
}

/** The cells of one principal, in order, with the world moving as permitted calls would move it. */
export function rowCells(p: Principal, ops: readonly Op[], w: World): MatrixCell[] {
  return ops.map((op) => {
    const allowed = op.allowed?.(w) ?? 'ok'
    const want = expected(p, op.need(w), allowed)
    if (want === 'ok') op.apply?.(w)
    return { name: op.name, run: op.run, want }
  })
}
