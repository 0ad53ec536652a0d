// Request rules etcd enforces on a txn before it runs (v3rpc/key.go): op budgets (--max-txn-ops 128,
// nested levels get what their parent leaves), duplicate keys (checkIntervals), empty keys and empty ops.
import type { RequestOp, ResponseOp } from '../../../src/etcdserver/types/kv.js'
import {
  b, cmp, ERR, kv, opDel, opPut, opRange, opTxn, puts, rDel, rPut, rRange, rTxn, type Case, type View,
} from '../harness/case.js'
import { get, rq } from './kv.js'
import { txn } from './txn.js'

/** etcd's default --max-txn-ops. */
const MAX_OPS = 128

/** n puts of distinct keys `${prefix}0`, `${prefix}1`, … */
const manyPuts = (n: number, prefix = 'k'): RequestOp[] => Array.from({ length: n }, (_, i) => opPut(`${prefix}${i}`, 'v'))
const manyRPuts = (n: number, rev: number): View<ResponseOp>[] => Array.from({ length: n }, () => rPut(rev))

const BUDGET_CASES: readonly Case[] = [
  {
    name: `${MAX_OPS} ops in a branch are allowed and share one revision`,
    steps: [txn({ success: manyPuts(MAX_OPS) }, { rev: 2, succeeded: true, responses: manyRPuts(MAX_OPS, 2) })],
  },
  { name: `${MAX_OPS + 1} ops in success are refused`, steps: [{ txn: { success: manyPuts(MAX_OPS + 1) }, err: ERR.tooManyOps }] },
  {
    name: `${MAX_OPS + 1} ops in failure are refused even when success is taken`,
    steps: [{ txn: { success: [opPut('a', '1')], failure: manyPuts(MAX_OPS + 1) }, err: ERR.tooManyOps }],
  },
  {
    name: `${MAX_OPS + 1} compares are refused`,
    steps: [{ txn: { compare: Array.from({ length: MAX_OPS + 1 }, (_, i) => cmp(`k${i}`, 'VERSION', 'EQUAL', 0)) }, err: ERR.tooManyOps }],
  },
  {
    name: 'a nested txn may use the budget its parent leaves (128 - 100 = 28)',
    requires: ['nestedTxn'],
    steps: [
      txn(
        { success: [...manyPuts(99, 'p'), opTxn({ success: manyPuts(28, 'c') })] },
        { rev: 2, succeeded: true, responses: [...manyRPuts(99, 2), rTxn(true, manyRPuts(28, 2))] },
      ),
    ],
  },
  {
    name: 'a nested txn over the budget its parent leaves is refused',
    requires: ['nestedTxn'],
    steps: [{ txn: { success: [...manyPuts(99, 'p'), opTxn({ success: manyPuts(29, 'c') })] }, err: ERR.tooManyOps }],
  },
  {
    name: 'a parent with 128 ops leaves its nested txn no budget',
    requires: ['nestedTxn'],
    steps: [{ txn: { success: [...manyPuts(127, 'p'), opTxn({ success: [opPut('c', '1')] })] }, err: ERR.tooManyOps }],
  },
]

/** A txn refused as a duplicate; it needs nested-txn support when any op is a txn. */
function dup(name: string, success: RequestOp[], failure: RequestOp[] = []): Case {
  const nested = [...success, ...failure].some((op) => op.type === 'txn')
  return { name, ...(nested ? { requires: ['nestedTxn'] } : {}), steps: [{ txn: { success, failure }, err: ERR.duplicateKey }] }
}

