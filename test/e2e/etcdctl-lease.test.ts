// etcdctl lease (3.4, ETCDCTL_API=3) against the etcdlite CLI and against the real etcd: the same commands,
// in the same order, on two fresh servers; exit code, stdout and stderr must match once normalized.
// Servers pick lease IDs themselves (etcd counts up, etcdlite draws at random), so every ID a grant prints
// becomes a name ({L1}, {L2}, ...) in later arguments and in the compared output, in hex and in decimal.
// Also normalized: cluster_id/member_id/raft_term, the seconds a lease has left (checked to lie in
// 1..granted), the order of attached keys (etcd lists them in Go map order), and in etcdctl's own warning
// log lines the timestamp and the client's random target name.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { haveEtcd, haveEtcdctl, startEtcdliteProcess, startReferenceEtcd, type ServerProcess } from '../helpers/processes.js'
import { etcdctl, ETCDCTL_ENV } from '../helpers/etcdctl.js'

const skip = !haveEtcdctl() ? 'etcdctl is not on PATH' : !haveEtcd() ? 'the reference `etcd` binary is not on PATH' : false

/** One server and the lease IDs its grants printed, by name. */
class Session {
  readonly ids = new Map<string, bigint>()
  readonly server: ServerProcess
  constructor(server: ServerProcess) {
    this.server = server
  }

  /** `{L1}` in an argument becomes the hex ID etcdctl takes. */
  args(args: readonly string[]): string[] {
    return args.map((a) => a.replace(/\{(\w+)\}/g, (_m, name: string) => hex(this.id(name))))
  }

  id(name: string): bigint {
    const id = this.ids.get(name)
    if (id === undefined) throw new Error(`no lease named ${name} was granted`)
    return id
  }

  /** Remember the ID a grant printed (text: "lease <hex> granted", json: "ID":<decimal>). */
  capture(name: string, stdout: string): void {
    const text = /^lease ([0-9a-f]{16}) granted/.exec(stdout)?.[1]
    const json = /"ID" ?: ?(-?\d+)/.exec(stdout)?.[1]
    const id = text !== undefined ? BigInt(`0x${text}`) : json !== undefined ? BigInt(json) : undefined
    assert.ok(id !== undefined, `no lease ID in ${JSON.stringify(stdout)}`)
    this.ids.set(name, id)
  }

  /** Every known ID, hex and decimal, replaced by its name (quoted inside JSON, so it stays JSON). */
  names(s: string): string {
    let out = s
    for (const [name, id] of this.ids) {
      out = out.replaceAll(hex(id), `{${name}}`)
      out = out.replace(new RegExp(`(?<![\\d"])${id}(?![\\d"])`, 'g'), out.trimStart().startsWith('{') ? `"{${name}}"` : `{${name}}`)
    }
    return out
  }
}

/** etcdctl prints lease IDs as %016x. */
const hex = (id: bigint): string => BigInt.asUintN(64, id).toString(16).padStart(16, '0')

const IDS = new Set(['cluster_id', 'member_id', 'raft_term'])

/** A remaining TTL must lie in 1..granted; it becomes "*" (it counts down while the test runs). */
function remaining(left: number, granted: number): string {
  assert.ok(left >= 1 && left <= granted, `remaining ${left} s is not in 1..${granted}`)
  return '*'
}

function normJson(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normJson)
  if (typeof v !== 'object' || v === null) return v
  const o = Object.fromEntries(Object.entries(v).filter(([k]) => !IDS.has(k)).map(([k, x]) => [k, normJson(x)]))
  const granted = o['granted-ttl']
  if (typeof granted === 'number' && typeof o['ttl'] === 'number' && o['ttl'] >= 0) o['ttl'] = remaining(o['ttl'], granted)
  if (Array.isArray(o['keys'])) o['keys'] = [...(o['keys'] as unknown[])].map(String).sort()
  return o
}

function normStdout(s: string): unknown {
  const t = s.trim()
  if (t.startsWith('{')) {
    try {
      return normJson(JSON.parse(t))
    } catch {
      return t
    }
  }
  return s
    .replace(/granted with TTL\((\d+)s\), remaining\((\d+)s\)/g, (_m, g: string, r: string) => `granted with TTL(${g}s), remaining(${remaining(Number(r), Number(g))}s)`)
    .replace(/attached keys\(\[(.*)\]\)/g, (_m, keys: string) => `attached keys([${keys.split(' ').sort().join(' ')}])`)
    .split('\n')
    .filter((l) => !/^"(ClusterID|MemberID|RaftTerm)" : /.test(l))
    .map((l) => (/^"TTL" : \d+$/.test(l) && s.includes('"GrantedTTL"') ? '"TTL" : *' : l))
    .join('\n')
}

