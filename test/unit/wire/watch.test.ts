// The hand-written Watch codec (src/wire/watch.ts, src/wire/watch-fanout.ts) against protobufjs over our
// protos: requests protobufjs encodes (plus unpacked filters, unknown fields and several oneof members)
// decode to what protobufjs reads, and responses we encode decode in protobufjs to what we meant.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import protobuf from 'protobufjs'
import { PROTO_DIR } from '../../../src/grpc/proto.js'
import {
  clearEventsSectionCache,
  encodeWatchResponseMessage,
  encodeWatchResponseTransient,
} from '../../../src/wire/watch-fanout.js'
import { decodeWatchRequest, encodeWatchResponse, watchResponseSize, type DecodedWatchRequest } from '../../../src/wire/watch.js'
import type { KeyValue } from '../../../src/etcdserver/types/kv.js'
import type { WatchCreateRequest, WatchEvent, WatchFilter, WatchResponse } from '../../../src/etcdserver/types/watch.js'
import { Prng, seedsFromEnv } from '../../helpers/prng.js'
import { watchIdOf, type WatchId } from '../../../src/pkg/watch-id.js'

const root = new protobuf.Root()
root.resolvePath = (_origin, target) => `${PROTO_DIR}/${target}`
root.loadSync('etcdserverpb/rpc.proto', { keepCase: true })
const T = (name: string): protobuf.Type => root.lookupType(name)
const WatchRequestT = T('etcdserverpb.WatchRequest')
const CreateT = T('etcdserverpb.WatchCreateRequest')
const CancelT = T('etcdserverpb.WatchCancelRequest')
const ResponseT = T('etcdserverpb.WatchResponse')
const OBJ = { longs: String, enums: String, bytes: Buffer, defaults: true, arrays: true } as const
/** Enums as numbers: a filter number protobufjs has no name for stays visible. */
const OBJ_NUM = { ...OBJ, enums: Number } as const

// Raw protobuf pieces, for what protobufjs does not write: unpacked repeated enums, unknown fields, and
// several oneof members in one message.

function varint(n: bigint): number[] {
  let v = BigInt.asUintN(64, n)
  const out: number[] = []
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80)
    v >>= 7n
  }
  out.push(Number(v))
  return out
}
const tag = (field: number, wt: number): number[] => varint(BigInt(field * 8 + wt))
const lenField = (field: number, body: Uint8Array): Buffer => Buffer.from([...tag(field, 2), ...varint(BigInt(body.length)), ...body])
const varintField = (field: number, n: bigint): Buffer => Buffer.from([...tag(field, 0), ...varint(n)])

/** A field protobufjs and we must skip: any wire type, at a field number the message does not have. */
function unknownField(r: Prng, minField: number): Buffer {
  const field = r.between(minField, 3000)
  switch (r.int(4)) {
    case 0:
      return varintField(field, BigInt(r.u32()) * BigInt(r.u32()))
    case 1:
      return Buffer.from([...tag(field, 1), ...Array.from({ length: 8 }, () => r.int(256))])
    case 2:
      return lenField(field, Uint8Array.from({ length: r.int(20) }, () => r.int(256)))
    default:
      return Buffer.from([...tag(field, 5), ...Array.from({ length: 4 }, () => r.int(256))])
  }
}

const INT64S = ['0', '1', '-1', '2', '127', '128', '300', '2147483648', '9007199254740991', '-9007199254740991', '9223372036854775807', '-9223372036854775808']
const bytes = (r: Prng, max = 20): Buffer => Buffer.from(Array.from({ length: r.chance(0.25) ? 0 : r.int(max) }, () => r.int(256)))

// The oracle for requests: protobufjs's reading of one member, turned into the domain shape by hand.

interface PbCreate {
  key: Buffer
  range_end: Buffer
  start_revision: string
  progress_notify: boolean
  filters: number[]
  prev_kv: boolean
  watch_id: string
  fragment: boolean
}

const FILTER_NAMES: readonly WatchFilter[] = ['NOPUT', 'NODELETE']

function oracleCreate(body: Uint8Array): WatchCreateRequest {
  const o = CreateT.toObject(CreateT.decode(body), OBJ_NUM) as PbCreate
  return {
    key: o.key,
    rangeEnd: o.range_end,
    startRevision: Number(o.start_revision),
    progressNotify: o.progress_notify,
    filters: o.filters.flatMap((n) => {
      const f = FILTER_NAMES[n]
      return f === undefined ? [] : [f]
    }),
    prevKv: o.prev_kv,
    watchId: watchIdOf(BigInt(o.watch_id)),
    fragment: o.fragment,
  }
}

