// Range cases: keys and ranges, "\0" forms, limit/more/count, revisions, sort, filters, flags.
// Expectations follow etcd 3.4 etcdserver/apply.go (applierV3backend.Range) and mvcc rangeKeys.
import type { RangeRequest, RangeResponse, SortOrder, SortTarget } from '../../../src/etcdserver/types/kv.js'
import { b, ERR, kv, puts, type Case, type Step, type View, type Want } from '../harness/case.js'
import type { KeyValue } from '../../../src/etcdserver/types/kv.js'

/** A RangeRequest over [key, rangeEnd) with extra options. */
export const rq = (key: string, rangeEnd?: string, o: Omit<RangeRequest, 'key' | 'rangeEnd'> = {}): RangeRequest =>
  rangeEnd === undefined ? { ...o, key: b(key) } : { ...o, key: b(key), rangeEnd: b(rangeEnd) }

/** A range step and the exact response it must return. */
export const get = (req: RangeRequest, rev: number, kvs: View<KeyValue>[], count = kvs.length, more = false): Step =>
  ({ range: req, want: { rev, kvs, more, count } satisfies Want<RangeResponse> })

// Seed 1: five keys, one put each, revisions 2..6.
const SEED = puts(['a', '1'], ['ab', '2'], ['abc', '3'], ['b', '4'], ['c', '5'])
const A = kv('a', '1', 2, 2, 1)
const AB = kv('ab', '2', 3, 3, 1)
const ABC = kv('abc', '3', 4, 4, 1)
const B = kv('b', '4', 5, 5, 1)
const C = kv('c', '5', 6, 6, 1)
const ALL = [A, AB, ABC, B, C]

interface RangeRow {
  readonly name: string
  readonly req: RangeRequest
  readonly kvs?: View<KeyValue>[]
  readonly count?: number
  readonly more?: boolean
  readonly err?: (typeof ERR)[keyof typeof ERR]
}

