// etcdctl (3.4) maintenance and cluster commands against the real etcd and the etcdlite CLI, in the same
// order on two fresh servers: member list, endpoint status/health/hashkv, move-leader, member changes,
// defrag, snapshot save (and etcdlite started from the snapshot), and the NOSPACE alarm with a small
// --quota-backend-bytes. Outputs must match once each server's own identity is replaced by placeholders
// (endpoint, member and cluster IDs) and the figures that differ by design are blanked (db size, raft
// index, took; after the quota fill, revisions and counts, since each server takes a different number of
// writes before it is full).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { stat } from 'node:fs/promises'
import { join } from 'node:path'
import * as grpc from '@grpc/grpc-js'
import { loadEtcdProto } from '../../src/grpc/proto.js'
import { unary } from '../helpers/grpc-client.js'
import { haveEtcd, haveEtcdctl, startEtcdliteProcess, startReferenceEtcd, type ServerProcess } from '../helpers/processes.js'
import { tempDir } from '../helpers/tmp.js'
import { etcdctl, stderrLines, type CtlResult } from '../helpers/etcdctl.js'

const skip = !haveEtcdctl() ? 'etcdctl is not on PATH' : !haveEtcd() ? 'the reference `etcd` binary is not on PATH' : false

/** One server under test and what identifies it in etcdctl's output. */
interface Side {
  readonly name: 'etcd' | 'etcdlite'
  readonly proc: ServerProcess
  memberId: bigint
  clusterId: bigint
  /** Snapshot file this side saves to. */
  snapshot: string
  /** The revision to compact at after the quota fill (each side's own). */
  compactTo?: number
}

/** Stand-ins for a side's member and cluster IDs: numbers, so JSON output still parses. */
const MID = '1000001'
const CID = '1000002'

/** Replace a side's identity by placeholders (before JSON parsing: IDs exceed 2^53). */
function deidentify(s: string, side: Side): string {
  return s
    .split(side.proc.endpoint).join('<EP>')
    .split(side.memberId.toString()).join(MID)
    .split(side.memberId.toString(16)).join('<MIDHEX>')
    .split(side.clusterId.toString()).join(CID)
    .split(side.snapshot).join('<SNAPSHOT>')
    .replace(/took = \S+/g, 'took = <took>')
}

/** Figures that differ between the two servers by design. */
const VARYING_JSON = ['dbSize', 'dbSizeInUse', 'raftIndex', 'raftAppliedIndex', 'took']

function blankJson(v: unknown, keys: readonly string[]): unknown {
  if (Array.isArray(v)) return v.map((x) => blankJson(x, keys))
  if (typeof v === 'object' && v !== null) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, keys.includes(k) ? '<varies>' : blankJson(x, keys)]))
  }
  return v
}

interface Norm {
  /** Also blank revisions and any other number (after the quota fill the servers hold different histories). */
  readonly numbers?: boolean
}

function normStdout(raw: string, side: Side, n: Norm): unknown {
  let s = deidentify(raw, side)
    // endpoint status table: ENDPOINT, ID, VERSION, DB SIZE, IS LEADER, IS LEARNER, TERM, INDEX, APPLIED, ERRORS
    .replace(/^(<EP>, <MIDHEX>, [^,]+), [^,]+, (true|false), (true|false), (\d+), \d+, \d+, /gm, '$1, <size>, $2, $3, $4, <index>, <index>, ')
  if (n.numbers === true) s = s.replace(/^(compacted revision )?\d+$/gm, '$1<n>')
  const t = s.trim()
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      return blankJson(JSON.parse(t), n.numbers === true ? [...VARYING_JSON, 'revision'] : VARYING_JSON)
    } catch {
      return t
    }
  }
  return s
}

function normStderr(raw: string, side: Side): unknown[] {
  return stderrLines(deidentify(raw, side))
}

const norm = (r: CtlResult, side: Side, n: Norm): unknown => ({ code: r.code, stdout: normStdout(r.stdout, side, n), stderr: normStderr(r.stderr, side) })

interface Case extends Norm {
  readonly name: string
  /** etcdctl arguments; a function when they name the side's own IDs or files. */
  readonly args: readonly string[] | ((s: Side) => readonly string[])
  readonly stdin?: string
  readonly fails?: boolean
}

const QUOTA = 200_000
const BIG = new Uint8Array(20_000).fill(0x61)

