// The stored user and role records (src/wire/authpb.ts): bytes equal to gogoproto's Marshal for fixed
// cases (derived by hand from auth.pb.go's MarshalTo: fields in number order, zero scalars and empty bytes
// left out, every repeated element written, a non-nil options message written even when empty), round
// trips over random records, and tolerance of unknown fields.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { decodeRole, decodeUser, encodeRole, encodeUser } from '../../../src/wire/authpb.js'
import type { PermissionType, Role, User } from '../../../src/auth/permission.js'
import { WireError } from '../../../src/wire/protobuf.js'

const enc = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'latin1'))
const bytes = (...parts: Array<number | string>): Uint8Array =>
  new Uint8Array(parts.flatMap((p) => (typeof p === 'number' ? [p] : [...Buffer.from(p, 'latin1')])))
const HASH = '$2a$04$0123456789012345678901uABCDEFGHIJKLMNOPQRSTUVWXYZabcd' // 60 bytes, as bcrypt's

describe('encodeUser: the bytes etcd stores', () => {
  const cases: Array<{ name: string; user: User; want: Uint8Array }> = [
    {
      name: 'a user with a password and a role: options written as an empty message (0x22 0x00)',
      user: { name: 'root', password: HASH, roles: ['root'], noPassword: false },
      want: bytes(0x0a, 4, 'root', 0x12, 60, HASH, 0x1a, 4, 'root', 0x22, 0),
    },
    {
      name: 'a no-password user: no password field, options { no_password: true }',
      user: { name: 'u', password: '', roles: [], noPassword: true },
      want: bytes(0x0a, 1, 'u', 0x22, 2, 0x08, 1),
    },
    {
      name: 'every role is written, an empty one too, in the order given',
      user: { name: 'u', password: 'h', roles: ['a', '', 'b'], noPassword: false },
      want: bytes(0x0a, 1, 'u', 0x12, 1, 'h', 0x1a, 1, 'a', 0x1a, 0, 0x1a, 1, 'b', 0x22, 0),
    },
    {
      name: 'a length of 128 or more takes a two-byte varint',
      user: { name: 'n'.repeat(200), password: '', roles: [], noPassword: false },
      want: bytes(0x0a, 0xc8, 0x01, 'n'.repeat(200), 0x22, 0),
    },
    {
      name: 'names are UTF-8',
      user: { name: 'é', password: '', roles: ['ß'], noPassword: false },
      want: bytes(0x0a, 2, 0xc3, 0xa9, 0x1a, 2, 0xc3, 0x9f, 0x22, 0),
    },
  ]
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(encodeUser(c.user), c.want)
      assert.deepEqual(decodeUser(c.want), c.user)
    })
  }
})

describe('encodeRole: the bytes etcd stores', () => {
  const cases: Array<{ name: string; role: Role; want: Uint8Array }> = [
    { name: 'no permissions: only the name', role: { name: 'r', keyPermission: [] }, want: bytes(0x0a, 1, 'r') },
    {
      name: 'READ (0) leaves permType out; an empty range end is left out',
      role: { name: 'r', keyPermission: [{ permType: 'READ', key: enc('a'), rangeEnd: new Uint8Array(0) }] },
      want: bytes(0x0a, 1, 'r', 0x12, 3, 0x12, 1, 'a'),
    },
    {
      name: 'READWRITE with a range, then WRITE on nothing (a permission with only its type)',
      role: {
        name: 'r',
        keyPermission: [
          { permType: 'READWRITE', key: enc('b'), rangeEnd: enc('c') },
          { permType: 'WRITE', key: new Uint8Array(0), rangeEnd: new Uint8Array(0) },
        ],
      },
      want: bytes(0x0a, 1, 'r', 0x12, 8, 0x08, 2, 0x12, 1, 'b', 0x1a, 1, 'c', 0x12, 2, 0x08, 1),
    },
    {
      name: 'an all-zero permission is still written, as tag + length 0; "\\0" range end kept',
      role: {
        name: 'r',
        keyPermission: [
          { permType: 'READ', key: new Uint8Array(0), rangeEnd: new Uint8Array(0) },
          { permType: 'READ', key: enc('k'), rangeEnd: new Uint8Array([0]) },
        ],
      },
      want: bytes(0x0a, 1, 'r', 0x12, 0, 0x12, 6, 0x12, 1, 'k', 0x1a, 1, 0),
    },
  ]
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(encodeRole(c.role), c.want)
      assert.deepEqual(decodeRole(c.want), c.role)
    })
  }
})