const SEED1_ROWS: readonly RangeRow[] = [
  { name: 'single key returns only that key', req: rq('ab'), kvs: [AB] },
  { name: 'missing single key returns nothing', req: rq('zz'), kvs: [] },
  { name: '[key, range_end) is half-open', req: rq('a', 'b'), kvs: [A, AB, ABC] },
  { name: 'a range spans prefixes in byte order', req: rq('ab', 'c'), kvs: [AB, ABC, B] },
  { name: 'prefix range (range_end = prefix + 1)', req: rq('ab', 'ac'), kvs: [AB, ABC] },
  { name: 'range_end "\\0" reads every key >= key', req: rq('ab', '\x00'), kvs: [AB, ABC, B, C] },
  { name: 'key "\\0" with range_end "\\0" reads every key', req: rq('\x00', '\x00'), kvs: ALL },
  { name: 'key "\\0" without range_end is the single key "\\0"', req: rq('\x00'), kvs: [] },
  { name: 'an empty range_end is the single key', req: rq('ab', ''), kvs: [AB] },
  { name: 'range_end equal to key matches nothing', req: rq('ab', 'ab'), kvs: [] },
  { name: 'range_end before key matches nothing', req: rq('c', 'a'), kvs: [] },
  { name: 'limit truncates, sets more, and count counts every match', req: rq('\x00', '\x00', { limit: 2 }), kvs: [A, AB], count: 5, more: true },
  { name: 'limit equal to the match count sets no more', req: rq('\x00', '\x00', { limit: 5 }), kvs: ALL },
  { name: 'limit above the match count sets no more', req: rq('\x00', '\x00', { limit: 10 }), kvs: ALL },
  { name: 'limit on a prefix counts the prefix only', req: rq('a', 'b', { limit: 1 }), kvs: [A], count: 3, more: true },
  { name: 'negative limit means no limit', req: rq('a', 'b', { limit: -1 }), kvs: [A, AB, ABC] },
  { name: 'count_only returns the count and no kvs', req: rq('\x00', '\x00', { countOnly: true }), kvs: [], count: 5 },
  { name: 'count_only ignores limit and never sets more', req: rq('\x00', '\x00', { countOnly: true, limit: 2 }), kvs: [], count: 5 },
  { name: 'count_only wins over keys_only', req: rq('\x00', '\x00', { countOnly: true, keysOnly: true }), kvs: [], count: 5 },
  { name: 'keys_only returns empty values', req: rq('a', 'b', { keysOnly: true }), kvs: [A, AB, ABC].map((x) => ({ ...x, value: '' })) },
  { name: 'keys_only with limit', req: rq('a', 'b', { keysOnly: true, limit: 1 }), kvs: [{ ...A, value: '' }], count: 3, more: true },
  { name: 'serializable read returns the same data', req: rq('\x00', '\x00', { serializable: true }), kvs: ALL },
  { name: 'revision 0 reads the current revision', req: rq('a', 'b', { revision: 0 }), kvs: [A, AB, ABC] },
  { name: 'negative revision reads the current revision', req: rq('a', 'b', { revision: -1 }), kvs: [A, AB, ABC] },
  { name: 'revision equal to the current revision', req: rq('\x00', '\x00', { revision: 6 }), kvs: ALL },
  { name: 'historical revision sees only older writes (header stays current)', req: rq('\x00', '\x00', { revision: 3 }), kvs: [A, AB] },
  { name: 'historical revision with limit', req: rq('\x00', '\x00', { revision: 4, limit: 1 }), kvs: [A], count: 3, more: true },
  { name: 'count_only at a historical revision counts the keys of then', req: rq('\x00', '\x00', { revision: 4, countOnly: true }), kvs: [], count: 3 },
  { name: 'keys_only at a historical revision', req: rq('a', 'b', { revision: 3, keysOnly: true }), kvs: [A, AB].map((x) => ({ ...x, value: '' })) },
  { name: 'revision 1 of a store is empty', req: rq('\x00', '\x00', { revision: 1 }), kvs: [] },
  { name: 'revision above the current one is a future revision', req: rq('a', undefined, { revision: 7 }), err: ERR.futureRev },
  { name: 'empty key is refused', req: rq(''), err: ERR.emptyKey },
  // Reads do not go through raft in etcd, so --max-request-bytes does not apply to them.
  { name: 'a range request over 1.5 MiB is served', req: { key: new Uint8Array(1.6 * 1024 * 1024).fill(0x61) }, kvs: [] },
  { name: 'empty key with a range_end is refused', req: rq('', 'b'), err: ERR.emptyKey },
]

// Seed 2: three keys whose KEY, CREATE, VERSION, MOD and VALUE orders all differ (no ties):
//   a: create 3, mod 6, version 3, value '1'
//   b: create 4, mod 4, version 1, value '3'
//   c: create 2, mod 7, version 2, value '2'
const SEED2 = puts(['c', 'x'], ['a', 'x'], ['b', '3'], ['a', 'x'], ['a', '1'], ['c', '2'])
const A2 = kv('a', '1', 3, 6, 3)
const B2 = kv('b', '3', 4, 4, 1)
const C2 = kv('c', '2', 2, 7, 2)
const ASCENDING: Readonly<Record<SortTarget, View<KeyValue>[]>> = {
  KEY: [A2, B2, C2],
  VERSION: [B2, C2, A2],
  CREATE: [C2, A2, B2],
  MOD: [B2, A2, C2],
  VALUE: [A2, C2, B2],
}

function sorted(order: SortOrder, target: SortTarget): View<KeyValue>[] {
  const asc = ASCENDING[target]
  if (order === 'DESCEND') return [...asc].reverse()
  // NONE keeps mvcc's key order (= ascending KEY); any other target with NONE sorts ascending (apply.go).
  return asc
}

const SORT_ROWS: RangeRow[] = []
for (const order of ['NONE', 'ASCEND', 'DESCEND'] as const) {
  for (const target of ['KEY', 'VERSION', 'CREATE', 'MOD', 'VALUE'] as const) {
    const note = order === 'NONE' && target !== 'KEY' ? ' (defaults to ascend)' : ''
    SORT_ROWS.push({ name: `sort ${order} by ${target}${note}`, req: rq('\x00', '\x00', { sortOrder: order, sortTarget: target }), kvs: sorted(order, target) })
  }
}

