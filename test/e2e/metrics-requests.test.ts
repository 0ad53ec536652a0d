// etcd's mvcc request counters on /metrics (etcd_mvcc_range_total, _put_total, _delete_total, _txn_total):
// the same requests, sent to etcdlite and to the real etcd, move them by the same amounts, and both show
// the families with the same TYPE and HELP lines. etcd counts every Range, Put and DeleteRange its mvcc
// txns do (a compare is a range, so is reading a put's or delete's previous value) and one txn per mvcc
// txn that did more than one; a write Txn checks its compares in a read txn of its own first. The same
// requests move etcd_server_proposals_* alike (one per write request, whether it changed anything or not);
// the disk histograms have etcd's HELP, TYPE and buckets; and a Watch call cancelled by its client, or
// whose client process was killed, counts once in grpc_server_handled_total as Canceled, as on etcd.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { openEtcd, type Etcd } from '../../src/embed/etcd.js'
import { httpHandler } from '../../src/embed/http.js'
import { GrpcServer } from '../../src/grpc/server.js'
import { serverMetrics } from '../../src/etcdserver/metrics.js'
import { rawClient, type RawClient } from '../helpers/grpc-client.js'
import { haveEtcd, startReferenceEtcd, type ServerProcess } from '../helpers/processes.js'
import { rawWatchClient } from '../helpers/watch-stream.js'
import { settled } from '../helpers/metrics-workload.js'
import { scrape } from '../helpers/metrics-text.js'

const FAMILIES = [
  'etcd_mvcc_range_total', 'etcd_mvcc_put_total', 'etcd_mvcc_delete_total', 'etcd_mvcc_txn_total',
  'etcd_server_proposals_committed_total', 'etcd_server_proposals_applied_total', 'etcd_server_proposals_pending',
  'etcd_server_proposals_failed_total',
] as const

/** The families' values and their # HELP / # TYPE lines. */
function families(text: string): { values: Map<string, number>; meta: string[] } {
  const values = new Map<string, number>()
  const meta: string[] = []
  for (const line of text.split('\n')) {
    const name = FAMILIES.find((f) => line.startsWith(`${f} `) || line.startsWith(`# HELP ${f} `) || line.startsWith(`# TYPE ${f} `))
    if (name === undefined) continue
    if (line.startsWith('#')) meta.push(line)
    else values.set(name, Number(line.slice(name.length + 1)))
  }
  return { values, meta: meta.sort() }
}

const b = (s: string): Buffer => Buffer.from(s)
const put = (key: string, extra: object = {}): object => ({ request_put: { key: b(key), value: b('v'), ...extra } })
const range = (key: string): object => ({ request_range: { key: b(key) } })
const del = (key: string, extra: object = {}): object => ({ request_delete_range: { key: b(key), ...extra } })
const exists = (key: string): object => ({ key: b(key), target: 'CREATE', result: 'GREATER', create_revision: 0 })
const valueIs = (key: string, v: string): object => ({ key: b(key), target: 'VALUE', result: 'EQUAL', value: b(v) })

/** Each step, then how it moves the counters on etcd (checked against the real etcd below). */
const steps: readonly { readonly name: string; readonly send: (c: RawClient) => Promise<unknown> }[] = [
  { name: 'Put', send: (c) => c.kv.Put({ key: b('a'), value: b('1') }) },
  { name: 'Put with prev_kv', send: (c) => c.kv.Put({ key: b('a'), value: b('2'), prev_kv: true }) },
  { name: 'Put with ignore_value', send: (c) => c.kv.Put({ key: b('a'), ignore_value: true }) },
  { name: 'Put another key', send: (c) => c.kv.Put({ key: b('b'), value: b('1') }) },
  { name: 'Range', send: (c) => c.kv.Range({ key: b('a') }) },
  { name: 'Range of every key', send: (c) => c.kv.Range({ key: b('\0'), range_end: b('\0') }) },
  { name: 'DeleteRange', send: (c) => c.kv.DeleteRange({ key: b('b') }) },
  { name: 'DeleteRange of nothing with prev_kv', send: (c) => c.kv.DeleteRange({ key: b('none'), prev_kv: true }) },
  { name: 'empty Txn', send: (c) => c.kv.Txn({}) },
  { name: 'Txn of one compare', send: (c) => c.kv.Txn({ compare: [exists('a')] }) },
  { name: 'read-only Txn', send: (c) => c.kv.Txn({ compare: [exists('a')], success: [range('a'), range('b')] }) },
  { name: 'Txn of one put', send: (c) => c.kv.Txn({ success: [put('c')] }) },
  { name: 'Txn: compare, put and range', send: (c) => c.kv.Txn({ compare: [valueIs('a', '2')], success: [put('c'), range('a')] }) },
  { name: 'Txn taking its failure branch', send: (c) => c.kv.Txn({ compare: [valueIs('a', 'x'), exists('a')], failure: [del('c', { prev_kv: true }), put('e', { prev_kv: true })] }) },
  {
    name: 'nested Txn',
    send: (c) => c.kv.Txn({
      compare: [exists('a')],
      success: [{ request_txn: { compare: [exists('e')], success: [put('d'), { request_txn: { success: [range('d')] } }] } }, range('a')],
    }),
  },
  { name: 'Txn with put ignore_lease', send: (c) => c.kv.Txn({ success: [put('a', { ignore_lease: true, value: b('3') })] }) },
]

