// Hand-picked edge requests, each sent to the real etcd and to etcdlite (same fresh state on both) and
// compared as in kv.differential.test.ts: out-of-range numbers, enum values the proto does not define,
// op-count budgets of nested txns, inverted and empty ranges. Cases run in order; writes change the
// state for the cases after them, identically on both servers.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { openEtcd, type Etcd } from '../../src/embed/etcd.js'
import { rawClient, type RawClient } from '../helpers/grpc-client.js'
import { haveEtcd, startReferenceEtcd, type ServerProcess } from '../helpers/processes.js'
import { b, type Op, type PbRequest } from './gen.js'
import { normError, normResponse, showRequest } from './normalize.js'

const skip = haveEtcd() ? false : 'the reference `etcd` binary is not on PATH'

const INT64_MAX = '9223372036854775807'
const INT64_MIN = '-9223372036854775808'
const rangeOp = (req: PbRequest): PbRequest => ({ request_range: req })
const putOp = (req: PbRequest): PbRequest => ({ request_put: req })

interface Case {
  readonly name: string
  readonly op: Op
  /** A known difference from etcd, reported; the case still runs (as a node:test todo). */
  readonly todo?: string
}

const cases: readonly Case[] = [
  { name: 'setup: put a', op: { kind: 'put', req: { key: b('a'), value: b('1') } } },
  { name: 'setup: put a again', op: { kind: 'put', req: { key: b('a'), value: b('2') } } },
  { name: 'setup: put b', op: { kind: 'put', req: { key: b('b'), value: b('3') } } },
  { name: 'setup: put a/x', op: { kind: 'put', req: { key: b('a/x'), value: b('4') } } },
  {
    name: 'compare with a target the proto does not define (etcd: operand ignored, result 0)',
    op: { kind: 'txn', req: { compare: [{ key: b('a'), target: 7, result: 'EQUAL' }] } },
  },
  {
    name: 'compare with a result the proto does not define (etcd: always true)',
    op: { kind: 'txn', req: { compare: [{ key: b('a'), target: 'VERSION', result: 9, version: '5' }] } },
  },
  { name: 'compare with an unknown target on a missing key', op: { kind: 'txn', req: { compare: [{ key: b('zz'), target: 7, result: 'EQUAL' }] } } },
  { name: 'range with a sort order the proto does not define, and a limit', op: { kind: 'range', req: { key: b('a'), range_end: b('c'), sort_order: 5, limit: '1' } } },
  { name: 'range with a negative limit (no limit)', op: { kind: 'range', req: { key: b('a'), range_end: b('c'), limit: '-1' } } },
  { name: 'range at revision int64 max', op: { kind: 'range', req: { key: b('a'), revision: INT64_MAX } } },
  { name: 'range at revision int64 min', op: { kind: 'range', req: { key: b('a'), revision: INT64_MIN } } },
  { name: 'range with negative min/max filters', op: { kind: 'range', req: { key: b('\x00'), range_end: b('\x00'), min_mod_revision: '-3', max_create_revision: '-1' } } },
  { name: 'range with range_end == key (empty)', op: { kind: 'range', req: { key: b('a'), range_end: b('a') } } },
  { name: 'range with range_end < key (empty)', op: { kind: 'range', req: { key: b('b'), range_end: b('a') } } },
  { name: 'range with range_end "\\0" from a middle key', op: { kind: 'range', req: { key: b('a/'), range_end: b('\x00'), count_only: true } } },
  { name: 'range with an empty key and range_end "\\0"', op: { kind: 'range', req: { key: b(''), range_end: b('\x00') } } },
  { name: 'range with limit larger than int32', op: { kind: 'range', req: { key: b('a'), range_end: b('c'), limit: '4294967297' } } },
  { name: 'put with lease -1 (as int64)', op: { kind: 'put', req: { key: b('l'), value: b('v'), lease: '-1' } } },
  { name: 'put with ignore_value and prev_kv on an existing key', op: { kind: 'put', req: { key: b('a'), ignore_value: true, prev_kv: true } } },
  { name: 'put with ignore_value and a value', op: { kind: 'put', req: { key: b('a'), value: b('x'), ignore_value: true } } },
  { name: 'delete with range_end < key (nothing, no revision)', op: { kind: 'deleteRange', req: { key: b('b'), range_end: b('a'), prev_kv: true } } },
  { name: 'compact a negative revision', op: { kind: 'compact', req: { revision: '-5' } } },
  { name: 'compact int64 max', op: { kind: 'compact', req: { revision: INT64_MAX } } },
  { name: 'compact revision 0', op: { kind: 'compact', req: { revision: '0' } } },
  { name: 'txn range at revision -1 after compact(0)', op: { kind: 'txn', req: { success: [rangeOp({ key: b('a'), revision: '-1' })] } } },
  {
    name: 'txn with exactly 128 ops at one level',
    op: { kind: 'txn', req: { success: Array.from({ length: 128 }, () => rangeOp({ key: b('a') })) } },
  },
  {
    name: 'txn with 129 compares',
    op: { kind: 'txn', req: { compare: Array.from({ length: 129 }, () => ({ key: b('a'), target: 'VERSION', result: 'GREATER', version: '0' })) } },
  },
  {
    name: 'nested txn over the budget left by its parent (101 ops + child of 28)',
    op: {
      kind: 'txn',
      req: { success: [...Array.from({ length: 100 }, () => rangeOp({ key: b('a') })), { request_txn: { success: Array.from({ length: 28 }, () => rangeOp({ key: b('b') })) } }] },
    },
  },
  {
    name: 'nested txn within the budget left by its parent (101 ops + child of 27)',
    op: {
      kind: 'txn',
      req: { success: [...Array.from({ length: 100 }, () => rangeOp({ key: b('a') })), { request_txn: { success: Array.from({ length: 27 }, () => rangeOp({ key: b('b') })) } }] },
    },
  },
  { name: 'txn with an empty op in the failure branch', op: { kind: 'txn', req: { success: [putOp({ key: b('e'), value: b('1') })], failure: [{}] } } },
  { name: 'txn with an empty compare key', op: { kind: 'txn', req: { compare: [{ key: b(''), target: 'VERSION', result: 'EQUAL' }] } } },
  { name: 'txn compare over a from-key range on VALUE', op: { kind: 'txn', req: { compare: [{ key: b('a'), range_end: b('\x00'), target: 'VALUE', result: 'GREATER', value: b('0') }] } } },
  {
    name: 'txn: a put in a child and in its parent is a duplicate',
    op: { kind: 'txn', req: { success: [putOp({ key: b('d'), value: b('1') }), { request_txn: { success: [putOp({ key: b('d'), value: b('2') })] } }] } },
  },
  {
    name: 'txn: the same key in a child then and else is fine',
    op: { kind: 'txn', req: { success: [{ request_txn: { compare: [{ key: b('a'), target: 'VERSION', result: 'GREATER', version: '0' }], success: [putOp({ key: b('d'), value: b('t') })], failure: [putOp({ key: b('d'), value: b('f') })] } }] } },
  },
  {
    name: 'txn: a put in an earlier sibling, a delete in a later one (etcd does not detect it)',
    op: { kind: 'txn', req: { success: [{ request_txn: { success: [putOp({ key: b('s'), value: b('1') })] } }, { request_txn: { success: [{ request_delete_range: { key: b('s') } }] } }] } },
  },
  {
    name: 'txn: a delete in an earlier sibling, a put in a later one (duplicate)',
    op: { kind: 'txn', req: { success: [{ request_txn: { success: [{ request_delete_range: { key: b('s') } }] } }, { request_txn: { success: [putOp({ key: b('s'), value: b('1') })] } }] } },
  },
  {
    name: 'txn: nested compares see the state before the txn, nested ranges see its writes',
    op: {
      kind: 'txn',
      req: {
        success: [
          putOp({ key: b('n'), value: b('new') }),
          { request_txn: { compare: [{ key: b('n'), target: 'VERSION', result: 'EQUAL', version: '0' }], success: [rangeOp({ key: b('n') })], failure: [] } },
        ],
      },
    },
  },
  { name: 'final: everything', op: { kind: 'range', req: { key: b('\x00'), range_end: b('\x00') } } },
]