const oracleCancel = (body: Uint8Array): WatchId => watchIdOf(BigInt((CancelT.toObject(CancelT.decode(body), OBJ) as { watch_id: string }).watch_id))

/** Normalise byte views to Buffers so deepEqual compares contents. */
function norm(req: DecodedWatchRequest): unknown {
  if (req.type !== 'create') return req
  const c = req.request
  return { type: 'create', request: { ...c, key: Buffer.from(c.key), rangeEnd: c.rangeEnd === undefined ? undefined : Buffer.from(c.rangeEnd) } }
}

/** A random WatchCreateRequest body: protobufjs's encoding, sometimes with extra raw fields appended. */
function randomCreate(r: Prng): Buffer {
  const msg = {
    key: bytes(r),
    range_end: r.chance(0.3) ? Buffer.from([0]) : bytes(r),
    start_revision: r.pick(INT64S),
    progress_notify: r.chance(0.5),
    filters: Array.from({ length: r.int(3) }, () => r.int(2)),
    prev_kv: r.chance(0.5),
    watch_id: r.pick(INT64S),
    fragment: r.chance(0.5),
  }
  const parts: Buffer[] = [Buffer.from(CreateT.encode(CreateT.fromObject(msg)).finish())]
  for (let n = r.int(4); n > 0; n--) {
    switch (r.int(5)) {
      case 0: // unpacked filters, including numbers etcd does not know (ignored)
        parts.push(varintField(5, BigInt(r.pick([0, 1, 1, 2, 7]))))
        break
      case 1: // a second packed run: repeated fields concatenate
        parts.push(lenField(5, Uint8Array.from(Array.from({ length: r.int(3) }, () => r.int(3)))))
        break
      case 2: // a scalar sent again: the last one wins (a bool sent as 2 is true)
        parts.push(r.chance(0.5) ? varintField(6, BigInt(r.int(3))) : varintField(7, BigInt(r.pick(INT64S))))
        break
      case 3:
        parts.push(lenField(1, bytes(r)))
        break
      default:
        parts.push(unknownField(r, 9))
    }
  }
  return Buffer.concat(parts)
}