function normStderr(s: string): unknown[] {
  return s.split('\n').filter((l) => l !== '').map((l) => {
    if (!l.startsWith('{"level"')) return l
    try {
      const o = JSON.parse(l) as Record<string, unknown>
      return { level: o['level'], msg: o['msg'], attempt: o['attempt'], error: o['error'] }
    } catch {
      return l
    }
  })
}

interface Case {
  readonly name: string
  /** `{L1}` stands for the ID the grant named L1 printed on that server. */
  readonly args: readonly string[]
  /** This command grants a lease: remember its ID under this name. */
  readonly grants?: string
  /** Expect a failure (non-zero exit); otherwise success. Both servers must agree either way. */
  readonly fails?: boolean
}

// Cases run in order on both servers; each sees the state the earlier ones left. Leases live 60 s or
// more, so none expires while the file runs; L1 expires before L2 (the order `lease list` reports).
const cases: readonly Case[] = [
  { name: 'lease list on a fresh server', args: ['lease', 'list'] },
  { name: 'lease grant', args: ['lease', 'grant', '60'], grants: 'L1' },
  { name: 'lease grant -w json', args: ['lease', 'grant', '120', '-w', 'json'], grants: 'L2' },
  { name: 'lease grant -w fields', args: ['lease', 'grant', '300', '-w', 'fields'], grants: 'L3' },
  { name: 'lease grant with a bad TTL', args: ['lease', 'grant', 'abc'], fails: true },
  { name: 'lease grant with a TTL over the largest', args: ['lease', 'grant', '9000000001'], fails: true },
  { name: 'put attached to L1 (b)', args: ['put', 'b', '1', '--lease={L1}'] },
  { name: 'put attached to L1 (a)', args: ['put', 'a', '1', '--lease={L1}'] },
  { name: 'put attached to L2', args: ['put', 'c', '1', '--lease={L2}'] },
  { name: 'put without a lease', args: ['put', 'd', '1'] },
  { name: 'put with an unknown lease', args: ['put', 'e', '1', '--lease=ffff'], fails: true },
  { name: 'get shows the lease IDs -w json', args: ['get', '', '--from-key', '-w', 'json'] },
  { name: 'lease timetolive', args: ['lease', 'timetolive', '{L1}'] },
  { name: 'lease timetolive --keys', args: ['lease', 'timetolive', '{L1}', '--keys'] },
  { name: 'lease timetolive --keys -w json', args: ['lease', 'timetolive', '{L1}', '--keys', '-w', 'json'] },
  { name: 'lease timetolive -w fields', args: ['lease', 'timetolive', '{L2}', '-w', 'fields'] },
  { name: 'lease timetolive of an unknown lease', args: ['lease', 'timetolive', 'ffff'] },
  { name: 'lease timetolive of an unknown lease -w json', args: ['lease', 'timetolive', 'ffff', '--keys', '-w', 'json'] },
  { name: 'lease list', args: ['lease', 'list'] },
  { name: 'lease list -w json', args: ['lease', 'list', '-w', 'json'] },
  { name: 'lease keep-alive --once', args: ['lease', 'keep-alive', '--once', '{L1}'] },
  { name: 'lease keep-alive --once -w json', args: ['lease', 'keep-alive', '--once', '{L2}', '-w', 'json'] },
  { name: 'lease keep-alive --once of an unknown lease', args: ['lease', 'keep-alive', '--once', 'ffff'], fails: true },
  { name: 'lease revoke of an unknown lease', args: ['lease', 'revoke', 'ffff'], fails: true },
  { name: 'lease revoke with a bad ID', args: ['lease', 'revoke', 'zz'], fails: true },
  { name: 'lease revoke deletes the attached keys', args: ['lease', 'revoke', '{L1}'] },
  { name: 'the keys of L1 are gone at one revision', args: ['get', '', '--from-key', '-w', 'json'] },
  { name: 'lease revoke of a revoked lease -w json', args: ['lease', 'revoke', '{L1}', '-w', 'json'], fails: true },
  { name: 'lease keep-alive of a revoked lease ends at once', args: ['lease', 'keep-alive', '{L1}'] },
  { name: 'lease timetolive of a revoked lease', args: ['lease', 'timetolive', '{L1}', '--keys'] },
  { name: 'lease revoke -w json', args: ['lease', 'revoke', '{L3}', '-w', 'json'] },
  { name: 'lease list after revokes', args: ['lease', 'list'] },
  { name: 'put moves c from L2 to no lease', args: ['put', 'c', '2'] },
  { name: 'L2 has no keys left', args: ['lease', 'timetolive', '{L2}', '--keys'] },
  { name: 'final state -w json', args: ['get', '', '--from-key', '-w', 'json'] },
  // Last, because this lease expires 2 s later: nothing after it may depend on it.
  { name: 'lease grant below the minimum TTL gets 2 s', args: ['lease', 'grant', '1'], grants: 'L4' },
]