const DUPLICATE_CASES: readonly Case[] = [
  dup('two puts of one key in a branch are refused', [opPut('a', '1'), opPut('a', '2')]),
  dup('two puts of one key in the failure branch are refused too', [], [opPut('a', '1'), opPut('a', '2')]),
  dup('a put inside a range deleted by the same level is refused', [opDel('a', 'c'), opPut('b', '1')]),
  dup('a put before the delete that covers it is refused', [opPut('b', '1'), opDel('a', 'c')]),
  dup('a put of a key deleted by the same level is refused', [opDel('a'), opPut('a', '1')]),
  dup('a parent and its nested txn may not put one key', [opPut('a', '1'), opTxn({ success: [opPut('a', '2')] })]),
  dup('sibling nested txns may not put one key', [opTxn({ success: [opPut('a', '1')] }), opTxn({ success: [opPut('a', '2')] })]),
  dup('sibling nested else branches may not put one key', [opTxn({ failure: [opPut('a', '1')] }), opTxn({ failure: [opPut('a', '2')] })]),
  dup('a nested put inside the parent level\'s delete range is refused', [opDel('a', 'c'), opTxn({ success: [opPut('b', '1')] })]),
  dup('a put inside a nested txn\'s delete range is refused', [opTxn({ success: [opDel('a', 'c')] }), opPut('b', '1')]),
  dup('a nested put inside an earlier sibling\'s delete range is refused', [opTxn({ success: [opDel('a', 'c')] }), opTxn({ success: [opPut('b', '1')] })]),
]

const ALLOWED_CASES: readonly Case[] = [
  {
    name: 'one key in success and in failure is fine',
    steps: [txn({ success: [opPut('a', '1')], failure: [opPut('a', '2')] }, { rev: 2, succeeded: true, responses: [rPut(2)] })],
  },
  {
    name: 'a put outside the deleted range is fine (a no-op delete before any write keeps the old revision)',
    steps: [txn({ success: [opDel('a', 'c'), opPut('c', '1')] }, { rev: 2, succeeded: true, responses: [rDel(1, 0), rPut(2)] })],
  },
  {
    name: 'overlapping deletes are fine',
    steps: [
      txn({ success: [opPut('b', '1'), opPut('c', '1')] }, { rev: 2, succeeded: true, responses: [rPut(2), rPut(2)] }),
      txn({ success: [opDel('a', 'c'), opDel('b', 'd')] }, { rev: 3, succeeded: true, responses: [rDel(3, 1), rDel(3, 1)] }),
    ],
  },
  {
    name: 'a from-key delete (range_end "\\0") does not conflict with a put after it',
    steps: [
      txn({ success: [opPut('a', '1')] }, { rev: 2, succeeded: true, responses: [rPut(2)] }),
      txn({ success: [opDel('a', '\x00'), opPut('b', '1')] }, { rev: 3, succeeded: true, responses: [rDel(3, 1), rPut(3)] }),
      get(rq('\x00', '\x00'), 3, [kv('b', '1', 3, 3, 1)]),
    ],
  },
  {
    name: 'a delete of every key ("\\0", "\\0") does not conflict with a put (etcd quirk)',
    steps: [
      ...puts(['a', '1']),
      txn({ success: [opDel('\x00', '\x00'), opPut('a', '2')] }, { rev: 3, succeeded: true, responses: [rDel(3, 1), rPut(3)] }),
      get(rq('a'), 3, [kv('a', '2', 3, 3, 1)]),
    ],
  },
  {
    name: 'deleting key "a" does not conflict with a put of "a\\0"',
    steps: [txn({ success: [opDel('a'), opPut('a\x00', '1')] }, { rev: 2, succeeded: true, responses: [rDel(1, 0), rPut(2)] })],
  },
  {
    name: 'a nested txn\'s then and else branches may put one key',
    requires: ['nestedTxn'],
    steps: [
      txn(
        { success: [opTxn({ compare: [cmp('a', 'VERSION', 'EQUAL', 0)], success: [opPut('a', '1')], failure: [opPut('a', '2')] })] },
        { rev: 2, succeeded: true, responses: [rTxn(true, [rPut(2)])] },
      ),
    ],
  },
  {
    name: 'an earlier sibling\'s put is not checked against a later sibling\'s delete (etcd quirk)',
    requires: ['nestedTxn'],
    steps: [
      txn(
        { success: [opTxn({ success: [opPut('b', '1')] }), opTxn({ success: [opDel('a', 'c')] })] },
        { rev: 2, succeeded: true, responses: [rTxn(true, [rPut(2)]), rTxn(true, [rDel(2, 1)])] },
      ),
      get(rq('b'), 2, []),
    ],
  },
]