describe('Watch wire codec: requests', () => {
  for (const seed of seedsFromEnv('WATCH_CODEC_SEEDS', [7])) {
    it(`decodes 500 random WatchRequests as protobufjs reads them, the last oneof member winning (seed ${seed})`, () => {
      const r = new Prng(seed)
      const kinds = new Map<string, number>()
      for (let i = 0; i < 500; i++) {
        const parts: Buffer[] = []
        let want: DecodedWatchRequest = { type: 'none' }
        for (let n = r.weighted([[1, 0], [6, 1], [2, 2], [1, 3]]); n > 0; n--) {
          if (r.chance(0.2)) parts.push(unknownField(r, 4))
          switch (r.int(3)) {
            case 0: {
              const body = randomCreate(r)
              parts.push(lenField(1, body))
              want = { type: 'create', request: oracleCreate(body) }
              break
            }
            case 1: {
              let body = Buffer.from(CancelT.encode(CancelT.fromObject({ watch_id: r.pick(INT64S) })).finish())
              if (r.chance(0.3)) body = Buffer.concat([body, unknownField(r, 2)])
              parts.push(lenField(2, body))
              want = { type: 'cancel', watchId: oracleCancel(body) }
              break
            }
            default:
              parts.push(lenField(3, r.chance(0.3) ? unknownField(r, 1) : new Uint8Array(0)))
              want = { type: 'progress' }
          }
        }
        if (r.chance(0.2)) parts.push(unknownField(r, 4))
        const buf = Buffer.concat(parts)
        // protobufjs itself accepts the message (it is valid protobuf).
        WatchRequestT.decode(buf)
        assert.deepEqual(norm(decodeWatchRequest(buf)), norm(want), `case ${i}: ${buf.toString('hex')}`)
        kinds.set(want.type, (kinds.get(want.type) ?? 0) + 1)
      }
      assert.ok([...kinds.values()].every((n) => n > 20) && kinds.size === 4, `every kind covered: ${JSON.stringify([...kinds])}`)
    })
  }

  const hex = (s: string): Buffer => Buffer.from(s.replace(/\s/g, ''), 'hex')
  const create = (c: Partial<WatchCreateRequest>): DecodedWatchRequest => ({
    type: 'create',
    request: { key: Buffer.alloc(0), rangeEnd: Buffer.alloc(0), startRevision: 0, progressNotify: false, filters: [], prevKv: false, watchId: 0, fragment: false, ...c },
  })
  const cases: Array<{ name: string; buf: Buffer; want: DecodedWatchRequest }> = [
    { name: 'an empty request is none', buf: hex(''), want: { type: 'none' } },
    { name: 'only unknown fields is none', buf: hex('2001 2a0100'), want: { type: 'none' } },
    { name: 'an empty progress request', buf: hex('1a00'), want: { type: 'progress' } },
    { name: 'an empty create request has every default', buf: hex('0a00'), want: create({}) },
    { name: 'an empty cancel request cancels watch 0', buf: hex('1200'), want: { type: 'cancel', watchId: 0 } },
    { name: 'cancel of watch -1 (ten-byte varint)', buf: hex('120b 08ffffffffffffffffff01'), want: { type: 'cancel', watchId: -1 } },
    { name: 'create then cancel: cancel wins', buf: hex('0a03 0a0161 1202 0805'), want: { type: 'cancel', watchId: 5 } },
    { name: 'cancel then create: create wins', buf: hex('1202 0805 0a03 0a0161'), want: create({ key: Buffer.from('a') }) },
    { name: 'progress after create wins', buf: hex('0a03 0a0161 1a00'), want: { type: 'progress' } },
    { name: 'packed and unpacked filters add up', buf: hex('0a06 2a020001 2801'), want: create({ filters: ['NOPUT', 'NODELETE', 'NODELETE'] }) },
    { name: 'unknown filter numbers are ignored', buf: hex('0a06 2a020700 2809'), want: create({ filters: ['NOPUT'] }) },
    { name: 'a known field number with the wrong wire type is skipped', buf: hex('0a04 0805 3801'), want: create({ watchId: 1 }) },
    {
      name: 'every create field',
      buf: hex('0a13 0a0161 12016b 1805 2001 2a0101 3001 3803 4001'),
      want: create({ key: Buffer.from('a'), rangeEnd: Buffer.from('k'), startRevision: 5, progressNotify: true, filters: ['NODELETE'], prevKv: true, watchId: 3, fragment: true }),
    },
    { name: 'a negative start revision', buf: hex('0a0b 18feffffffffffffffff01'), want: create({ startRevision: -2 }) },
  ]
  for (const c of cases) {
    it(`table: ${c.name}`, () => {
      assert.deepEqual(norm(decodeWatchRequest(c.buf)), norm(c.want))
    })
  }

  it('rejects truncated input with an error', () => {
    for (const bad of ['0a05 0a', '12', '1202 08', '0a02 0a05', '0a01 18']) assert.throws(() => decodeWatchRequest(hex(bad)), hex(bad).toString('hex'))
  })
})

// Responses: our bytes, read by protobufjs, equal what protobufjs makes of the same response.

const pbKv = (kv: KeyValue): object => ({
  key: Buffer.from(kv.key),
  create_revision: String(kv.createRevision),
  mod_revision: String(kv.modRevision),
  version: String(kv.version),
  value: Buffer.from(kv.value),
  lease: String(kv.lease),
})

const pbResponse = (w: WatchResponse): object => ({
  header: {
    cluster_id: String(w.header.clusterId),
    member_id: String(w.header.memberId),
    revision: String(w.header.revision),
    raft_term: String(w.header.raftTerm),
  },
  watch_id: String(w.watchId),
  created: w.created,
  canceled: w.canceled,
  compact_revision: String(w.compactRevision),
  cancel_reason: w.cancelReason,
  fragment: w.fragment,
  events: w.events.map((e) => ({ type: e.type, kv: pbKv(e.kv), ...(e.prevKv === undefined ? {} : { prev_kv: pbKv(e.prevKv) }) })),
})

function randomKv(r: Prng): KeyValue {
  return {
    key: bytes(r),
    value: bytes(r, r.chance(0.05) ? 300 : 20),
    createRevision: r.chance(0.3) ? 0 : r.int(2 ** 31),
    modRevision: r.pick([0, 1, 127, 128, r.int(2 ** 40), Number.MAX_SAFE_INTEGER]),
    version: r.int(5),
    lease: r.pick([0n, 1n, 0x7fffffffffffffffn, 123456789012345n]),
  }
}

