// Txn semantics: compares (every target x result, ranges, missing keys), branches, revisions of write and
// read-only txns, inner headers, nested txns, and pre-checks on the taken path. Expectations follow etcd
// 3.4 etcdserver/apply.go (Txn, compareToPath, applyCompare, checkRequests) and mvcc's storeTxnWrite.
import type {
  Compare, CompareResult, CompareTarget, TxnRequest, TxnResponse,
} from '../../../src/etcdserver/types/kv.js'
import {
  b, cmp, ERR, kv, opDel, opPut, opRange, opTxn, puts, rDel, rPut, rRange, rTxn, type Case, type Step, type Want,
} from '../harness/case.js'
import { get, rq } from './kv.js'

/** A txn step and its exact outcome. */
export const txn = (req: TxnRequest, want: Want<TxnResponse>): Step => ({ txn: req, want })
/** A txn with only compares and empty branches: the step checks `succeeded` and that no revision was taken. */
const probe = (compare: Compare[], rev: number, succeeded: boolean): Step => txn({ compare }, { rev, succeeded, responses: [] })

// Compare matrix: k has create 2, mod 3, version 2, value 'm', lease 0 (at revision 3)
const KSEED = puts(['k', 'a'], ['k', 'm'])
/** For each target: an operand below, equal to, and above k's field. */
const OPERANDS: Readonly<Record<Exclude<CompareTarget, 'UNKNOWN'>, readonly [number | bigint | string, number | bigint | string, number | bigint | string]>> = {
  VERSION: [1, 2, 3],
  CREATE: [1, 2, 3],
  MOD: [2, 3, 4],
  VALUE: ['a', 'm', 'z'],
  LEASE: [-1n, 0n, 1n],
}
/** Whether `field RESULT operand` holds when the operand is below / equal / above the field. */
const HOLDS: Readonly<Record<Exclude<CompareResult, 'UNKNOWN'>, readonly [boolean, boolean, boolean]>> = {
  EQUAL: [false, true, false],
  GREATER: [true, false, false],
  LESS: [false, false, true],
  NOT_EQUAL: [true, false, true],
}

const MATRIX: Case[] = []
for (const target of ['VERSION', 'CREATE', 'MOD', 'VALUE', 'LEASE'] as const) {
  for (const result of ['EQUAL', 'GREATER', 'LESS', 'NOT_EQUAL'] as const) {
    const steps = OPERANDS[target].map((operand, i) => probe([cmp('k', target, result, operand)], 3, HOLDS[result][i] ?? false))
    MATRIX.push({ name: `compare ${target} ${result} against an operand below, equal to and above`, steps: [...KSEED, ...steps] })
  }
}