/** Status over raw gRPC (exact IDs and revision). */
async function status(endpoint: string): Promise<{ memberId: bigint; clusterId: bigint; revision: number }> {
  const proto = loadEtcdProto()
  const client = new proto.etcdserverpb.Maintenance(endpoint, grpc.credentials.createInsecure())
  try {
    const r = (await unary(client, 'Status')({})) as { header: { member_id: string; cluster_id: string; revision: string } }
    return { memberId: BigInt(r.header.member_id), clusterId: BigInt(r.header.cluster_id), revision: Number(r.header.revision) }
  } finally {
    client.close()
  }
}

/** Put BIG values until the server refuses; returns how many it took and the refusal. */
async function fillUntilNoSpace(endpoint: string): Promise<{ puts: number; err: grpc.ServiceError }> {
  const proto = loadEtcdProto()
  const client = new proto.etcdserverpb.KV(endpoint, grpc.credentials.createInsecure())
  const put = unary(client, 'Put')
  try {
    for (let i = 0; i < 100; i++) {
      try {
        await put({ key: Buffer.from(`fill/${i}`), value: BIG })
      } catch (err) {
        return { puts: i, err: err as grpc.ServiceError }
      }
    }
    throw new Error('the quota never filled')
  } finally {
    client.close()
  }
}