function randomResponse(r: Prng): WatchResponse {
  const events: WatchEvent[] = []
  for (let n = r.weighted([[3, 0], [3, 1], [2, 3], [1, 8]]); n > 0; n--) {
    const prev = events[events.length - 1]
    // Sometimes the same event object twice: its bytes are cached by identity.
    if (prev !== undefined && r.chance(0.15)) events.push(prev)
    else events.push({ type: r.chance(0.5) ? 'PUT' : 'DELETE', kv: randomKv(r), ...(r.chance(0.3) ? { prevKv: randomKv(r) } : {}) })
  }
  return {
    header: {
      clusterId: r.pick([0n, 1n, 0xffffffffffffffffn, 14841639068965178418n]),
      memberId: r.pick([0n, 10276657743932975437n]),
      revision: r.pick([0, 1, r.int(2 ** 31), Number.MAX_SAFE_INTEGER]),
      raftTerm: r.int(4),
    },
    watchId: r.pick([-1, 0, 1, 2, 127, 128, r.int(2 ** 31)]),
    created: r.chance(0.3),
    canceled: r.chance(0.3),
    compactRevision: r.chance(0.7) ? 0 : r.int(2 ** 40),
    cancelReason: r.pick(['', '', 'mvcc: watcher range is empty', 'mvcc: duplicate watch ID provided on the WatchStream', 'é 日本 \u{1f600}']),
    fragment: r.chance(0.3),
    events,
  }
}

describe('Watch wire codec: responses', () => {
  for (const seed of seedsFromEnv('WATCH_CODEC_SEEDS', [7])) {
    it(`encodes 500 random WatchResponses to what protobufjs reads as the same response (seed ${seed})`, () => {
      const r = new Prng(seed)
      for (let i = 0; i < 500; i++) {
        const resp = randomResponse(r)
        const ours = encodeWatchResponseMessage(resp)
        const theirs = ResponseT.encode(ResponseT.fromObject(pbResponse(resp))).finish()
        assert.deepEqual(ResponseT.toObject(ResponseT.decode(ours), OBJ), ResponseT.toObject(ResponseT.decode(theirs), OBJ), `case ${i}`)
        assert.equal(watchResponseSize(resp), ours.length, `case ${i}: watchResponseSize is the encoded length`)
        // Encoding again (now from the event cache) gives the same bytes.
        assert.deepEqual(encodeWatchResponseMessage(resp), ours, `case ${i}: stable`)
      }
    })
  }

  const header = { clusterId: 1n, memberId: 2n, revision: 3, raftTerm: 4 }
  const base: WatchResponse = { header, watchId: 0, created: false, canceled: false, compactRevision: 0, cancelReason: '', fragment: false, events: [] }
  const kv: KeyValue = { key: Buffer.from('k'), value: Buffer.from('v'), createRevision: 2, modRevision: 5, version: 3, lease: 0n }
  const cases: Array<{ name: string; resp: WatchResponse; check: (o: Record<string, unknown>) => void }> = [
    {
      name: 'a failed create: watch_id -1, created, canceled and the reason',
      resp: { ...base, watchId: -1, created: true, canceled: true, cancelReason: 'mvcc: watcher range is empty' },
      check: (o) => assert.deepEqual([o['watch_id'], o['created'], o['canceled'], o['cancel_reason']], ['-1', true, true, 'mvcc: watcher range is empty']),
    },
    ...[9007199254740993n, 9223372036854775807n, -9223372036854775808n].map((id) => ({
      name: `a client-chosen watch_id beyond the safe integers: ${id}`,
      resp: { ...base, watchId: id, created: true },
      check: (o: Record<string, unknown>) => assert.equal(o['watch_id'], String(id)),
    })),
    {
      name: 'a compacted response carries compact_revision',
      resp: { ...base, watchId: 4, canceled: true, compactRevision: 17 },
      check: (o) => assert.deepEqual([o['watch_id'], o['canceled'], o['compact_revision']], ['4', true, '17']),
    },
    {
      name: 'a fragment flag',
      resp: { ...base, fragment: true, events: [{ type: 'PUT', kv }] },
      check: (o) => assert.equal(o['fragment'], true),
    },
    {
      name: 'prev_kv present on one event and absent on the other',
      resp: { ...base, events: [{ type: 'PUT', kv, prevKv: { ...kv, value: Buffer.from('old'), modRevision: 4 } }, { type: 'DELETE', kv }] },
      check: (o) => {
        const evs = o['events'] as Array<Record<string, unknown>>
        assert.equal(String((evs[0]?.['prev_kv'] as { value: Buffer }).value), 'old')
        assert.equal(evs[1]?.['prev_kv'] ?? null, null)
        assert.equal(evs[1]?.['type'], 'DELETE')
      },
    },
    {
      name: 'an all-zero response still has its header',
      resp: { ...base, header: { clusterId: 0n, memberId: 0n, revision: 0, raftTerm: 0 } },
      check: (o) => assert.deepEqual(o['header'], { cluster_id: '0', member_id: '0', revision: '0', raft_term: '0' }),
    },
  ]
  for (const c of cases) {
    it(`table: ${c.name}`, () => {
      const buf = encodeWatchResponseMessage(c.resp)
      c.check(ResponseT.toObject(ResponseT.decode(buf), { longs: String, enums: String, bytes: Buffer, defaults: true }))
      assert.equal(buf.length, watchResponseSize(c.resp))
    })
  }

  it('the same event with and without prev_kv encodes differently (the cache is for events without prev_kv only)', () => {
    const ev: WatchEvent = { type: 'PUT', kv }
    const withPrev: WatchEvent = { ...ev, prevKv: { ...kv, value: Buffer.from('p') } }
    const a = encodeWatchResponseMessage({ ...base, events: [ev] })
    const b2 = encodeWatchResponseMessage({ ...base, events: [withPrev] })
    const c2 = encodeWatchResponseMessage({ ...base, events: [ev] })
    assert.ok(b2.length > a.length)
    assert.deepEqual(c2, a)
  })
})

