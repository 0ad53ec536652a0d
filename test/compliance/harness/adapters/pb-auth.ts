// Test-side domain <-> protobuf conversion of the Auth service (and Cluster's MemberAdd) for the wire
// adapters: raw grpc-js against etcdlite and the real etcd, and the etcd3 client. Written independently of
// src/grpc/convert-*.ts, as pb.ts is. Requests carry proto field names and numeric enums; responses are
// narrowed from `unknown` field by field. etcd3's copy of authpb renames the Permission.Type values
// (Read, Write, Readwrite): they are read case-insensitively.
import type {
  AuthHeaderResponse, AuthRoleGetResponse, AuthRoleGrantPermissionRequest, AuthRoleListResponse,
  AuthRoleRevokePermissionRequest, AuthStatusResponse, AuthUserAddRequest, AuthUserChangePasswordRequest,
  AuthUserGetResponse, AuthUserListResponse, AuthenticateResponse, Permission, PermissionType,
} from '../../../../src/etcdserver/types/auth.js'
import type { MemberAddRequest } from '../../../../src/etcdserver/types/cluster.js'
import type { ResponseHeader } from '../../../../src/etcdserver/types/header.js'

type Obj = Readonly<Record<string, unknown>>

function obj(x: unknown, what: string): Obj {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) throw new TypeError(`wire: ${what} is not a message: ${String(x)}`)
  return x as Obj
}
function int(o: Obj, k: string): number {
  const v = o[k]
  const n = typeof v === 'string' ? Number(v) : v
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) throw new TypeError(`wire: ${k} is not a safe integer: ${String(v)}`)
  return n
}
function big(o: Obj, k: string): bigint {
  const v = o[k]
  if (typeof v !== 'string' && typeof v !== 'number') throw new TypeError(`wire: ${k} is not an integer: ${String(v)}`)
  return BigInt(v)
}
function str(o: Obj, k: string): string {
  const v = o[k]
  if (typeof v !== 'string') throw new TypeError(`wire: ${k} is not a string: ${String(v)}`)
  return v
}
function bool(o: Obj, k: string): boolean {
  const v = o[k]
  if (typeof v !== 'boolean') throw new TypeError(`wire: ${k} is not a bool: ${String(v)}`)
  return v
}
function bytes(o: Obj, k: string): Uint8Array {
  const v = o[k]
  if (!(v instanceof Uint8Array)) throw new TypeError(`wire: ${k} is not bytes: ${String(v)}`)
  return new Uint8Array(v)
}
function strings(o: Obj, k: string): string[] {
  const v = o[k]
  if (!Array.isArray(v)) throw new TypeError(`wire: ${k} is not a list: ${String(v)}`)
  return v.map((s, i) => {
    if (typeof s !== 'string') throw new TypeError(`wire: ${k}[${i}] is not a string`)
    return s
  })
}
function header(o: Obj): ResponseHeader {
  const h = obj(o['header'], 'header')
  return { clusterId: big(h, 'cluster_id'), memberId: big(h, 'member_id'), revision: int(h, 'revision'), raftTerm: int(h, 'raft_term') }
}
const buf = (b: Uint8Array): Buffer => Buffer.from(b.buffer, b.byteOffset, b.byteLength)

// Numbers from etcd's auth.proto.
const PERM_TYPE: Readonly<Record<PermissionType, number>> = { READ: 0, WRITE: 1, READWRITE: 2 }

function permType(v: unknown): PermissionType {
  const name = typeof v === 'string' ? v.toUpperCase() : v
  if (name !== 'READ' && name !== 'WRITE' && name !== 'READWRITE') throw new TypeError(`wire: permission type ${String(v)}`)
  return name
}

export interface PbUserAdd {
  name: string
  password: string
  options?: { no_password: boolean }
}
export function toPbUserAdd(r: AuthUserAddRequest): PbUserAdd {
  const o: PbUserAdd = { name: r.name, password: r.password }
  if (r.options !== undefined) o.options = { no_password: r.options.noPassword }
  return o
}
export const toPbUserChangePassword = (r: AuthUserChangePasswordRequest): { name: string; password: string } => ({ name: r.name, password: r.password })
export const toPbRoleGrantPermission = (r: AuthRoleGrantPermissionRequest): { name: string; perm: { permType: number; key: Buffer; range_end: Buffer } } =>
  ({ name: r.name, perm: { permType: PERM_TYPE[r.perm.permType], key: buf(r.perm.key), range_end: buf(r.perm.rangeEnd) } })
export const toPbRoleRevokePermission = (r: AuthRoleRevokePermissionRequest): { role: string; key: Buffer; range_end: Buffer } =>
  ({ role: r.role, key: buf(r.key), range_end: buf(r.rangeEnd) })
export const toPbMemberAdd = (r: MemberAddRequest): { peerURLs: string[]; isLearner: boolean } =>
  ({ peerURLs: [...r.peerUrls], isLearner: r.isLearner ?? false })

export const fromPbHeaderOnly = (x: unknown): AuthHeaderResponse => ({ header: header(obj(x, 'response')) })
export function fromPbAuthStatus(x: unknown): AuthStatusResponse {
  const o = obj(x, 'AuthStatusResponse')
  return { header: header(o), enabled: bool(o, 'enabled'), authRevision: int(o, 'authRevision') }
}
export function fromPbAuthenticate(x: unknown): AuthenticateResponse {
  const o = obj(x, 'AuthenticateResponse')
  return { header: header(o), token: str(o, 'token') }
}
export function fromPbUserGet(x: unknown): AuthUserGetResponse {
  const o = obj(x, 'AuthUserGetResponse')
  return { header: header(o), roles: strings(o, 'roles') }
}
export function fromPbUserList(x: unknown): AuthUserListResponse {
  const o = obj(x, 'AuthUserListResponse')
  return { header: header(o), users: strings(o, 'users') }
}
export function fromPbRoleList(x: unknown): AuthRoleListResponse {
  const o = obj(x, 'AuthRoleListResponse')
  return { header: header(o), roles: strings(o, 'roles') }
}
export function fromPbRoleGet(x: unknown): AuthRoleGetResponse {
  const o = obj(x, 'AuthRoleGetResponse')
  const perms = o['perm']
  if (!Array.isArray(perms)) throw new TypeError('wire: perm is not a list')
  const perm = perms.map((p): Permission => {
    const q = obj(p, 'Permission')
    return { permType: permType(q['permType']), key: bytes(q, 'key'), rangeEnd: bytes(q, 'range_end') }
  })
  return { header: header(o), perm }
}
