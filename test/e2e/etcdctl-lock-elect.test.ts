// `etcdctl lock` and `etcdctl elect` (3.4, ETCDCTL_API=3; they run clientv3/concurrency over leases, KV and
// watch) and the v3lock / v3election gRPC services, against the real etcd and the etcdlite CLI: the same
// scenario on two fresh servers (so revisions line up), the transcripts compared. Normalized away: lease
// IDs (decimal, and in hex inside lock and candidate keys), header cluster_id/member_id/raft_term, and the
// client-side text of a DEADLINE_EXCEEDED. Each scenario also checks the reference transcript's shape, so
// a harness that records nothing fails. Every wait is for a condition (output seen, keys present).
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import * as grpc from '@grpc/grpc-js'
import { loadEtcdProto } from '../../src/grpc/proto.js'
import { rawClient, unary } from '../helpers/grpc-client.js'
import { haveEtcd, haveEtcdctl, startEtcdliteProcess, startReferenceEtcd, type ServerProcess } from '../helpers/processes.js'
import { until } from '../helpers/until.js'

const skip = !haveEtcdctl() ? 'etcdctl is not on PATH' : !haveEtcd() ? 'the reference `etcd` binary is not on PATH' : false
const WAIT_MS = 15_000

// Etcdctl

/** A long-running etcdctl (lock / elect), read as it prints; interrupt() sends SIGINT as a user's ^C. */
class Ctl {
  private readonly proc: ChildProcessWithoutNullStreams
  stdout = ''
  stderr = ''
  private readonly exited: Promise<number | null>

  constructor(endpoint: string, args: readonly string[]) {
    this.proc = spawn('etcdctl', [`--endpoints=${endpoint}`, '--dial-timeout=3s', ...args], { env: { ...process.env, ETCDCTL_API: '3' } })
    this.proc.stdout.on('data', (d: Buffer) => (this.stdout += d.toString()))
    this.proc.stderr.on('data', (d: Buffer) => (this.stderr += d.toString()))
    this.exited = new Promise((resolve) => this.proc.on('close', (code) => resolve(code)))
    this.proc.stdin.end()
  }

  /** Wait until stdout has `n` lines. */
  lines(n: number, what: string): Promise<void> {
    return until(() => this.stdout.split('\n').length > n, `${what} (stdout so far: ${JSON.stringify(this.stdout)}, stderr: ${this.stderr})`, WAIT_MS)
  }

  async interrupt(): Promise<number | null> {
    this.proc.kill('SIGINT')
    return this.exited
  }

  /** Wait for a process that ends by itself. */
  exit(): Promise<number | null> {
    return this.exited
  }

  kill(): void {
    this.proc.kill('SIGKILL')
  }
}

/** Lease IDs in hex at the end of a lock or candidate key (etcd's are 16 digits, etcdlite's random). */
const normKeys = (s: string): string => s.replace(/\/[0-9a-f]{1,16}\b/g, '/<lease>')

/** How many keys are under `prefix` now. */
async function countUnder(endpoint: string, prefix: string): Promise<number> {
  const c = rawClient(endpoint)
  try {
    const end = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1)
    const r = await c.kv.Range({ key: Buffer.from(prefix), range_end: Buffer.from(end), count_only: true })
    return Number(r['count'])
  } finally {
    c.close()
  }
}

const keysUnder = (endpoint: string, prefix: string, n: number, what: string): Promise<void> => {
  let last = -1
  const poll = async (): Promise<void> => {
    const t0 = Date.now()
    for (;;) {
      last = await countUnder(endpoint, prefix)
      if (last === n) return
      if (Date.now() - t0 > WAIT_MS) assert.fail(`timed out waiting for ${what}: ${last} keys under ${prefix}, want ${n}`)
      await new Promise((r) => setTimeout(r, 20))
    }
  }
  return poll()
}

type Scenario = (endpoint: string, spawned: Ctl[]) => Promise<string[]>