const COMPARE_CASES: readonly Case[] = [
  ...MATRIX,
  {
    name: 'a missing key compares as zero version, create, mod and lease',
    steps: [
      probe([cmp('nope', 'VERSION', 'EQUAL', 0)], 1, true),
      probe([cmp('nope', 'CREATE', 'EQUAL', 0)], 1, true),
      probe([cmp('nope', 'MOD', 'EQUAL', 0)], 1, true),
      probe([cmp('nope', 'LEASE', 'EQUAL', 0n)], 1, true),
      probe([cmp('nope', 'VERSION', 'LESS', 1)], 1, true),
      probe([cmp('nope', 'VERSION', 'GREATER', 0)], 1, false),
    ],
  },
  {
    name: 'a VALUE compare on a missing key always fails',
    steps: [
      probe([cmp('nope', 'VALUE', 'EQUAL', '')], 1, false),
      probe([cmp('nope', 'VALUE', 'NOT_EQUAL', 'x')], 1, false),
      probe([cmp('nope', 'VALUE', 'LESS', 'z')], 1, false),
      probe([cmp('nope', 'VALUE', 'GREATER', '')], 1, false),
    ],
  },
  {
    name: 'a compare without an operand compares against zero (empty value)',
    steps: [
      ...puts(['k', '']),
      probe([{ key: b('k'), target: 'VERSION', result: 'EQUAL' }], 2, false),
      probe([{ key: b('k'), target: 'MOD', result: 'GREATER' }], 2, true),
      probe([{ key: b('k'), target: 'VALUE', result: 'EQUAL' }], 2, true),
      probe([{ key: b('nope'), target: 'CREATE', result: 'EQUAL' }], 2, true),
    ],
  },
  {
    name: 'a compare with range_end must hold for every key in the range',
    // a: version 1, mod 2; b: version 2, mod 4, value '2'; c: version 1, mod 5
    steps: [
      ...puts(['a', '1'], ['b', '1'], ['b', '2'], ['c', '1']),
      probe([cmp('a', 'VERSION', 'GREATER', 0, 'd')], 5, true),
      probe([cmp('a', 'VERSION', 'EQUAL', 1, 'd')], 5, false),
      probe([cmp('a', 'VERSION', 'EQUAL', 1, 'b')], 5, true),
      probe([cmp('c', 'VERSION', 'EQUAL', 1, '\x00')], 5, true),
      probe([cmp('b', 'VERSION', 'EQUAL', 1, '\x00')], 5, false),
      probe([cmp('a', 'MOD', 'LESS', 5, 'c')], 5, true),
      probe([cmp('a', 'MOD', 'LESS', 5, 'd')], 5, false),
      probe([cmp('a', 'VALUE', 'EQUAL', '1', 'b')], 5, true),
      probe([cmp('a', 'VALUE', 'EQUAL', '1', 'd')], 5, false),
    ],
  },
  {
    name: 'a compare over an empty range: zero for numbers, failure for VALUE',
    steps: [
      ...puts(['a', '1']),
      probe([cmp('x', 'VERSION', 'EQUAL', 0, 'y')], 2, true),
      probe([cmp('x', 'CREATE', 'GREATER', 0, 'y')], 2, false),
      probe([cmp('x', 'VALUE', 'NOT_EQUAL', '1', 'y')], 2, false),
    ],
  },
  {
    name: 'a compare over every key ("\\0", "\\0")',
    steps: [
      ...puts(['a', '1'], ['\x00', '1']),
      probe([cmp('\x00', 'VERSION', 'EQUAL', 1, '\x00')], 3, true),
      ...puts(['a', '2']),
      probe([cmp('\x00', 'VERSION', 'EQUAL', 1, '\x00')], 4, false),
    ],
  },
  {
    name: 'every compare of a txn must hold',
    steps: [
      ...KSEED,
      probe([cmp('k', 'VERSION', 'EQUAL', 2), cmp('k', 'VALUE', 'EQUAL', 'm')], 3, true),
      probe([cmp('k', 'VERSION', 'EQUAL', 2), cmp('k', 'VALUE', 'EQUAL', 'nope')], 3, false),
      probe([cmp('k', 'VERSION', 'EQUAL', 9), cmp('k', 'VALUE', 'EQUAL', 'm')], 3, false),
    ],
  },
]

const A1 = kv('a', '1', 2, 2, 1)