describe('Watch wire codec: events sections shared across responses', () => {
  const header = { clusterId: 1n, memberId: 2n, revision: 30, raftTerm: 4 }
  const ev = (rev: number, value = 'v'): WatchEvent => ({
    type: rev % 3 === 0 ? 'DELETE' : 'PUT',
    kv: { key: Buffer.from('key'), value: Buffer.from(value.repeat(rev)), createRevision: 2, modRevision: rev, version: rev, lease: BigInt(rev) },
  })
  const resp = (watchId: number, events: readonly WatchEvent[]): WatchResponse => ({
    header, watchId, created: false, canceled: false, compactRevision: 0, cancelReason: '', fragment: false, events,
  })
  const e = Array.from({ length: 8 }, (_, i) => ev(i + 10))
  const other = Array.from({ length: 8 }, (_, i) => ev(i + 10, 'w')) // same revisions, other objects and values
  const shared = e.slice(0, 5)
  // Run in order against one cache: each case meets what the ones before it left there.
  const cases: Array<{ name: string; resp: WatchResponse }> = [
    { name: 'a first list', resp: resp(1, shared) },
    { name: 'the same array for another watcher', resp: resp(2, shared) },
    { name: 'an equal list in another array', resp: resp(3, e.slice(0, 5)) },
    { name: 'a shorter list with the same start', resp: resp(4, e.slice(0, 3)) },
    { name: 'a longer list with the same start', resp: resp(5, e.slice(0, 8)) },
    { name: 'the same start, then other objects', resp: resp(6, [e[0] as WatchEvent, e[1] as WatchEvent, ...other.slice(2, 6)]) },
    { name: 'the original list again after the divergent one replaced it', resp: resp(7, e.slice(0, 5)) },
    { name: 'a list starting in the middle', resp: resp(8, e.slice(3, 7)) },
    { name: 'with prev_kv (never kept)', resp: resp(9, [{ ...(e[0] as WatchEvent), prevKv: (e[1] as WatchEvent).kv }, e[2] as WatchEvent]) },
    { name: 'a canceled response with a reason and a negative ID', resp: { ...resp(-1, e.slice(0, 2)), canceled: true, cancelReason: 'why', compactRevision: 9 } },
  ]
  it('every response encodes to the bytes of the uncached encoder, by both entry points', () => {
    clearEventsSectionCache()
    for (const c of cases) {
      const want = encodeWatchResponse(c.resp)
      assert.deepEqual(encodeWatchResponseMessage(c.resp), want, c.name)
      // Transient bytes are only good until the next call: copy at once, as grpc-js does.
      assert.deepEqual(Buffer.from(encodeWatchResponseTransient(c.resp)), want, `${c.name} (transient)`)
    }
  })

  it('a transient encoding is overwritten by the next one, a message encoding is not', () => {
    clearEventsSectionCache()
    const a = encodeWatchResponseMessage(resp(1, e.slice(0, 4)))
    const aCopy = Buffer.from(a)
    const t = encodeWatchResponseTransient(resp(1, e.slice(0, 4)))
    const tCopy = Buffer.from(t)
    encodeWatchResponseTransient(resp(2, other.slice(0, 4)))
    assert.deepEqual(a, aCopy)
    assert.deepEqual(tCopy, aCopy)
    assert.notDeepEqual(t, tCopy, 'the scratch buffer was reused')
  })
})
