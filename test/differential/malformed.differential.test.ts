// A seeded fuzzer of malformed requests: the same bytes (random, mutated valid messages, truncated and
// overlong varints, wrong wire types, bad lengths, unknown fields, groups, invalid UTF-8 in string fields)
// go to unary methods of the real etcd and of etcdlite over raw gRPC, and each answer's status code and
// message must be the same. Methods that could block (Lock, Campaign), reshape the cluster (member changes,
// MoveLeader), or hash passwords (slow) are left out, and so is RoleGrantPermission: etcd 3.4 crashes on
// one without a permission. Both servers see the same sequence, so the writes
// that get through leave them in the same state.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import * as grpc from '@grpc/grpc-js'
import protobuf from 'protobufjs'
import { openEtcd, type Etcd } from '../../src/embed/etcd.js'
import { PROTO_DIR } from '../../src/grpc/proto.js'
import { Prng } from '../helpers/prng.js'
import { haveEtcd, startReferenceEtcd, type ServerProcess } from '../helpers/processes.js'
import { putTxn, varint, wrapTxn } from '../helpers/nested-txn.js'

const skip = haveEtcd() ? false : 'the reference `etcd` binary is not on PATH'

/** How many messages the CI run sends (each to both servers); the seed makes the run reproducible. */
const MESSAGES = Number(process.env['MALFORMED_FUZZ_MESSAGES'] ?? 2000)
const SEED = Number(process.env['MALFORMED_FUZZ_SEED'] ?? 20261125)

const root = new protobuf.Root()
root.resolvePath = (_o, target) => `${PROTO_DIR}/${target}`
root.loadSync(['etcdserverpb/rpc.proto', 'v3lockpb/v3lock.proto', 'v3electionpb/v3election.proto'], { keepCase: true })

interface Method {
  readonly path: string
  readonly type: string
  /** A valid request the mutations start from. */
  readonly valid: Record<string, unknown>
}

const b = (s: string): Buffer => Buffer.from(s)
const METHODS: readonly Method[] = [
  { path: '/etcdserverpb.KV/Range', type: 'etcdserverpb.RangeRequest', valid: { key: b('a'), range_end: b('z'), limit: 5 } },
  { path: '/etcdserverpb.KV/Put', type: 'etcdserverpb.PutRequest', valid: { key: b('fuzz'), value: b('v'), prev_kv: true } },
  { path: '/etcdserverpb.KV/DeleteRange', type: 'etcdserverpb.DeleteRangeRequest', valid: { key: b('fuzz'), range_end: b('fuzz0') } },
  {
    path: '/etcdserverpb.KV/Txn',
    type: 'etcdserverpb.TxnRequest',
    valid: {
      compare: [{ key: b('fuzz'), target: 3, result: 0, value: b('v') }],
      success: [{ request_put: { key: b('fuzz'), value: b('w') } }, { request_txn: { success: [{ request_range: { key: b('a') } }] } }],
      failure: [{ request_range: { key: b('fuzz') } }, { request_delete_range: { key: b('x') } }],
    },
  },
  { path: '/etcdserverpb.KV/Compact', type: 'etcdserverpb.CompactionRequest', valid: { revision: 1 } },
  { path: '/etcdserverpb.Lease/LeaseGrant', type: 'etcdserverpb.LeaseGrantRequest', valid: { TTL: 600, ID: 4660 } },
  { path: '/etcdserverpb.Lease/LeaseRevoke', type: 'etcdserverpb.LeaseRevokeRequest', valid: { ID: 4660 } },
  { path: '/etcdserverpb.Lease/LeaseTimeToLive', type: 'etcdserverpb.LeaseTimeToLiveRequest', valid: { ID: 4660, keys: true } },
  { path: '/etcdserverpb.Lease/LeaseLeases', type: 'etcdserverpb.LeaseLeasesRequest', valid: {} },
  { path: '/etcdserverpb.Cluster/MemberList', type: 'etcdserverpb.MemberListRequest', valid: {} },
  { path: '/etcdserverpb.Maintenance/HashKV', type: 'etcdserverpb.HashKVRequest', valid: { revision: 0 } },
  { path: '/etcdserverpb.Auth/UserGet', type: 'etcdserverpb.AuthUserGetRequest', valid: { name: 'root' } },
  { path: '/etcdserverpb.Auth/UserList', type: 'etcdserverpb.AuthUserListRequest', valid: {} },
  { path: '/etcdserverpb.Auth/UserDelete', type: 'etcdserverpb.AuthUserDeleteRequest', valid: { name: 'nobody' } },
  { path: '/etcdserverpb.Auth/RoleAdd', type: 'etcdserverpb.AuthRoleAddRequest', valid: { name: 'fuzzrole' } },
  { path: '/etcdserverpb.Auth/RoleGet', type: 'etcdserverpb.AuthRoleGetRequest', valid: { role: 'fuzzrole' } },
  { path: '/etcdserverpb.Auth/RoleList', type: 'etcdserverpb.AuthRoleListRequest', valid: {} },
  { path: '/etcdserverpb.Auth/RoleDelete', type: 'etcdserverpb.AuthRoleDeleteRequest', valid: { role: 'fuzzrole' } },
  { path: '/etcdserverpb.Auth/RoleRevokePermission', type: 'etcdserverpb.AuthRoleRevokePermissionRequest', valid: { role: 'fuzzrole', key: b('a'), range_end: b('b') } },
  { path: '/etcdserverpb.Auth/UserGrantRole', type: 'etcdserverpb.AuthUserGrantRoleRequest', valid: { user: 'nobody', role: 'fuzzrole' } },
  { path: '/v3lockpb.Lock/Unlock', type: 'v3lockpb.UnlockRequest', valid: { key: b('lock/1') } },
  { path: '/v3electionpb.Election/Leader', type: 'v3electionpb.LeaderRequest', valid: { name: b('elect') } },
  {
    path: '/v3electionpb.Election/Resign',
    type: 'v3electionpb.ResignRequest',
    valid: { leader: { name: b('elect'), key: b('elect/1'), rev: 3, lease: 4660 } },
  },
]