interface Target {
  readonly endpoint: string
  close(): Promise<void>
}

async function etcdlite(): Promise<Target> {
  const etcd: Etcd = await openEtcd({ memory: true })
  const g = new GrpcServer(etcd.server, { maxRequestBytes: 1 << 20, report: (err) => assert.fail(String(err)), http: httpHandler(etcd.server, 'client') })
  const { port } = await g.bind('127.0.0.1', 0)
  return {
    endpoint: `127.0.0.1:${port}`,
    close: async () => {
      await g.shutdown()
      await etcd.close()
    },
  }
}

async function reference(): Promise<Target> {
  const p: ServerProcess = await startReferenceEtcd()
  try {
    await settled(p.endpoint)
  } catch (err) {
    await p.dispose()
    throw err
  }
  return { endpoint: p.endpoint, close: () => p.dispose() }
}

const HISTOGRAMS = ['etcd_disk_backend_commit_duration_seconds', 'etcd_disk_wal_fsync_duration_seconds'] as const

/** A histogram's HELP and TYPE lines and the le of its buckets, in order; and its _count. */
function histogram(text: string, name: string): { shape: string[]; count: number } {
  const shape: string[] = []
  let count = NaN
  for (const line of text.split('\n')) {
    if (line.startsWith(`# HELP ${name} `) || line.startsWith(`# TYPE ${name} `)) shape.push(line)
    const le = new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} `).exec(line)
    if (le !== null) shape.push(`le=${le[1]}`)
    if (line.startsWith(`${name}_count `)) count = Number(line.slice(name.length + 7))
  }
  return { shape, count }
}

/**
 * A scrape once every committed proposal has been applied. etcd answers a write as its apply ends but counts
 * it as applied a moment later, in its apply loop, so a scrape right after the answer can miss that count
 * and give it to the next step. Polls for a few seconds at most; the last scrape is returned regardless.
 */
async function appliedScrape(endpoint: string): Promise<string> {
  const deadline = Date.now() + 3000
  for (;;) {
    const text = await scrape(endpoint)
    const { values } = families(text)
    const done = values.get('etcd_server_proposals_applied_total') === values.get('etcd_server_proposals_committed_total') &&
      values.get('etcd_server_proposals_pending') === 0
    if (done || Date.now() > deadline) return text
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** What each step moved, per family, and the families' HELP/TYPE lines. */
async function run(t: Target): Promise<{ moves: Record<string, Record<string, number>>; meta: string[]; text: string }> {
  const c = rawClient(t.endpoint)
  const moves: Record<string, Record<string, number>> = {}
  try {
    let text = await appliedScrape(t.endpoint)
    let last = families(text)
    for (const s of steps) {
      await s.send(c)
      text = await appliedScrape(t.endpoint)
      const now = families(text)
      moves[s.name] = Object.fromEntries(FAMILIES.map((f) => [f, (now.values.get(f) ?? NaN) - (last.values.get(f) ?? NaN)]))
      last = now
    }
    return { moves, meta: last.meta, text }
  } finally {
    c.close()
  }
}

const CANCELED = 'grpc_server_handled_total{grpc_code="Canceled",grpc_method="Watch",grpc_service="etcdserverpb.Watch",grpc_type="bidi_stream"} '

async function watchCanceled(endpoint: string): Promise<number> {
  const line = (await scrape(endpoint)).split('\n').find((l) => l.startsWith(CANCELED))
  return line === undefined ? 0 : Number(line.slice(CANCELED.length))
}

/** Poll until the Watch Canceled count reaches `want` (generous bound), and return it. */
async function canceledReaches(endpoint: string, want: number): Promise<number> {
  const deadline = Date.now() + 10_000
  let n = await watchCanceled(endpoint)
  while (n < want && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50))
    n = await watchCanceled(endpoint)
  }
  return n
}

const WATCHER_SCRIPT = `
import { rawWatchClient } from ${JSON.stringify(new URL('../helpers/watch-stream.js', import.meta.url).href)}
const s = rawWatchClient(process.argv[1]).open()
s.send({ type: 'create', request: { key: Buffer.from('k') } })
await s.next()
console.log('watching')
setInterval(() => undefined, 1000)
`

/** How the Watch Canceled count moves: a client cancelling its Watch call, then a watching process killed. */
async function cancelSteps(endpoint: string): Promise<number[]> {
  const moves: number[] = []
  let base = await watchCanceled(endpoint)
  const wc = rawWatchClient(endpoint)
  try {
    const ws = wc.open()
    ws.send({ type: 'create', request: { key: b('k') } })
    assert.equal((await ws.next()).created, true)
    ws.close()
    const n = await canceledReaches(endpoint, base + 1)
    moves.push(n - base)
    base = n
  } finally {
    wc.close()
  }
  const child = spawn(process.execPath, ['--input-type=module', '-e', WATCHER_SCRIPT, endpoint], { stdio: ['ignore', 'pipe', 'inherit'] })
  try {
    for await (const line of createInterface({ input: child.stdout })) if (line === 'watching') break
  } finally {
    child.kill('SIGKILL')
  }
  const n = await canceledReaches(endpoint, base + 1)
  moves.push(n - base)
  return moves
}

describe('etcd metric families on /metrics: mvcc counters, proposals, disk histograms, Watch Canceled', () => {
  let lite: Target
  before(async () => {
    lite = await etcdlite()
  })
  after(() => lite.close())

  it('count a put, a range, a delete and a multi-op txn', async () => {
    const { moves, meta } = await run(lite)
    assert.equal(meta.length, 16, meta.join('\n'))
    const none = { etcd_server_proposals_pending: 0, etcd_server_proposals_failed_total: 0 }
    const proposal = { etcd_server_proposals_committed_total: 1, etcd_server_proposals_applied_total: 1, ...none }
    assert.deepEqual(moves['Put with prev_kv'], { etcd_mvcc_range_total: 1, etcd_mvcc_put_total: 1, etcd_mvcc_delete_total: 0, etcd_mvcc_txn_total: 1, ...proposal })
    assert.deepEqual(moves['DeleteRange'], { etcd_mvcc_range_total: 0, etcd_mvcc_put_total: 0, etcd_mvcc_delete_total: 1, etcd_mvcc_txn_total: 0, ...proposal })
    assert.deepEqual(moves['Range'], {
      etcd_mvcc_range_total: 1, etcd_mvcc_put_total: 0, etcd_mvcc_delete_total: 0, etcd_mvcc_txn_total: 0,
      etcd_server_proposals_committed_total: 0, etcd_server_proposals_applied_total: 0, ...none,
    })
  })

  it('commit and fsync histograms observe the backend\'s commits', async () => {
    const text = await scrape(lite.endpoint)
    for (const name of HISTOGRAMS) {
      const h = histogram(text, name)
      assert.equal(h.shape.length, 2 + 15, h.shape.join('\n'))
      assert.ok(h.count > 0, name)
    }
  })

  it('a Watch call its client cancelled, or whose client died, is handled with Canceled', async () => {
    const e = await etcdlite()
    try {
      assert.deepEqual(await cancelSteps(e.endpoint), [1, 1])
      // Counted once each, under no other code, however the call's end came about.
      await new Promise((r) => setTimeout(r, 1500))
      const handled = (await scrape(e.endpoint)).split('\n')
        .filter((l) => l.startsWith('grpc_server_handled_total{') && l.includes('grpc_method="Watch"') && !l.endsWith(' 0'))
      assert.deepEqual(handled, [`${CANCELED}2`])
    } finally {
      await e.close()
    }
  })

  it('Watch Canceled moves as on the real etcd 3.4', { skip: !haveEtcd() }, async () => {
    const ref = await reference()
    try {
      assert.deepEqual(await cancelSteps(ref.endpoint), [1, 1])
    } finally {
      await ref.close()
    }
  })

  it('mvcc counters and proposals move as on the real etcd 3.4, with the same HELP and TYPE; histograms alike', { skip: !haveEtcd() }, async () => {
    const ref = await reference()
    try {
      const want = await run(ref)
      const l2 = await etcdlite()
      try {
        const got = await run(l2)
        assert.deepEqual(got.meta, want.meta)
        const differ = steps.filter((s) => JSON.stringify(got.moves[s.name]) !== JSON.stringify(want.moves[s.name])).map((s) => s.name)
        assert.deepEqual(differ, [])
        for (const s of steps) assert.deepEqual(got.moves[s.name], want.moves[s.name], s.name)
        for (const name of HISTOGRAMS) {
          assert.deepEqual(histogram(got.text, name).shape, histogram(want.text, name).shape, name)
          assert.ok(histogram(want.text, name).count > 0 && histogram(got.text, name).count > 0, name)
        }
      } finally {
        await l2.close()
      }
    } finally {
      await ref.close()
    }
  })
})

/** The apply histogram's series counts: `op success version` -> count. */
function applyCounts(text: string): Record<string, number> {
  const out: Record<string, number> = {}
  for (const m of text.matchAll(/^etcd_server_apply_duration_seconds_count\{op="([^"]*)",success="([^"]*)",version="([^"]*)"\} (\S+)$/gm)) {
    out[`${m[1]} ${m[2]} ${m[3]}`] = Number(m[4])
  }
  return out
}

describe('etcd_server_apply_duration_seconds (etcd 3.5): one observation per apply, by op and success', () => {
  it('counts the start, writes, and compactions that succeed, are compacted (a success to etcd) or fail', async () => {
    const t = await etcdlite()
    const c = rawClient(t.endpoint)
    try {
      // A start publishes the member and sets the cluster version through etcd's v2 applier.
      assert.deepEqual(applyCounts(await scrape(t.endpoint)), { 'PUT true v2': 2 })
      await c.kv.Put({ key: b('a'), value: b('1') })
      await c.kv.Put({ key: b('a'), value: b('2') })
      await c.kv.DeleteRange({ key: b('none') })
      await c.kv.Range({ key: b('a') })
      await c.kv.Txn({ success: [put('t')] })
      await c.kv.Txn({ success: [range('t')] })
      await c.kv.Compact({ revision: 2 })
      await assert.rejects(c.kv.Compact({ revision: 2 }))
      await assert.rejects(c.kv.Compact({ revision: 100 }))
      const text = await scrape(t.endpoint)
      // Reads (the Range, the read-only Txn) are not applied.
      assert.deepEqual(applyCounts(text), {
        'PUT true v2': 2, 'Put true v3': 2, 'DeleteRange true v3': 1, 'Txn true v3': 1, 'Compaction true v3': 2, 'Compaction false v3': 1,
      })
      const les = [...text.matchAll(/^etcd_server_apply_duration_seconds_bucket\{op="Put",success="true",version="v3",le="([^"]+)"\}/gm)].map((m) => m[1])
      // prometheus.ExponentialBuckets(0.0001, 2, 20) as Go prints them.
      const want = '0.0001 0.0002 0.0004 0.0008 0.0016 0.0032 0.0064 0.0128 0.0256 0.0512 0.1024 0.2048 0.4096 0.8192 1.6384 3.2768 6.5536 13.1072 26.2144 52.4288 +Inf'
      assert.equal(les.join(' '), want)
    } finally {
      c.close()
      await t.close()
    }
  })

  it('is not shown while the server reports etcd 3.4, which has no such family', async () => {
    const etcd = await openEtcd({ memory: true, etcdVersion: '3.4.23' })
    try {
      await etcd.put({ key: 'a', value: '1' })
      assert.doesNotMatch(await serverMetrics(etcd.server).metrics(), /etcd_server_apply_duration_seconds/)
    } finally {
      await etcd.close()
    }
  })
})