describe('decoding', () => {
  it('skips unknown fields of every wire type', () => {
    const user = bytes(0x0a, 1, 'u', 0x28, 0x96, 0x01, 0x31, 1, 2, 3, 4, 5, 6, 7, 8, 0x3a, 2, 'xy', 0x45, 1, 2, 3, 4, 0x22, 0)
    assert.deepEqual(decodeUser(user), { name: 'u', password: '', roles: [], noPassword: false })
    // A Permission with an unknown varint field 4, then an unknown varint field 3 of the Role.
    const role = bytes(0x0a, 1, 'r', 0x12, 4, 0x08, 1, 0x20, 7, 0x18, 3)
    assert.deepEqual(decodeRole(role), { name: 'r', keyPermission: [{ permType: 'WRITE', key: new Uint8Array(0), rangeEnd: new Uint8Array(0) }] })
  })

  it('an options message seen twice merges (protobuf rule): the last no_password wins', () => {
    const b = bytes(0x0a, 1, 'u', 0x22, 2, 0x08, 1, 0x22, 0)
    assert.equal(decodeUser(b).noPassword, true)
    assert.equal(decodeUser(bytes(0x0a, 1, 'u', 0x22, 2, 0x08, 1, 0x22, 2, 0x08, 0)).noPassword, false)
  })

  it('a user without options reads as having a password', () => {
    assert.deepEqual(decodeUser(bytes(0x0a, 1, 'u', 0x12, 1, 'h')), { name: 'u', password: 'h', roles: [], noPassword: false })
  })

  const malformed: Array<{ name: string; buf: Uint8Array; decode: (b: Uint8Array) => unknown }> = [
    { name: 'a truncated user name', buf: bytes(0x0a, 5, 'ab'), decode: decodeUser },
    { name: 'a truncated varint', buf: bytes(0x0a, 0x80), decode: decodeUser },
    { name: 'an unknown permission type', buf: bytes(0x0a, 1, 'r', 0x12, 2, 0x08, 3), decode: decodeRole },
    { name: 'a truncated permission', buf: bytes(0x0a, 1, 'r', 0x12, 9, 0x08, 1), decode: decodeRole },
  ]
  for (const c of malformed) it(`throws WireError on ${c.name}`, () => assert.throws(() => c.decode(c.buf), WireError))
})

describe('round trips', () => {
  const name = fc.string({ unit: 'grapheme', maxLength: 8 })
  const key = fc.uint8Array({ maxLength: 6 }).map((b) => new Uint8Array(b))
  const permType = fc.constantFrom<PermissionType>('READ', 'WRITE', 'READWRITE')

  it('decodeUser(encodeUser(u)) equals u', () => {
    fc.assert(
      fc.property(name, fc.string({ maxLength: 70 }), fc.array(name, { maxLength: 4 }), fc.boolean(), (n, password, roles, noPassword) => {
        const u: User = { name: n, password, roles, noPassword }
        assert.deepEqual(decodeUser(encodeUser(u)), u)
      }),
    )
  })

  it('decodeRole(encodeRole(r)) equals r', () => {
    fc.assert(
      fc.property(name, fc.array(fc.record({ permType, key, rangeEnd: key }).map((p) => ({ ...p })), { maxLength: 5 }), (n, keyPermission) => {
        const r: Role = { name: n, keyPermission }
        assert.deepEqual(decodeRole(encodeRole(r)), r)
      }),
    )
  })
})