const tag = (field: number, wireType: number): number[] => varint(field * 8 + wireType)

/** One malformed (or merely odd) variant of `valid`; every kind of damage the fuzzer knows, at random. */
function mutate(rnd: Prng, valid: Buffer, fieldCount: number): Buffer {
  const bytes = (n: number): number[] => Array.from({ length: n }, () => rnd.int(256))
  const field = (): number => 1 + rnd.int(Math.max(fieldCount, 1) + 1)
  const append = (extra: number[]): Buffer => Buffer.concat([valid, Buffer.from(extra)])
  switch (rnd.int(12)) {
    case 0: return Buffer.from(bytes(rnd.int(40)))
    case 1: {
      const out = Buffer.from(valid)
      for (let j = 0; j <= rnd.int(3); j++) if (out.length > 0) out[rnd.int(out.length)] = rnd.int(256)
      return out
    }
    case 2: return valid.subarray(0, rnd.int(valid.length + 1))
    // A known field with a (probably) wrong wire type and a few payload bytes.
    case 3: return append([...tag(field(), rnd.int(8)), ...bytes(rnd.int(4))])
    // A length-delimited field whose length runs past the end.
    case 4: return append([...tag(field(), 2), ...varint(2 + rnd.int(300)), ...bytes(1)])
    // An unknown field, well formed, of each wire type.
    case 5: {
      const wt = [0, 1, 2, 5][rnd.int(4)] as number
      const payload = wt === 0 ? varint(rnd.int(100000)) : wt === 1 ? bytes(8) : wt === 5 ? bytes(4) : [3, ...bytes(3)]
      return append([...tag(100 + rnd.int(2000), wt), ...payload])
    }
    // A group: start, maybe contents, maybe an end (of the same or another field).
    case 6: {
      const f = rnd.chance(0.5) ? field() : 100 + rnd.int(50)
      const inner = rnd.chance(0.5) ? [...tag(1, 0), 1] : []
      const end = rnd.chance(0.7) ? tag(rnd.chance(0.8) ? f : f + 1, 4) : []
      return append([...tag(f, 3), ...inner, ...end])
    }
    // A truncated varint, in a tag or a value.
    case 7: return append(rnd.chance(0.5) ? [0xff] : [...tag(field(), 0), 0xff, 0xff])
    // An overlong varint (eleven bytes).
    case 8: return append([...tag(field(), 0), ...Array.from({ length: 10 }, () => 0xff), 0x01])
    // Field number 0, and an end group outside any group.
    case 9: return append(rnd.chance(0.5) ? [rnd.int(8)] : tag(field(), 4))
    // Invalid UTF-8 (and NUL) in a length-delimited field, a string one where the message has any.
    case 10: return append([...tag(field(), 2), 3, 0xff, 0xfe, rnd.int(2) === 0 ? 0x00 : 0xc3])
    // A huge length.
    default: return append([...tag(field(), 2), ...Array.from({ length: 9 }, () => 0xff), 0x01])
  }
}

/**
 * Whether a request names a user or role with bytes that are not UTF-8: etcd keeps such names byte for
 * byte, etcdlite (like every protobuf library for JavaScript) decodes them with U+FFFD, so two such names
 * can collide. A known difference (docs/DEVIATIONS.md), counted apart.
 */
function hasInvalidUtf8Name(type: protobuf.Type, bytes: Buffer): boolean {
  if (!type.fieldsArray.some((f) => f.type === 'string')) return false
  try {
    return JSON.stringify(type.toObject(type.decode(bytes))).includes('\uFFFD')
  } catch {
    return false
  }
}