/** Two lockers: the second gets the lock when the first is interrupted; a third runs a command under the lock. */
const lockScenario: Scenario = async (ep, spawned) => {
  const out: string[] = []
  const a = new Ctl(ep, ['lock', 'l1'])
  spawned.push(a)
  await a.lines(2, 'the first locker holds the lock')
  const b = new Ctl(ep, ['lock', 'l1'])
  spawned.push(b)
  await keysUnder(ep, 'l1/', 2, 'the second locker waiting')
  out.push(`b before a lets go: ${JSON.stringify(b.stdout)}`)
  out.push(`a exit ${String(await a.interrupt())}: ${JSON.stringify(normKeys(a.stdout))} ${JSON.stringify(a.stderr)}`)
  await b.lines(2, 'the second locker holds the lock')
  const c = new Ctl(ep, ['lock', 'l1', '--', 'sh', '-c', 'echo "$ETCD_LOCK_KEY rev=$ETCD_LOCK_REV"'])
  spawned.push(c)
  await keysUnder(ep, 'l1/', 2, 'the command locker waiting')
  out.push(`b exit ${String(await b.interrupt())}: ${JSON.stringify(normKeys(b.stdout))} ${JSON.stringify(b.stderr)}`)
  out.push(`c exit ${String(await c.exit())}: ${JSON.stringify(normKeys(c.stdout))} ${JSON.stringify(c.stderr)}`)
  out.push(`keys left under l1/: ${await countUnder(ep, 'l1/')}`)
  return out
}

/** An observer, a leader and a second contender; the leader resigns (^C), then the second one, then the observer stops. */
const electScenario: Scenario = async (ep, spawned) => {
  const out: string[] = []
  const o = new Ctl(ep, ['elect', '-l', 'e1'])
  spawned.push(o)
  const c1 = new Ctl(ep, ['elect', 'e1', 'p1'])
  spawned.push(c1)
  await c1.lines(2, 'the first contender leads')
  await o.lines(2, 'the observer sees the first leader')
  const c2 = new Ctl(ep, ['elect', 'e1', 'p2'])
  spawned.push(c2)
  await keysUnder(ep, 'e1/', 2, 'the second contender waiting')
  out.push(`c2 before c1 resigns: ${JSON.stringify(c2.stdout)}`)
  out.push(`c1 exit ${String(await c1.interrupt())}: ${JSON.stringify(normKeys(c1.stdout))} ${JSON.stringify(c1.stderr)}`)
  await c2.lines(2, 'the second contender leads')
  await o.lines(4, 'the observer sees the second leader')
  out.push(`c2 exit ${String(await c2.interrupt())}: ${JSON.stringify(normKeys(c2.stdout))} ${JSON.stringify(c2.stderr)}`)
  await keysUnder(ep, 'e1/', 0, 'no candidate left')
  out.push(`observer exit ${String(await o.interrupt())}: ${JSON.stringify(normKeys(o.stdout))} ${JSON.stringify(o.stderr)}`)
  return out
}

// The gRPC services

type Outcome = { readonly ok: unknown } | { readonly code: number; readonly details: string }

const DROP = new Set(['cluster_id', 'member_id', 'raft_term'])

/** Normalize a response: bytes as text (lease hex in keys replaced), lease IDs as "<lease>", identity fields dropped. */
function normPb(v: unknown, field = ''): unknown {
  if (Buffer.isBuffer(v)) return normKeys(v.toString('latin1'))
  if (Array.isArray(v)) return v.map((x) => normPb(x))
  if (typeof v === 'object' && v !== null) {
    return Object.fromEntries(Object.entries(v).filter(([k]) => !DROP.has(k)).map(([k, x]) => [k, normPb(x, k)]))
  }
  if ((field === 'lease' || field === 'ID') && v !== '0') return '<lease>'
  return v
}

/** The v3lock / v3election / KV / Lease clients of one server, each call answering an Outcome. */
class Services {
  private readonly clients: grpc.Client[]
  private readonly election: grpc.Client
  readonly call: (service: 'lock' | 'election' | 'kv' | 'lease', method: string, req: object, deadlineMs?: number) => Promise<Outcome>

