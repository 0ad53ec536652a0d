// etcdctl (3.4, ETCDCTL_API=3) against the etcdlite CLI and against the real etcd: the same commands, in
// the same order, on two fresh servers (so revisions line up); exit code, stdout and stderr must match.
// Normalized away: cluster_id/member_id/raft_term (JSON and `-w fields`), and in etcdctl's own warning log
// lines the timestamp and the client's random target name (their message and gRPC error are compared).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { haveEtcd, haveEtcdctl, startEtcdliteProcess, startReferenceEtcd, type ServerProcess } from '../helpers/processes.js'
import { etcdctl, type CtlResult } from '../helpers/etcdctl.js'

const skip = !haveEtcdctl() ? 'etcdctl is not on PATH' : !haveEtcd() ? 'the reference `etcd` binary is not on PATH' : false

const IDS = new Set(['cluster_id', 'member_id', 'raft_term'])

/** Drop the identity fields from every JSON header, at any depth. */
function stripIds(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stripIds)
  if (typeof v === 'object' && v !== null) {
    return Object.fromEntries(Object.entries(v).filter(([k]) => !IDS.has(k)).map(([k, x]) => [k, stripIds(x)]))
  }
  return v
}

function normStdout(s: string): unknown {
  const t = s.trim()
  if (t.startsWith('{')) {
    try {
      // cluster_id/member_id exceed 2^53 and lose precision here, which does not matter: they are dropped.
      return stripIds(JSON.parse(t))
    } catch {
      return t
    }
  }
  return s.split('\n').filter((l) => !/^"(ClusterID|MemberID|RaftTerm)" : /.test(l)).join('\n')
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

const norm = (r: CtlResult): unknown => ({ code: r.code, stdout: normStdout(r.stdout), stderr: normStderr(r.stderr) })

interface Case {
  readonly name: string
  readonly args: readonly string[]
  readonly stdin?: string
  /** Expect a failure (non-zero exit); otherwise success. Both servers must agree either way. */
  readonly fails?: boolean
}

// Cases run in order on both servers; each sees the state the earlier ones left.
const cases: readonly Case[] = [
  { name: 'put', args: ['put', 'foo', 'bar'] },
  { name: 'put under a prefix (1)', args: ['put', 'foo/1', 'one'] },
  { name: 'put under a prefix (2)', args: ['put', 'foo/2', 'two'] },
  { name: 'put under a prefix (3)', args: ['put', 'foo/3', 'three'] },
  { name: 'put a key after the prefix', args: ['put', 'fop', 'p'] },
  { name: 'put a key far after', args: ['put', 'zoo', 'z'] },
  { name: 'put overwrite with --prev-kv', args: ['put', 'foo', 'bar2', '--prev-kv'] },
  { name: 'put --prev-kv -w json', args: ['put', 'foo/2', 'two-b', '--prev-kv', '-w', 'json'] },
  { name: 'put --ignore-value on an existing key', args: ['put', 'foo/3', '--ignore-value'] },
  { name: 'get single', args: ['get', 'foo'] },
  { name: 'get single -w json', args: ['get', 'foo', '-w', 'json'] },
  { name: 'get single -w fields', args: ['get', 'foo', '-w', 'fields'] },
  { name: 'get a missing key', args: ['get', 'nope'] },
  { name: 'get a missing key -w json', args: ['get', 'nope', '-w', 'json'] },
  { name: 'get --prefix', args: ['get', 'foo', '--prefix'] },
  { name: 'get --prefix -w json', args: ['get', 'foo', '--prefix', '-w', 'json'] },
  { name: 'get --from-key', args: ['get', 'foo/2', '--from-key'] },
  { name: 'get a range [key, end)', args: ['get', 'foo/1', 'foo/3'] },
  { name: 'get --prefix --limit (more)', args: ['get', 'foo', '--prefix', '--limit', '2', '-w', 'json'] },
  { name: 'get --rev in the past', args: ['get', 'foo', '--rev', '2', '-w', 'json'] },
  { name: 'get --prefix --rev in the past', args: ['get', 'foo', '--prefix', '--rev', '4'] },
  { name: 'get --sort-by MODIFY --order DESCEND', args: ['get', 'foo', '--prefix', '--sort-by', 'MODIFY', '--order', 'DESCEND'] },
  { name: 'get --sort-by CREATE --order ASCEND', args: ['get', 'foo', '--prefix', '--sort-by', 'CREATE', '--order', 'ASCEND'] },
  { name: 'get --sort-by VERSION --order DESCEND -w json', args: ['get', 'foo', '--prefix', '--sort-by', 'VERSION', '--order', 'DESCEND', '-w', 'json'] },
  { name: 'get --sort-by VALUE', args: ['get', 'foo', '--prefix', '--sort-by', 'VALUE'] },
  { name: 'get --sort-by KEY --order DESCEND --limit 2', args: ['get', 'foo', '--prefix', '--sort-by', 'KEY', '--order', 'DESCEND', '--limit', '2'] },
  { name: 'get --keys-only', args: ['get', 'foo', '--prefix', '--keys-only'] },
  { name: 'get --keys-only -w json', args: ['get', 'foo', '--prefix', '--keys-only', '-w', 'json'] },
  { name: 'get --print-value-only', args: ['get', 'foo', '--prefix', '--print-value-only'] },
  // etcdctl 3.4 has no --count-only (3.5 added it); count_only is covered over gRPC by test/differential.
  { name: 'get --count-only (not in etcdctl 3.4)', args: ['get', 'foo', '--prefix', '--count-only'], fails: true },
  { name: 'get --consistency s', args: ['get', 'foo', '--prefix', '--consistency', 's'] },
  { name: 'get --hex', args: ['get', 'foo', '--prefix', '--hex'] },
  { name: 'get everything with an empty --prefix', args: ['get', '', '--prefix', '--keys-only'] },
  { name: 'get -w table (not supported for get)', args: ['get', 'foo', '-w', 'table'], fails: true },
  { name: 'del a missing key', args: ['del', 'nope'] },
  { name: 'del single --prev-kv', args: ['del', 'foo/1', '--prev-kv'] },
  { name: 'del --prefix -w json --prev-kv', args: ['del', 'foo/', '--prefix', '--prev-kv', '-w', 'json'] },
  { name: 'del --from-key', args: ['del', 'fop', '--from-key'] },
  { name: 'put two keys for a range delete (1)', args: ['put', 'r/a', '1'] },
  { name: 'put two keys for a range delete (2)', args: ['put', 'r/b', '2'] },
  { name: 'del a range [key, end)', args: ['del', 'r/a', 'r/c', '-w', 'json'] },
  { name: 'everything left', args: ['get', '', '--from-key', '-w', 'json'] },
  { name: 'put before txns', args: ['put', 'k1', 'v1'] },
  {
    name: 'txn whose compares hold',
    args: ['txn'],
    stdin: 'value("k1") = "v1"\nmod("k1") > "0"\n\nput k2 v2\nget k1\ndel nope\n\nput k3 v3\n\n',
  },
  {
    name: 'txn whose compares fail -w json',
    args: ['txn', '-w', 'json'],
    stdin: 'version("k1") = "5"\n\nput k2 bad\n\nput k3 v3\nget k --prefix\n\n',
  },
  {
    name: 'txn on create revision and a prefix get',
    args: ['txn'],
    stdin: 'create("k2") > "0"\n\nget k --prefix --limit=1\ndel k3 --prev-kv\n\n\n',
  },
  { name: 'txn --interactive=false with no compares', args: ['txn', '--interactive=false'], stdin: '\nput k4 v4\n\n\n' },
  { name: 'txn with a malformed compare', args: ['txn'], stdin: 'value(k1) ~ v1\n\n\n\n', fails: true },
  { name: 'txn with a duplicate put', args: ['txn'], stdin: '\nput d 1\nput d 2\n\n\n', fails: true },
  { name: 'compact', args: ['compact', '3'] },
  { name: 'compact the same revision again', args: ['compact', '3'], fails: true },
  { name: 'compact --physical', args: ['compact', '5', '--physical'] },
  { name: 'compact a future revision', args: ['compact', '100000'], fails: true },
  { name: 'get a compacted revision', args: ['get', 'foo', '--rev', '2'], fails: true },
  { name: 'get at the compacted revision itself', args: ['get', 'k', '--prefix', '--rev', '5', '-w', 'json'] },
  { name: 'get a future revision', args: ['get', 'foo', '--rev', '100000'], fails: true },
  { name: 'put with an unknown --lease', args: ['put', 'leased', 'v', '--lease', '1234abcd'], fails: true },
  { name: 'put --ignore-value on a missing key', args: ['put', 'missing', '--ignore-value'], fails: true },
  { name: 'put --ignore-lease on a missing key', args: ['put', 'missing', 'v', '--ignore-lease'], fails: true },
  { name: 'final state -w json', args: ['get', '', '--from-key', '-w', 'json'] },
]

describe('etcdctl against etcdlite and etcd give the same output', { skip }, () => {
  let ref: ServerProcess | undefined
  let ours: ServerProcess | undefined

  before(async () => {
    ;[ref, ours] = await Promise.all([startReferenceEtcd(), startEtcdliteProcess({ memory: true })])
  })

  after(async () => {
    await Promise.all([ref?.dispose(), ours?.dispose()])
  })

  for (const c of cases) {
    it(c.name, async () => {
      if (ref === undefined || ours === undefined) throw new Error('servers did not start')
      const want = await etcdctl(ref.endpoint, c.args, c.stdin)
      const got = await etcdctl(ours.endpoint, c.args, c.stdin)
      assert.equal(want.code !== 0, c.fails === true, `etcd itself: expected ${c.fails === true ? 'a failure' : 'success'}: ${want.stderr}`)
      assert.deepStrictEqual(norm(got), norm(want), `etcdctl ${c.args.join(' ')}`)
    })
  }
})