async function call(c: RawClient, op: Op): Promise<unknown> {
  const f = { range: c.kv.Range, put: c.kv.Put, deleteRange: c.kv.DeleteRange, txn: c.kv.Txn, compact: c.kv.Compact }[op.kind]
  try {
    return normResponse(op, await f(op.req))
  } catch (e) {
    return normError(e)
  }
}

describe('KV edge requests: etcdlite vs etcd 3.4', { skip }, () => {
  let refProc: ServerProcess | undefined
  let ours: Etcd | undefined
  let ref: RawClient | undefined
  let mine: RawClient | undefined

  before(async () => {
    refProc = await startReferenceEtcd()
    ours = await openEtcd({ memory: true })
    const l = await ours.listen({ port: 0 })
    ref = rawClient(refProc.endpoint)
    mine = rawClient(l.endpoint)
  })

  after(async () => {
    ref?.close()
    mine?.close()
    await ours?.close()
    await refProc?.dispose()
  })

  for (const c of cases) {
    it(c.name, c.todo !== undefined ? { todo: c.todo } : {}, async () => {
      if (ref === undefined || mine === undefined) throw new Error('servers did not start')
      const want = await call(ref, c.op)
      const got = await call(mine, c.op)
      assert.deepStrictEqual(got, want, `request: ${JSON.stringify(showRequest(c.op.req))}\netcd: ${JSON.stringify(want)}\nours: ${JSON.stringify(got)}`)
    })
  }
})