const KEY_CASES: readonly Case[] = [
  { name: 'an empty key in a compare is refused', steps: [{ txn: { compare: [cmp('', 'VERSION', 'EQUAL', 0)] }, err: ERR.emptyKey }] },
  { name: 'an empty key in a txn put is refused', steps: [{ txn: { success: [opPut('', '1')] }, err: ERR.emptyKey }] },
  { name: 'an empty key in a txn range of the failure branch is refused', steps: [{ txn: { failure: [opRange(rq(''))] }, err: ERR.emptyKey }] },
  { name: 'an empty key in a txn delete is refused', steps: [{ txn: { success: [opDel('')] }, err: ERR.emptyKey }] },
  {
    name: 'an empty key in a nested compare is refused',
    requires: ['nestedTxn'],
    steps: [{ txn: { success: [opTxn({ compare: [cmp('', 'VERSION', 'EQUAL', 0)] })] }, err: ERR.emptyKey }],
  },
  { name: 'an empty RequestOp is refused with key not found', steps: [{ txn: { success: [{ type: 'empty' }] }, err: ERR.keyNotFound }] },
  { name: 'ignore_value with a value inside a txn is refused', steps: [{ txn: { success: [opPut('a', '1', { ignoreValue: true })] }, err: ERR.valueProvided }] },
  { name: 'ignore_lease with a lease inside a txn is refused', steps: [{ txn: { success: [{ type: 'put', request: { key: b('a'), ignoreLease: true, lease: 7n } }] }, err: ERR.leaseProvided }] },
  {
    name: 'request errors are reported in etcd\'s order: op count, keys and flags, duplicates, then lease and key pre-checks',
    steps: [
      { txn: { compare: [cmp('', 'VERSION', 'EQUAL', 0)], success: manyPuts(MAX_OPS + 1) }, err: ERR.tooManyOps },
      { txn: { compare: [cmp('', 'VERSION', 'EQUAL', 0)], success: [opPut('a', '1'), opPut('a', '2')] }, err: ERR.emptyKey },
      { txn: { success: [opPut('a', '1'), opPut('a', '2')], failure: [opRange(rq(''))] }, err: ERR.emptyKey },
      { txn: { success: [opPut('a', '1'), opPut('a', '2', { ignoreValue: true })] }, err: ERR.valueProvided },
      { txn: { success: [{ type: 'empty' }, opPut('', '1')] }, err: ERR.keyNotFound },
      { txn: { success: [opPut('a', '1', { lease: 5n }), { type: 'put', request: { key: b('b'), ignoreValue: true } }] }, err: ERR.leaseNotFound },
      { txn: { success: [{ type: 'put', request: { key: b('b'), ignoreValue: true } }, opPut('a', '1', { lease: 5n })] }, err: ERR.keyNotFound },
      { txn: { success: [opRange(rq('a', undefined, { revision: 5 })), opPut('a', '1', { lease: 5n })] }, err: ERR.leaseNotFound },
      get(rq('\x00', '\x00'), 1, []),
    ],
  },
  {
    name: 'a txn over 1.5 MiB is refused as too large',
    requires: ['requestSizeLimit'],
    steps: [{ txn: { success: [{ type: 'put', request: { key: b('big'), value: new Uint8Array(1.6 * 1024 * 1024) } }] }, err: ERR.requestTooLarge }, get(rq('big'), 1, [])],
  },
]

const BIG_KEY = new Uint8Array(1.6 * 1024 * 1024).fill(0x61)

const SIZE_CASES: readonly Case[] = [
  {
    name: 'a read-only txn over 1.5 MiB is served (it does not go through raft)',
    requires: ['requestSizeLimit'],
    steps: [txn({ success: [opRange({ key: BIG_KEY })] }, { rev: 1, succeeded: true, responses: [rRange(1, [])] })],
  },
  {
    name: 'a txn holding a nested txn is a write even if it only reads: over 1.5 MiB it is refused',
    requires: ['requestSizeLimit', 'nestedTxn'],
    steps: [{ txn: { success: [opTxn({ success: [opRange({ key: BIG_KEY })] })] }, err: ERR.requestTooLarge }],
  },
]

export const TXN_RULE_CASES: readonly Case[] = [...BUDGET_CASES, ...DUPLICATE_CASES, ...ALLOWED_CASES, ...KEY_CASES, ...SIZE_CASES]
