// Property tests: random op sequences applied to the embedded API and to the naive model (model.ts) must
// give the same answers, errors included (as codes: a valid request never throws anything but a coded
// EtcdError). A disk-backed run also closes and reopens the store and checks that everything survives.
//
// Replay a failure with the seed and path fast-check prints: PROP_SEED=<seed> PROP_PATH=<path>.
// PROP_SCALE=<factor> multiplies the number of runs (for a longer local hunt).
import './enable-verify.js'
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { openEtcd, type Etcd } from '../../src/embed/etcd.js'
import { isEtcdError } from '../../src/pkg/errors.js'
import type {
  DeleteRangeResponse, KeyValue, PutResponse, RangeResponse, ResponseOp, TxnResponse,
} from '../../src/etcdserver/types/kv.js'
import { tempDir } from '../helpers/tmp.js'
import { KvModel, ModelError } from './model.js'
import { genOp, type KvOp } from './ops.js'

const show = (v: Uint8Array): string => {
  let s = ''
  for (const c of v) s += c >= 0x20 && c < 0x7f && c !== 0x5c ? String.fromCharCode(c) : `\\x${c.toString(16).padStart(2, '0')}`
  return s
}

const normKv = (kv: KeyValue | undefined): unknown =>
  kv === undefined
    ? null
    : { key: show(kv.key), create: kv.createRevision, mod: kv.modRevision, version: kv.version, value: show(kv.value), lease: kv.lease.toString() }

const normRange = (r: RangeResponse): unknown => ({ rev: r.header.revision, kvs: r.kvs.map(normKv), more: r.more, count: r.count })
const normPut = (r: PutResponse): unknown => ({ rev: r.header.revision, prevKv: normKv(r.prevKv) })
const normDelete = (r: DeleteRangeResponse): unknown => ({ rev: r.header.revision, deleted: r.deleted, prevKvs: r.prevKvs.map(normKv) })
const normOp = (op: ResponseOp): unknown => {
  switch (op.type) {
    case 'range': return { range: normRange(op.response) }
    case 'put': return { put: normPut(op.response) }
    case 'deleteRange': return { deleteRange: normDelete(op.response) }
    case 'txn': return { txn: normTxn(op.response) }
    case 'empty': return { empty: true }
  }
}
const normTxn = (r: TxnResponse): unknown => ({ rev: r.header.revision, succeeded: r.succeeded, responses: r.responses.map(normOp) })

function normError(e: unknown): unknown {
  if (e instanceof ModelError) return { error: e.code }
  if (isEtcdError(e)) return { error: e.code }
  // Anything else (TypeError, InvariantError, …) is a bug: keep it distinct so the comparison fails.
  return { unexpected: e instanceof Error ? `${e.name}: ${e.message}` : String(e) }
}

async function settle(f: () => unknown): Promise<unknown> {
  try {
    return await f()
  } catch (e) {
    return normError(e)
  }
}

/** Apply one op to the store and to the model; return both normalized answers. */
async function apply(etcd: Etcd, model: KvModel, op: KvOp): Promise<{ ours: unknown; want: unknown }> {
  switch (op.kind) {
    case 'range':
      return { ours: await settle(async () => normRange(await etcd.range(op.req))), want: await settle(() => normRange(model.range(op.req))) }
    case 'put':
      return { ours: await settle(async () => normPut(await etcd.put(op.req))), want: await settle(() => normPut(model.put(op.req))) }
    case 'deleteRange':
      return { ours: await settle(async () => normDelete(await etcd.deleteRange(op.req))), want: await settle(() => normDelete(model.deleteRange(op.req))) }
    case 'txn':
      return { ours: await settle(async () => normTxn(await etcd.txn(op.req))), want: await settle(() => normTxn(model.txn(op.req))) }
    case 'compact':
      return {
        ours: await settle(async () => ({ rev: (await etcd.compact(op.req)).header.revision })),
        want: await settle(() => ({ rev: model.compact(op.req).header.revision })),
      }
  }
}