const BRANCH_CASES: readonly Case[] = [
  {
    name: 'the success branch runs when every compare holds',
    steps: [
      ...puts(['a', '1']),
      txn(
        { compare: [cmp('a', 'VALUE', 'EQUAL', '1')], success: [opPut('x', '1'), opRange(rq('x'))], failure: [opPut('y', '1')] },
        { rev: 3, succeeded: true, responses: [rPut(3), rRange(3, [kv('x', '1', 3, 3, 1)])] },
      ),
      get(rq('x', 'z'), 3, [kv('x', '1', 3, 3, 1)]),
    ],
  },
  {
    name: 'the failure branch runs when a compare fails',
    steps: [
      ...puts(['a', '1']),
      txn(
        { compare: [cmp('a', 'VALUE', 'EQUAL', '2')], success: [opPut('x', '1')], failure: [opPut('y', '1'), opRange(rq('a'))] },
        { rev: 3, succeeded: false, responses: [rPut(3), rRange(3, [A1])] },
      ),
      get(rq('x', 'z'), 3, [kv('y', '1', 3, 3, 1)]),
    ],
  },
  { name: 'an empty txn succeeds and takes no revision', steps: [txn({}, { rev: 1, succeeded: true, responses: [] })] },
  {
    name: 'all writes of a txn share one revision',
    steps: [
      ...puts(['a', '1'], ['b', '1']),
      txn({ success: [opPut('a', '2'), opPut('c', '1'), opDel('b')] }, { rev: 4, succeeded: true, responses: [rPut(4), rPut(4), rDel(4, 1)] }),
      get(rq('\x00', '\x00'), 4, [kv('a', '2', 2, 4, 2), kv('c', '1', 4, 4, 1)]),
      { put: { key: b('d'), value: b('1') }, want: { rev: 5 } },
    ],
  },
  {
    name: 'ops see earlier writes of the same txn at the new revision; a no-op delete before any write reports the old one',
    steps: [
      ...puts(['a', '1']),
      txn(
        { success: [opDel('zz'), opRange(rq('a')), opPut('a', '2'), opRange(rq('a')), opDel('zz')] },
        { rev: 3, succeeded: true, responses: [rDel(2, 0), rRange(2, [A1]), rPut(3), rRange(3, [kv('a', '2', 2, 3, 2)]), rDel(3, 0)] },
      ),
    ],
  },
  {
    name: 'a read-only txn takes no revision',
    steps: [
      ...puts(['a', '1']),
      txn({ success: [opRange(rq('a')), opRange(rq('a', undefined, { countOnly: true }))] }, { rev: 2, succeeded: true, responses: [rRange(2, [A1]), rRange(2, [], 1)] }),
      { put: { key: b('b'), value: b('1') }, want: { rev: 3 } },
    ],
  },
  {
    name: 'a write txn that changes nothing takes no revision',
    steps: [
      ...puts(['a', '1']),
      txn({ compare: [cmp('a', 'VALUE', 'EQUAL', 'no')], success: [opPut('x', '1')], failure: [opRange(rq('a')), opDel('zz')] }, { rev: 2, succeeded: false, responses: [rRange(2, [A1]), rDel(2, 0)] }),
      { put: { key: b('b'), value: b('1') }, want: { rev: 3 } },
    ],
  },
  {
    name: 'prev_kv inside a txn',
    steps: [
      ...puts(['a', '1'], ['b', '1']),
      txn(
        { success: [opPut('a', '2', { prevKv: true }), opDel('b', undefined, { prevKv: true }), opPut('c', '1', { prevKv: true })] },
        { rev: 4, succeeded: true, responses: [rPut(4, A1), rDel(4, 1, [kv('b', '1', 3, 3, 1)]), rPut(4)] },
      ),
    ],
  },
]

const NESTED_CASES: readonly Case[] = [
  {
    name: 'nested compares are evaluated before any write of the txn',
    steps: [
      ...puts(['k', 'old']),
      txn(
        { success: [opPut('k', 'new'), opTxn({ compare: [cmp('k', 'VALUE', 'EQUAL', 'old')], success: [opPut('x', '1')], failure: [opPut('y', '1')] })] },
        { rev: 3, succeeded: true, responses: [rPut(3), rTxn(true, [rPut(3)])] },
      ),
      get(rq('k', '\x00'), 3, [kv('k', 'new', 2, 3, 2), kv('x', '1', 3, 3, 1)]),
    ],
  },
  {
    name: 'a nested range sees earlier writes of the txn',
    steps: [
      ...puts(['k', 'old']),
      txn({ success: [opPut('k', 'new'), opTxn({ success: [opRange(rq('k'))] })] }, { rev: 3, succeeded: true, responses: [rPut(3), rTxn(true, [rRange(3, [kv('k', 'new', 2, 3, 2)])])] }),
    ],
  },
  {
    name: 'a nested txn in the failure branch chooses its own branch',
    steps: [
      ...puts(['k', 'v']),
      txn(
        { compare: [cmp('k', 'VERSION', 'EQUAL', 0)], success: [opPut('s', '1')], failure: [opTxn({ compare: [cmp('k', 'VERSION', 'EQUAL', 9)], success: [opPut('a', '1')], failure: [opPut('b', '1')] })] },
        { rev: 3, succeeded: false, responses: [rTxn(false, [rPut(3)])] },
      ),
      get(rq('a', 'c'), 3, [kv('b', '1', 3, 3, 1)]),
    ],
  },
  {
    name: 'sibling nested txns and a doubly nested txn each take their own path',
    steps: [
      ...puts(['k', 'v']),
      txn(
        {
          success: [
            opTxn({ compare: [cmp('k', 'VALUE', 'EQUAL', 'v')], success: [opPut('a', '1')], failure: [opPut('b', '1')] }),
            opTxn({ compare: [cmp('k', 'VALUE', 'EQUAL', 'w')], success: [opPut('c', '1')], failure: [opTxn({ success: [opPut('d', '1')] })] }),
            opRange(rq('a', 'e')),
          ],
        },
        { rev: 3, succeeded: true, responses: [rTxn(true, [rPut(3)]), rTxn(false, [rTxn(true, [rPut(3)])]), rRange(3, [kv('a', '1', 3, 3, 1), kv('d', '1', 3, 3, 1)])] },
      ),
    ],
  },
  {
    name: 'a txn whose nested txns only read takes no revision',
    steps: [...puts(['a', '1']), txn({ success: [opTxn({ success: [opRange(rq('a'))] })] }, { rev: 2, succeeded: true, responses: [rTxn(true, [rRange(2, [A1])])] })],
  },
]