/**
 * Request fields etcd 3.5 added, which the reference (3.4.23) skips as unknown fields while etcdlite, whose
 * wire contract is 3.5's, checks their wire types: a malformed one is answered as etcd 3.5 answers it.
 * MemberListRequest has no other field, so every difference on it comes from this one.
 */
const FIELDS_ADDED_IN_35: ReadonlySet<string> = new Set(['MemberListRequest'])

/** A TxnRequest of `depth` levels, each holding the next in its success; the innermost puts "n". */
function nestedTxn(depth: number): Buffer {
  return wrapTxn(depth - 1, putTxn('n'))
}

interface Answer {
  readonly code: number
  readonly details?: string
}

function call(client: grpc.Client, path: string, bytes: Buffer): Promise<Answer> {
  return new Promise((resolve) => {
    client.makeUnaryRequest(path, (x: Buffer) => x, (x: Buffer) => x, bytes, { deadline: Date.now() + 20_000 }, (err) => {
      resolve(err === null ? { code: 0 } : { code: err.code, details: err.details })
    })
  })
}

describe('malformed requests: etcdlite vs etcd 3.4', { skip }, () => {
  let refProc: ServerProcess | undefined
  let ours: Etcd | undefined
  let ref: grpc.Client | undefined
  let mine: grpc.Client | undefined

  before(async () => {
    refProc = await startReferenceEtcd()
    ours = await openEtcd({ memory: true })
    const l = await ours.listen({ port: 0 })
    ref = new grpc.Client(refProc.endpoint, grpc.credentials.createInsecure())
    mine = new grpc.Client(l.endpoint, grpc.credentials.createInsecure())
  })

  after(async () => {
    ref?.close()
    mine?.close()
    await ours?.close()
    await refProc?.dispose()
  })

  it(`${MESSAGES} malformed messages (seed ${SEED}) get the same status code and message`, { timeout: 120_000 }, async (t) => {
    if (ref === undefined || mine === undefined) throw new Error('servers did not start')
    const rnd = new Prng(SEED)
    const diffs: string[] = []
    const known: string[] = []
    let codeDiffs = 0
    for (let i = 0; i < MESSAGES; i++) {
      const m = METHODS[rnd.int(METHODS.length)] as Method
      const type = root.lookupType(m.type)
      const valid = Buffer.from(type.encode(type.fromObject(m.valid)).finish())
      const bytes = mutate(rnd, valid, type.fieldsArray.length)
      const want = await call(ref, m.path, bytes)
      const got = await call(mine, m.path, bytes)
      if (got.code !== want.code || got.details !== want.details) {
        const diff = `${m.path} ${bytes.toString('hex')}\n  etcd: ${want.code} ${want.details ?? ''}\n  ours: ${got.code} ${got.details ?? ''}`
        if (hasInvalidUtf8Name(type, bytes) || FIELDS_ADDED_IN_35.has(type.name)) {
          known.push(diff)
          continue
        }
        if (got.code !== want.code) codeDiffs++
        diffs.push(diff)
      }
    }
    if (known.length > 0) t.diagnostic(`known (names with invalid UTF-8, see docs/DEVIATIONS.md; fields etcd 3.5 added): ${known.length}\n${known.join('\n')}`)
    const summary = `${diffs.length} of ${MESSAGES} differ (${codeDiffs} in status code; seed ${SEED})`
    assert.equal(diffs.length, 0, `${summary}:\n${diffs.slice(0, 40).join('\n')}`)
  })

  it('txns nested 10 to 100,000 levels deep get the same answer, and are applied alike', async () => {
    if (ref === undefined || mine === undefined) throw new Error('servers did not start')
    const RangeResponse = root.lookupType('etcdserverpb.RangeResponse')
    const revision = async (c: grpc.Client): Promise<string> => {
      const res = await new Promise<Buffer>((resolve, reject) => {
        c.makeUnaryRequest('/etcdserverpb.KV/Range', (x: Buffer) => x, (x: Buffer) => x, Buffer.from([0x0a, 0x01, 0x7a]), (err, r) => {
          if (err !== null || r === undefined) reject(err ?? new Error('no response'))
          else resolve(r)
        })
      })
      const o = RangeResponse.toObject(RangeResponse.decode(res), { longs: String }) as { header: { revision: string } }
      return o.header.revision
    }
    for (const depth of [10, 49, 50, 100, 127, 128, 129, 130, 1000, 100_000]) {
      const bytes = nestedTxn(depth)
      const refBefore: string = await revision(ref)
      const mineBefore: string = await revision(mine)
      const want = await call(ref, '/etcdserverpb.KV/Txn', bytes)
      const got = await call(mine, '/etcdserverpb.KV/Txn', bytes)
      assert.deepEqual(got, want, `a txn nested ${depth} deep`)
      const moved = async (c: grpc.Client, before: string): Promise<number> => Number(await revision(c)) - Number(before)
      assert.equal(await moved(mine, mineBefore), await moved(ref, refBefore), `the revision after a txn nested ${depth} deep`)
    }
  })
})