/** Run `lease keep-alive <id>` until its first renewal, revoke the lease, and collect what it printed. */
async function keepAliveUntilRevoked(s: Session): Promise<{ code: number | null; lines: string[] }> {
  const id = hex(s.id('K'))
  const p = spawn('etcdctl', [`--endpoints=${s.server.endpoint}`, '--dial-timeout=3s', 'lease', 'keep-alive', id], { env: ETCDCTL_ENV, stdio: ['ignore', 'pipe', 'inherit'] })
  const lines: string[] = []
  const exited = new Promise<number | null>((resolve) => p.on('close', resolve))
  try {
    let first: (() => void) | undefined
    const renewed = new Promise<void>((resolve) => (first = resolve))
    createInterface({ input: p.stdout }).on('line', (l) => {
      lines.push(s.names(l))
      first?.()
    })
    await Promise.race([renewed, exited.then(() => assert.fail(`keep-alive exited before its first renewal: ${lines.join('|')}`))])
    const r = await etcdctl(s.server.endpoint, ['lease', 'revoke', id])
    assert.equal(r.code, 0, r.stderr)
    return { code: await exited, lines }
  } finally {
    if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL')
  }
}

describe('etcdctl lease against etcdlite and etcd give the same output', { skip }, () => {
  let ref: Session | undefined
  let ours: Session | undefined

  before(async () => {
    const [r, o] = await Promise.all([startReferenceEtcd(), startEtcdliteProcess({ memory: true })])
    ref = new Session(r)
    ours = new Session(o)
  })

  after(async () => {
    await Promise.all([ref?.server.dispose(), ours?.server.dispose()])
  })

  for (const c of cases) {
    it(c.name, async () => {
      if (ref === undefined || ours === undefined) throw new Error('servers did not start')
      const results: unknown[] = []
      for (const s of [ref, ours]) {
        const r = await etcdctl(s.server.endpoint, s.args(c.args))
        if (c.grants !== undefined && r.code === 0) s.capture(c.grants, r.stdout)
        results.push({ code: r.code, stdout: normStdout(s.names(r.stdout)), stderr: normStderr(s.names(r.stderr)) })
      }
      const [want, got] = results as [{ code: number | null }, unknown]
      assert.equal(want.code !== 0, c.fails === true, `etcd itself: expected ${c.fails === true ? 'a failure' : 'success'}: ${JSON.stringify(want)}`)
      assert.deepStrictEqual(got, want, `etcdctl ${c.args.join(' ')}`)
    })
  }

  // clientv3 renews every TTL/3 (here 1 s); the renewal after the revoke answers TTL 0 and etcdctl ends.
  it('lease keep-alive renews until the lease is revoked, then says so and exits 0', async () => {
    if (ref === undefined || ours === undefined) throw new Error('servers did not start')
    const results: unknown[] = []
    for (const s of [ref, ours]) {
      s.capture('K', (await etcdctl(s.server.endpoint, ['lease', 'grant', '3'])).stdout)
      const { code, lines } = await keepAliveUntilRevoked(s)
      // How many renewals fit before the revoke is timing; what they say, and how it ends, is not.
      results.push({ code, lines: lines.filter((l, i) => i === 0 || l !== lines[i - 1]) })
    }
    assert.deepStrictEqual(results[1], results[0])
    assert.deepStrictEqual(results[0], { code: 0, lines: ['lease {K} keepalived with TTL(3)', 'lease {K} expired or revoked.'] })
  })
})