const PRECHECK_CASES: readonly Case[] = [
  {
    name: 'a txn put with an unknown lease fails the whole txn',
    steps: [...puts(['a', '1']), { txn: { success: [opPut('b', '1'), opPut('c', '1', { lease: 5n })] }, err: ERR.leaseNotFound }, get(rq('\x00', '\x00'), 2, [A1])],
  },
  {
    name: 'a txn put with ignore_value on a missing key fails the whole txn',
    steps: [...puts(['a', '1']), { txn: { success: [opPut('b', '1'), { type: 'put', request: { key: b('zz'), ignoreValue: true } }] }, err: ERR.keyNotFound }, get(rq('\x00', '\x00'), 2, [A1])],
  },
  {
    name: 'pre-checks apply only to the branch taken',
    steps: [
      ...puts(['a', '1']),
      txn({ compare: [cmp('a', 'VERSION', 'EQUAL', 9)], success: [opPut('b', '1', { lease: 5n })], failure: [opPut('c', '1')] }, { rev: 3, succeeded: false, responses: [rPut(3)] }),
    ],
  },
  {
    name: 'a pre-check failure in a nested txn fails the whole txn',
    requires: ['nestedTxn'],
    steps: [...puts(['a', '1']), { txn: { success: [opPut('b', '1'), opTxn({ success: [opPut('c', '1', { lease: 5n })] })] }, err: ERR.leaseNotFound }, get(rq('\x00', '\x00'), 2, [A1])],
  },
  {
    name: 'a txn range at a future revision fails (read-only and write txns)',
    steps: [
      ...puts(['a', '1']),
      { txn: { success: [opRange(rq('a', undefined, { revision: 3 }))] }, err: ERR.futureRev },
      { txn: { success: [opPut('b', '1'), opRange(rq('a', undefined, { revision: 3 }))] }, err: ERR.futureRev },
      get(rq('b'), 2, []),
    ],
  },
  {
    name: 'a txn range may not read the revision the txn itself will write',
    steps: [...puts(['a', '1']), { txn: { success: [opPut('b', '1'), opRange(rq('a', undefined, { revision: 3 }))] }, err: ERR.futureRev }],
  },
  {
    name: 'a historical range inside a write txn',
    steps: [
      ...puts(['a', '1'], ['a', '2']),
      txn({ success: [opPut('a', '3'), opRange(rq('a', undefined, { revision: 2 }))] }, { rev: 4, succeeded: true, responses: [rPut(4), rRange(4, [A1])] }),
    ],
  },
  {
    name: 'a txn range at a compacted revision fails; at the compact revision it reads',
    steps: [
      ...puts(['a', '1'], ['a', '2'], ['a', '3']),
      { compact: { revision: 3 } },
      { txn: { success: [opRange(rq('a', undefined, { revision: 2 }))] }, err: ERR.compacted },
      txn({ success: [opRange(rq('a', undefined, { revision: 3 }))] }, { rev: 4, succeeded: true, responses: [rRange(4, [kv('a', '2', 2, 3, 2)])] }),
    ],
  },
]

export const TXN_CASES: readonly Case[] = [
  ...COMPARE_CASES,
  ...BRANCH_CASES,
  ...NESTED_CASES.map((c): Case => ({ ...c, requires: ['nestedTxn'] })),
  ...PRECHECK_CASES,
]