  constructor(endpoint: string) {
    const proto = loadEtcdProto()
    const cr = grpc.credentials.createInsecure()
    const by = {
      lock: new proto.v3lockpb.Lock(endpoint, cr),
      election: new proto.v3electionpb.Election(endpoint, cr),
      kv: new proto.etcdserverpb.KV(endpoint, cr),
      lease: new proto.etcdserverpb.Lease(endpoint, cr),
    }
    this.election = by.election
    this.clients = Object.values(by)
    this.call = async (service, method, req, deadlineMs) => {
      const client = by[service]
      try {
        if (deadlineMs === undefined) return { ok: await unary(client, method)(req) }
        const fn = (client as unknown as Record<string, (r: object, o: grpc.CallOptions, cb: (e: grpc.ServiceError | null, r?: unknown) => void) => void>)[method]
        assert.ok(fn !== undefined)
        return await new Promise<Outcome>((resolve, reject) => {
          fn.call(client, req, { deadline: Date.now() + deadlineMs }, (e, r) => (e === null ? resolve({ ok: r }) : reject(e)))
        })
      } catch (e) {
        const err = e as grpc.ServiceError
        // grpc-js words a client-side deadline with its own timings.
        return { code: err.code, details: err.code === grpc.status.DEADLINE_EXCEEDED ? '<deadline>' : err.details }
      }
    }
  }

  observe(name: string): { seen: unknown[]; cancel: () => void } {
    const seen: unknown[] = []
    const stream = (this.election as unknown as { Observe: (r: object) => grpc.ClientReadableStream<unknown> }).Observe({ name: Buffer.from(name) })
    stream.on('data', (d: unknown) => seen.push(normPb(d)))
    stream.on('error', (e: grpc.ServiceError) => {
      if (e.code !== grpc.status.CANCELLED) seen.push({ error: e.code, details: e.details })
    })
    return { seen, cancel: () => stream.cancel() }
  }

  close(): void {
    for (const c of this.clients) c.close()
  }
}

const B = (s: string): Buffer => Buffer.from(s)
const ok = (o: Outcome): Record<string, unknown> => {
  if (!('ok' in o)) assert.fail(`expected success, got ${JSON.stringify(o)}`)
  return o.ok as Record<string, unknown>
}

/** Every Lock and Election call, error cases included, in one deterministic script. */
const servicesScenario: Scenario = async (ep) => {
  const s = new Services(ep)
  const out: string[] = []
  const rec = (step: string, o: Outcome): Outcome => {
    out.push(`${step}: ${JSON.stringify('ok' in o ? { ok: normPb(o.ok) } : o)}`)
    return o
  }
  try {
    const grant = async (): Promise<string> => String(ok(await s.call('lease', 'LeaseGrant', { TTL: 60 }))['ID'])
    rec('lock with lease 0', await s.call('lock', 'Lock', { name: B('l0') }))
    rec('lock with an unknown lease', await s.call('lock', 'Lock', { name: B('lb'), lease: '12345' }))
    const [g1, g2, g3, g4] = [await grant(), await grant(), await grant(), await grant()]
    const l1 = ok(rec('lock x', await s.call('lock', 'Lock', { name: B('x'), lease: g1 })))
    rec('lock x again, same lease', await s.call('lock', 'Lock', { name: B('x'), lease: g1 }))
    const waiting = s.call('lock', 'Lock', { name: B('x'), lease: g2 })
    await keysUnder(ep, 'x/', 2, 'the second locker waiting')
    rec('unlock the holder', await s.call('lock', 'Unlock', { key: l1['key'] }))
    rec('the waiter gets the lock', await waiting)
    rec('lock y', await s.call('lock', 'Lock', { name: B('y'), lease: g3 }))
    rec('lock y from a caller whose deadline passes', await s.call('lock', 'Lock', { name: B('y'), lease: g4 }, 300))
    await keysUnder(ep, 'y/', 1, 'the abandoned waiter key deleted')
    rec('unlock a missing key', await s.call('lock', 'Unlock', { key: B('nope') }))
    rec('unlock an empty key', await s.call('lock', 'Unlock', {}))
    rec('lock an empty name', await s.call('lock', 'Lock', { name: B(''), lease: g3 }))

    rec('leader of an empty election', await s.call('election', 'Leader', { name: B('e') }))
    const [ge1, ge2] = [await grant(), await grant()]
    const c1 = ok(rec('campaign', await s.call('election', 'Campaign', { name: B('e'), lease: ge1, value: B('v1') })))
    const leader = c1['leader'] as Record<string, unknown>
    rec('leader', await s.call('election', 'Leader', { name: B('e') }))
    rec('proclaim', await s.call('election', 'Proclaim', { leader, value: B('v2') }))
    rec('proclaim without a leader', await s.call('election', 'Proclaim', { value: B('v2') }))
    rec('proclaim with a stale leader', await s.call('election', 'Proclaim', { leader: { ...leader, rev: '1' }, value: B('v3') }))
    rec('resign with a stale leader', await s.call('election', 'Resign', { leader: { ...leader, rev: '1' } }))
    rec('resign without a leader', await s.call('election', 'Resign', {}))
    rec('campaign again, same lease, new value', await s.call('election', 'Campaign', { name: B('e'), lease: ge1, value: B('v9') }))
    rec('campaign with an unknown lease', await s.call('election', 'Campaign', { name: B('e'), lease: '777', value: B('v') }))
    rec('campaign with lease 0', await s.call('election', 'Campaign', { name: B('e0'), value: B('z') }))
    const obs = s.observe('e')
    await until(() => obs.seen.length === 1, 'observe: the current leader', WAIT_MS)
    const second = s.call('election', 'Campaign', { name: B('e'), lease: ge2, value: B('w1') })
    await keysUnder(ep, 'e/', 2, 'the second candidate waiting')
    rec('proclaim while another candidate waits', await s.call('election', 'Proclaim', { leader, value: B('v4') }))
    await until(() => obs.seen.length === 2, 'observe: the proclaimed value', WAIT_MS)
    rec('resign', await s.call('election', 'Resign', { leader }))
    rec('the second candidate leads', await second)
    await until(() => obs.seen.length === 3, 'observe: the next leader', WAIT_MS)
    obs.cancel()
    out.push(`observed: ${JSON.stringify(obs.seen)}`)
    const empty = s.observe('empty')
    rec('leader of another empty election', await s.call('election', 'Leader', { name: B('empty') }))
    // Observe has no "created" signal: keep putting until it reports one (each put is a new revision on both servers alike).
    rec('put under the empty election', await s.call('kv', 'Put', { key: B('empty/abc'), value: B('hello') }))
    await until(() => empty.seen.length === 1, 'observe: the first key under an empty election', WAIT_MS)
    empty.cancel()
    out.push(`observed: ${JSON.stringify(empty.seen)}`)
  } finally {
    s.close()
  }
  return out
}