const SEED2_ROWS: readonly RangeRow[] = [
  ...SORT_ROWS,
  { name: 'sort then limit: more set, count unchanged', req: rq('\x00', '\x00', { sortOrder: 'DESCEND', sortTarget: 'VALUE', limit: 2 }), kvs: [B2, C2], count: 3, more: true },
  { name: 'sort uses values even with keys_only', req: rq('\x00', '\x00', { sortOrder: 'ASCEND', sortTarget: 'VALUE', keysOnly: true }), kvs: [A2, C2, B2].map((x) => ({ ...x, value: '' })) },
  { name: 'min_mod_revision filters kvs but not count', req: rq('\x00', '\x00', { minModRevision: 5 }), kvs: [A2, C2], count: 3 },
  { name: 'max_mod_revision filters kvs but not count', req: rq('\x00', '\x00', { maxModRevision: 6 }), kvs: [A2, B2], count: 3 },
  { name: 'min_create_revision filters kvs but not count', req: rq('\x00', '\x00', { minCreateRevision: 3 }), kvs: [A2, B2], count: 3 },
  { name: 'max_create_revision filters kvs but not count', req: rq('\x00', '\x00', { maxCreateRevision: 3 }), kvs: [A2, C2], count: 3 },
  { name: 'min and max mod_revision together', req: rq('\x00', '\x00', { minModRevision: 5, maxModRevision: 6 }), kvs: [A2], count: 3 },
  { name: 'a filter that drops everything keeps count', req: rq('\x00', '\x00', { minModRevision: 8 }), kvs: [], count: 3 },
  { name: 'filter then limit sets more', req: rq('\x00', '\x00', { minCreateRevision: 3, limit: 1 }), kvs: [A2], count: 3, more: true },
  { name: 'filter then sort', req: rq('\x00', '\x00', { maxCreateRevision: 3, sortOrder: 'DESCEND', sortTarget: 'MOD' }), kvs: [C2, A2], count: 3 },
  {
    name: 'filters apply to a historical revision',
    req: rq('\x00', '\x00', { revision: 5, maxCreateRevision: 3 }),
    kvs: [kv('a', 'x', 3, 5, 2), kv('c', 'x', 2, 2, 1)],
    count: 3,
  },
]

function rowCase(seed: readonly Step[], rev: number, r: RangeRow): Case {
  const last: Step = r.err !== undefined ? { range: r.req, err: r.err } : get(r.req, rev, r.kvs ?? [], r.count, r.more)
  return { name: r.name, steps: [...seed, last] }
}

// A key through two generations: put@2, put@3, delete@4, put@5 (and another key @6).
const HISTORY: Case = {
  name: 'historical reads follow generations: version resets after a delete',
  steps: [
    ...puts(['k', 'v1'], ['k', 'v2']),
    { deleteRange: { key: b('k') } },
    ...puts(['k', 'v3'], ['other', 'x']),
    get(rq('k', undefined, { revision: 1 }), 6, []),
    get(rq('k', undefined, { revision: 2 }), 6, [kv('k', 'v1', 2, 2, 1)]),
    get(rq('k', undefined, { revision: 3 }), 6, [kv('k', 'v2', 2, 3, 2)]),
    get(rq('k', undefined, { revision: 4 }), 6, []),
    get(rq('k', undefined, { revision: 5 }), 6, [kv('k', 'v3', 5, 5, 1)]),
    get(rq('k'), 6, [kv('k', 'v3', 5, 5, 1)]),
  ],
}

export const KV_CASES: readonly Case[] = [
  { name: 'a fresh store is empty at revision 1', steps: [get(rq('\x00', '\x00'), 1, [])] },
  ...SEED1_ROWS.map((r) => rowCase(SEED, 6, r)),
  ...SEED2_ROWS.map((r) => rowCase(SEED2, 7, r)),
  HISTORY,
]