const FROM_KEY = new Uint8Array([0])

/** Revision, compacted revision and the full contents at every readable revision must match the model. */
async function checkState(etcd: Etcd, model: KvModel, where: string): Promise<void> {
  const all = { key: FROM_KEY, rangeEnd: FROM_KEY }
  const now = await etcd.range(all)
  assert.equal(now.header.revision, model.rev(), `${where}: current revision`)
  const compactRev = model.compactRev()
  assert.equal(etcd.server.kv.compactRev(), compactRev, `${where}: compacted revision`)
  if (compactRev > 1) {
    await assert.rejects(etcd.range({ ...all, revision: compactRev - 1 }), { code: 'COMPACTED' }, `${where}: below the compacted revision ${compactRev}`)
  }
  for (let rev = Math.max(1, compactRev); rev <= model.rev(); rev++) {
    const ours = normRange(await etcd.range({ ...all, revision: rev }))
    const want = normRange(model.range({ ...all, revision: rev }))
    assert.deepStrictEqual(ours, want, `${where}: contents at revision ${rev}`)
  }
  await assert.rejects(etcd.range({ ...all, revision: model.rev() + 1 }), { code: 'FUTURE_REV' }, `${where}: future revision`)
}

function describeOp(op: KvOp): string {
  return JSON.stringify(op, (_k, v: unknown) => (v instanceof Uint8Array ? show(v) : typeof v === 'bigint' ? v.toString() : v))
}

async function run(etcd: Etcd, model: KvModel, seeds: readonly number[], from: number): Promise<void> {
  for (let i = 0; i < seeds.length; i++) {
    const op = genOp(seeds[i] as number, { rev: model.rev(), compactRev: model.compactRev() })
    const { ours, want } = await apply(etcd, model, op)
    assert.deepStrictEqual(ours, want, `op #${from + i}: ${describeOp(op)}`)
  }
}

function fcParams<Ts>(numRuns: number): fc.Parameters<Ts> {
  const seed = process.env['PROP_SEED']
  const path = process.env['PROP_PATH']
  const scale = Number(process.env['PROP_SCALE'] ?? 1)
  return { numRuns: Math.max(1, Math.round(numRuns * scale)), ...(seed !== undefined ? { seed: Number(seed) } : {}), ...(path !== undefined ? { path } : {}), endOnFailure: false, includeErrorInReport: true }
}

const opSeeds = (maxLength: number): fc.Arbitrary<number[]> => fc.array(fc.integer({ min: 0, max: 0xffffffff }), { minLength: 1, maxLength, size: 'max' })

describe('KV property: embedded API vs model', () => {
  it('random op sequences on an in-memory store answer as the model does', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(opSeeds(150), async (seeds) => {
        const etcd = await openEtcd({ memory: true })
        try {
          const model = new KvModel()
          await run(etcd, model, seeds, 0)
          await checkState(etcd, model, 'end of run')
        } finally {
          await etcd.close()
        }
      }),
      fcParams<[number[]]>(300),
    )
  })

  it('a disk-backed store keeps revision, compaction and every readable revision across close and reopen', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(opSeeds(80), fc.integer({ min: 0, max: 100 }), async (seeds, cutPercent) => {
        const dir = await tempDir('etcdlite-prop-')
        const model = new KvModel()
        const cut = Math.floor((seeds.length * cutPercent) / 100)
        let etcd: Etcd | undefined
        try {
          etcd = await openEtcd({ dataDir: dir.path })
          await run(etcd, model, seeds.slice(0, cut), 0)
          await etcd.close()
          etcd = await openEtcd({ dataDir: dir.path })
          await checkState(etcd, model, `after reopen at op #${cut}`)
          await run(etcd, model, seeds.slice(cut), cut)
          await etcd.close()
          etcd = await openEtcd({ dataDir: dir.path })
          await checkState(etcd, model, 'after the final reopen')
        } finally {
          await etcd?.close()
          await dir.remove()
        }
      }),
      fcParams<[number[], number]>(60),
    )
  })
})