describe('etcdctl maintenance and cluster commands: etcdlite answers as etcd does', { skip }, () => {
  let dir: Awaited<ReturnType<typeof tempDir>> | undefined
  let sides: Side[] = []

  before(async () => {
    dir = await tempDir('etcdctl-maint-')
    const zero = 'http://127.0.0.1:0'
    // etcdlite introduces itself as the reference does (name, advertised URLs, version), so tables match.
    const [ref, ours] = await Promise.all([
      startReferenceEtcd(['--quota-backend-bytes', String(QUOTA)]),
      startEtcdliteProcess({
        args: ['--name', 'ref', '--initial-advertise-peer-urls', zero, '--advertise-client-urls', zero,
          '--etcd-version', '3.4.23', '--quota-backend-bytes', String(QUOTA)],
      }),
    ])
    const d = dir.path
    sides = await Promise.all(
      ([['etcd', ref], ['etcdlite', ours]] as const).map(async ([name, p]) => {
        const s = await status(p.endpoint)
        return { name, proc: p, memberId: s.memberId, clusterId: s.clusterId, snapshot: join(d, `${name}.db`) }
      }),
    )
  })

  after(async () => {
    await Promise.all(sides.map((s) => s.proc.dispose()))
    await dir?.remove()
  })

  /** Run a case on both servers at once; etcd's answer must have the expected outcome and etcdlite's match it. */
  async function compare(c: Case): Promise<void> {
    const [ref, ours] = sides
    if (ref === undefined || ours === undefined) throw new Error('servers did not start')
    const argsOf = (s: Side): readonly string[] => (typeof c.args === 'function' ? c.args(s) : c.args)
    const [want, got] = await Promise.all([etcdctl(ref.proc.endpoint, argsOf(ref), c.stdin), etcdctl(ours.proc.endpoint, argsOf(ours), c.stdin)])
    assert.equal(want.code !== 0, c.fails === true, `etcd itself: expected ${c.fails === true ? 'a failure' : 'success'}: ${want.stderr}`)
    assert.deepStrictEqual(norm(got, ours, c), norm(want, ref, c), `etcdctl ${argsOf(ours).join(' ')}`)
  }

  const identity: Case[] = [
    { name: 'member list', args: ['member', 'list'] },
    { name: 'member list -w json', args: ['member', 'list', '-w', 'json'] },
    { name: 'endpoint status', args: ['endpoint', 'status'] },
    { name: 'endpoint status -w json', args: ['endpoint', 'status', '-w', 'json'] },
    { name: 'endpoint health', args: ['endpoint', 'health'] },
    { name: 'endpoint health -w json', args: ['endpoint', 'health', '-w', 'json'] },
    { name: 'alarm list with no alarm', args: ['alarm', 'list'] },
    { name: 'alarm list -w json with no alarm', args: ['alarm', 'list', '-w', 'json'] },
    { name: 'move-leader to itself', args: (s) => ['move-leader', s.memberId.toString(16)] },
    { name: 'move-leader to an unknown member', args: ['move-leader', '1234'], fails: true },
    { name: 'member remove of an unknown member', args: ['member', 'remove', '1234'], fails: true },
    { name: 'member update of an unknown member', args: ['member', 'update', '1234', '--peer-urls=http://127.0.0.1:1'], fails: true },
    { name: 'member promote of an unknown member', args: ['member', 'promote', '1234'], fails: true },
    { name: 'member promote of a voting member', args: (s) => ['member', 'promote', s.memberId.toString(16)], fails: true },
  ]
  for (const c of identity) it(c.name, () => compare(c))

  it('leader is this member in endpoint status', async () => {
    for (const s of sides) {
      const r = await etcdctl(s.proc.endpoint, ['endpoint', 'status', '-w', 'json'])
      assert.match(deidentify(r.stdout, s), new RegExp(`"leader":${MID},`), s.name)
    }
  })

  it('refuses membership changes that would leave one member (etcdlite only: etcd would break its quorum)', async () => {
    const ours = sides[1] as Side
    const cases = [
      { args: ['member', 'add', 'two', '--peer-urls=http://127.0.0.1:2'], error: 'etcdlite is a single-member server' },
      { args: ['member', 'remove', ours.memberId.toString(16)], error: 'etcdlite is a single-member server' },
    ]
    for (const c of cases) {
      const r = await etcdctl(ours.proc.endpoint, c.args)
      assert.notEqual(r.code, 0, c.args.join(' '))
      assert.ok(r.stderr.includes(c.error), r.stderr)
    }
  })

  it('raw gRPC: the same statuses and the same header-less responses', async () => {
    const proto = loadEtcdProto()
    const calls: Array<{ name: string; service: 'Cluster' | 'Maintenance'; method: string; req: object }> = [
      { name: 'MemberAdd with a URL of another scheme', service: 'Cluster', method: 'MemberAdd', req: { peerURLs: ['ftp://127.0.0.1:1'] } },
      { name: 'MemberAdd with a path in the URL', service: 'Cluster', method: 'MemberAdd', req: { peerURLs: ['http://127.0.0.1:1/x'] } },
      { name: 'MemberAdd without URLs', service: 'Cluster', method: 'MemberAdd', req: { peerURLs: [] } },
      { name: 'MemberRemove of an unknown ID', service: 'Cluster', method: 'MemberRemove', req: { ID: '1234' } },
      { name: 'MemberUpdate of an unknown ID', service: 'Cluster', method: 'MemberUpdate', req: { ID: '1234', peerURLs: ['http://127.0.0.1:1'] } },
      { name: 'MemberPromote of an unknown ID', service: 'Cluster', method: 'MemberPromote', req: { ID: '1234' } },
      { name: 'MoveLeader to an unknown ID', service: 'Maintenance', method: 'MoveLeader', req: { targetID: '1234' } },
      { name: 'Alarm GET', service: 'Maintenance', method: 'Alarm', req: { action: 'GET' } },
      { name: 'Alarm DEACTIVATE of an alarm not raised', service: 'Maintenance', method: 'Alarm', req: { action: 'DEACTIVATE', memberID: '7', alarm: 'NOSPACE' } },
      { name: 'Defragment', service: 'Maintenance', method: 'Defragment', req: {} },
    ]
    const answer = async (endpoint: string, c: (typeof calls)[number]): Promise<unknown> => {
      const client = new proto.etcdserverpb[c.service](endpoint, grpc.credentials.createInsecure())
      try {
        return { ok: await unary(client, c.method)(c.req) }
      } catch (err) {
        const e = err as grpc.ServiceError
        return { code: e.code, details: e.details }
      } finally {
        client.close()
      }
    }
    for (const c of calls) {
      const [want, got] = await Promise.all(sides.map((s) => answer(s.proc.endpoint, c)))
      assert.deepStrictEqual(got, want, c.name)
    }
  })

  const history: Case[] = [
    { name: 'put a', args: ['put', 'a', '1'] },
    { name: 'put b', args: ['put', 'b', '2'] },
    { name: 'del a', args: ['del', 'a'] },
    { name: 'endpoint hashkv -w json (same history, same hash)', args: ['endpoint', 'hashkv', '-w', 'json'] },
    { name: 'put a again', args: ['put', 'a', '3'] },
    { name: 'overwrite b', args: ['put', 'b', '4'] },
    { name: 'compact', args: ['compact', '5'] },
    { name: 'endpoint hashkv after compaction', args: ['endpoint', 'hashkv'] },
    { name: 'endpoint hashkv -w json after compaction', args: ['endpoint', 'hashkv', '-w', 'json'] },
    { name: 'endpoint hashkv --rev at the current revision', args: ['endpoint', 'hashkv', '--rev', '6', '-w', 'json'] },
    { name: 'endpoint hashkv --rev compacted', args: ['endpoint', 'hashkv', '--rev', '5'], fails: true },
    { name: 'endpoint hashkv --rev in the future', args: ['endpoint', 'hashkv', '--rev', '100'], fails: true },
    { name: 'defrag', args: ['defrag'] },
    { name: 'snapshot save', args: (s) => ['snapshot', 'save', s.snapshot] },
    { name: 'snapshot save into a missing directory', args: (s) => ['snapshot', 'save', join(s.snapshot, 'nodir', 'x.db')], fails: true },
  ]
  for (const c of history) it(c.name, () => compare(c))

  it('snapshot files end in a SHA-256 after a multiple of 512 bytes', async () => {
    for (const s of sides) assert.equal((await stat(s.snapshot)).size % 512, 32, s.name)
  })

  it('etcdlite started from its snapshot (--restore-snapshot) has the same keys, revisions and hash', async () => {
    const ours = sides[1] as Side
    const restored = await startEtcdliteProcess({ memory: true, args: ['--restore-snapshot', ours.snapshot] })
    try {
      const strip = (s: string): string => s.replace(/"(cluster_id|member_id)":\d+,/g, '')
      for (const args of [['get', '', '--prefix', '-w', 'json'], ['get', 'b', '--rev', '5', '-w', 'json'], ['endpoint', 'hashkv', '-w', 'json']]) {
        const [a, b] = await Promise.all([etcdctl(ours.proc.endpoint, args), etcdctl(restored.endpoint, args)])
        assert.equal(b.code, 0, b.stderr)
        assert.equal(strip(b.stdout.split(restored.endpoint).join('<EP>')), strip(a.stdout.split(ours.proc.endpoint).join('<EP>')), args.join(' '))
      }
    } finally {
      await restored.dispose()
    }
  })

  it('both refuse the write that would pass --quota-backend-bytes, with the same error', async () => {
    const fills = await Promise.all(sides.map((s) => fillUntilNoSpace(s.proc.endpoint)))
    for (const f of fills) {
      assert.equal(f.err.code, grpc.status.RESOURCE_EXHAUSTED)
      assert.equal(f.err.details, 'etcdserver: mvcc: database space exceeded')
    }
    // etcdlite's size counts every byte written, so no more than quota/value puts fit (bbolt's pages fit more).
    const ours = fills[1]?.puts ?? 0
    assert.ok(ours >= 5 && ours * BIG.length <= QUOTA, `etcdlite: ${ours} puts of 20 kB fit in ${QUOTA} bytes`)
  })

  const noSpace: Case[] = [
    { name: 'alarm list shows NOSPACE', args: ['alarm', 'list'] },
    { name: 'alarm list -w json shows NOSPACE', args: ['alarm', 'list', '-w', 'json'] },
    { name: 'endpoint status lists the alarm', args: ['endpoint', 'status'] },
    { name: 'endpoint status -w json lists the alarm', args: ['endpoint', 'status', '-w', 'json'], numbers: true },
    { name: 'endpoint health (etcdctl 3.4 only reads a key)', args: ['endpoint', 'health'] },
    { name: 'put is refused', args: ['put', 'x', 'y'], fails: true },
    { name: 'txn with a put is refused', args: ['txn'], stdin: '\nput x y\n\n\n', fails: true },
    { name: 'get still works', args: ['get', 'b', '-w', 'json'], numbers: true },
    { name: 'del works', args: ['del', 'fill/', '--prefix'], numbers: true },
    { name: 'compact works', args: (s) => ['compact', String(s.compactTo ?? 0)], numbers: true },
    { name: 'defrag works', args: ['defrag'] },
    { name: 'put is still refused before the alarm is disarmed', args: ['put', 'x', 'y'], fails: true },
    { name: 'alarm disarm', args: ['alarm', 'disarm'] },
    { name: 'alarm list is empty again', args: ['alarm', 'list'] },
    { name: 'put works again', args: ['put', 'x', 'y'] },
    { name: 'endpoint status has no errors', args: ['endpoint', 'status'] },
  ]
  for (const c of noSpace) {
    it(c.name, async () => {
      if (c.name === 'compact works') {
        for (const s of sides) s.compactTo = (await status(s.proc.endpoint)).revision
      }
      await compare(c)
    })
  }
})