// Runner

interface Run {
  readonly ref: string[]
  readonly lite: string[]
}

describe('etcdctl lock/elect and the Lock/Election services: etcdlite as etcd', { skip }, () => {
  /** Run a scenario on a fresh real etcd, then on a fresh etcdlite; whatever it spawned is killed even if it fails. */
  async function both(scenario: Scenario): Promise<Run> {
    const runOne = async (start: () => Promise<ServerProcess>): Promise<string[]> => {
      const sp = await start()
      const spawned: Ctl[] = []
      try {
        return await scenario(sp.endpoint, spawned)
      } finally {
        for (const c of spawned) c.kill()
        await sp.dispose()
      }
    }
    return { ref: await runOne(() => startReferenceEtcd()), lite: await runOne(() => startEtcdliteProcess({ memory: true })) }
  }

  it('etcdctl lock: the second locker waits for the first; a command runs under the lock with its key and revision', async () => {
    const r = await both(lockScenario)
    assert.deepEqual(r.ref, [
      'b before a lets go: ""',
      'a exit 0: "l1/<lease>\\n\\n" ""',
      'b exit 0: "l1/<lease>\\n\\n" ""',
      'c exit 0: "l1/<lease> rev=6\\n" ""',
      'keys left under l1/: 0',
    ])
    assert.deepEqual(r.lite, r.ref)
  })

  it('etcdctl elect: the observer sees each leader; a resign hands over to the waiting contender', async () => {
    const r = await both(electScenario)
    assert.deepEqual(r.ref, [
      'c2 before c1 resigns: ""',
      'c1 exit 0: "e1/<lease>\\np1\\n" ""',
      'c2 exit 0: "e1/<lease>\\np2\\n" ""',
      'observer exit 0: "e1/<lease>\\np1\\ne1/<lease>\\np2\\n" ""',
    ])
    assert.deepEqual(r.lite, r.ref)
  })

  it('Lock and Election over gRPC: the same responses, errors (UNKNOWN with etcd\'s text) and observed leaders', async () => {
    const r = await both(servicesScenario)
    assert.ok(r.ref.some((l) => l.startsWith('proclaim with a stale leader: {"code":2,"details":"election: not leader"}')), r.ref.join('\n'))
    assert.ok(r.ref.some((l) => l.startsWith('lock with an unknown lease: {"code":2,"details":"etcdserver: requested lease not found"}')), r.ref.join('\n'))
    assert.deepEqual(r.lite, r.ref)
  })
})
