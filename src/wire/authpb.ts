// The stored form of users and roles: encoded authpb.User and authpb.Role (etcd auth/authpb/auth.proto), byte
// for byte as etcd's gogoproto Marshal writes them into its authUsers and authRoles buckets. Hand-written for
// speed and for that exactness: it must stay byte-identical to etcd's stored bytes, as protobufjs also
// writes them (proto3 zero values left out, a non-nil options message kept).
//
//   User           { name bytes = 1; password bytes = 2; roles repeated string = 3; options UserAddOptions = 4 }
//   UserAddOptions { no_password bool = 1 }
//   Role           { name bytes = 1; keyPermission repeated Permission = 2 }
//   Permission     { permType Type = 1 (READ 0, WRITE 1, READWRITE 2); key bytes = 2; range_end bytes = 3 }
//
// proto3: a zero scalar or an empty bytes field is left out; every element of a repeated field is written
// (an empty role name, an empty Permission as tag + length 0). `options` is a message pointer, written
// whenever it is non-nil, even when empty: etcd sets it on every user it creates, so a user with a password
// ends in 0x22 0x00 and a no-password user in 0x22 0x02 0x08 0x01.
import type { Permission, PermissionType, Role, User } from '../auth/permission.js'
import { PERMISSION_TYPES } from './enums.js'
import {
  Reader, WIRE_LEN, WIRE_VARINT, WireError, lenFieldSize, varintSize, writeBytesField, writeVarint, writeVarintField,
} from './protobuf.js'

/** authpb.Permission_Type values on the wire. */
const PERM_CODES: Readonly<Record<PermissionType, number>> = { READ: 0, WRITE: 1, READWRITE: 2 }

const utf8 = (s: string): Uint8Array => Buffer.from(s, 'utf8')
const text = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8')
/** A copy, so a decoded record does not pin the buffer it was read from. */
const copy = (b: Uint8Array): Uint8Array => Uint8Array.prototype.slice.call(b)

/** Size of an optional bytes field: left out when empty. */
const optBytesSize = (b: Uint8Array): number => (b.length === 0 ? 0 : lenFieldSize(b.length))

/**
 * Encode a user as etcd stores it. `password` (a bcrypt hash, empty for a no-password user) is written as
 * its UTF-8 bytes; roles in the order given (the store keeps them sorted); options always present.
 */
export function encodeUser(u: User): Uint8Array {
  const name = utf8(u.name)
  const password = utf8(u.password)
  const roles = u.roles.map(utf8)
  const optionsLen = u.noPassword ? 2 : 0
  const rolesSize = roles.reduce((n, r) => n + lenFieldSize(r.length), 0)
  const size = optBytesSize(name) + optBytesSize(password) + rolesSize + lenFieldSize(optionsLen)
  const out = new Uint8Array(size)
  let pos = 0
  if (name.length > 0) pos = writeBytesField(out, pos, 1, name)
  if (password.length > 0) pos = writeBytesField(out, pos, 2, password)
  for (const r of roles) pos = writeBytesField(out, pos, 3, r)
  out[pos++] = (4 << 3) | WIRE_LEN
  out[pos++] = optionsLen
  if (u.noPassword) writeVarintField(out, pos, 1, 1)
  return out
}

/** Decode a stored user; unknown fields are skipped, malformed bytes throw WireError. */
export function decodeUser(buf: Uint8Array): User {
  const r = new Reader(buf)
  let name = ''
  let password = ''
  const roles: string[] = []
  let noPassword = false
  while (!r.done) {
    const tag = r.varint()
    const field = Math.floor(tag / 8)
    const wire = tag & 7
    if (field === 1 && wire === WIRE_LEN) name = text(r.bytes())
    else if (field === 2 && wire === WIRE_LEN) password = text(r.bytes())
    else if (field === 3 && wire === WIRE_LEN) roles.push(text(r.bytes()))
    else if (field === 4 && wire === WIRE_LEN) noPassword = decodeUserAddOptions(r.bytes(), noPassword)
    else r.skip(wire)
  }
  return { name, password, roles, noPassword }
}

/** Merge an encoded UserAddOptions into `noPassword` (a repeated embedded message merges, as protobuf says). */
function decodeUserAddOptions(buf: Uint8Array, noPassword: boolean): boolean {
  const r = new Reader(buf)
  while (!r.done) {
    const tag = r.varint()
    const wire = tag & 7
    if (Math.floor(tag / 8) === 1 && wire === WIRE_VARINT) noPassword = r.bool()
    else r.skip(wire)
  }
  return noPassword
}

function permSize(p: Permission): number {
  const code = PERM_CODES[p.permType]
  return (code === 0 ? 0 : 1 + varintSize(code)) + optBytesSize(p.key) + optBytesSize(p.rangeEnd)
}

/** Encode a role as etcd stores it: permissions in the order given (the store keeps them sorted by key). */
export function encodeRole(role: Role): Uint8Array {
  const name = utf8(role.name)
  const sizes = role.keyPermission.map(permSize)
  const size = optBytesSize(name) + sizes.reduce((n, s) => n + lenFieldSize(s), 0)
  const out = new Uint8Array(size)
  let pos = 0
  if (name.length > 0) pos = writeBytesField(out, pos, 1, name)
  role.keyPermission.forEach((p, i) => {
    out[pos++] = (2 << 3) | WIRE_LEN
    pos = writeVarint(out, pos, sizes[i] as number)
    const code = PERM_CODES[p.permType]
    if (code !== 0) pos = writeVarintField(out, pos, 1, code)
    if (p.key.length > 0) pos = writeBytesField(out, pos, 2, p.key)
    if (p.rangeEnd.length > 0) pos = writeBytesField(out, pos, 3, p.rangeEnd)
  })
  return out
}

/** Decode a stored role; unknown fields are skipped, malformed bytes or an unknown permission type throw WireError. */
export function decodeRole(buf: Uint8Array): Role {
  const r = new Reader(buf)
  let name = ''
  const keyPermission: Permission[] = []
  while (!r.done) {
    const tag = r.varint()
    const field = Math.floor(tag / 8)
    const wire = tag & 7
    if (field === 1 && wire === WIRE_LEN) name = text(r.bytes())
    else if (field === 2 && wire === WIRE_LEN) keyPermission.push(decodePermission(r.bytes()))
    else r.skip(wire)
  }
  return { name, keyPermission }
}

function decodePermission(buf: Uint8Array): Permission {
  const r = new Reader(buf)
  let code = 0
  let key: Uint8Array = new Uint8Array(0)
  let rangeEnd: Uint8Array = new Uint8Array(0)
  while (!r.done) {
    const tag = r.varint()
    const field = Math.floor(tag / 8)
    const wire = tag & 7
    if (field === 1 && wire === WIRE_VARINT) code = r.varint()
    else if (field === 2 && wire === WIRE_LEN) key = copy(r.bytes())
    else if (field === 3 && wire === WIRE_LEN) rangeEnd = copy(r.bytes())
    else r.skip(wire)
  }
  const permType = PERMISSION_TYPES[code]
  if (permType === undefined) throw new WireError(`unknown permission type ${code}`)
  return { permType, key, rangeEnd }
}
