// etcdctl (3.4, ETCDCTL_API=3) user, role and auth commands, and `etcdctl --user` for KV, lease, lock,
// elect, endpoint status, member list and snapshot save, against the real etcd and the etcdlite CLI: the same
// commands, in the same order, on two servers (both with --bcrypt-cost 4); exit code, stdout and stderr must
// match once normalized (endpoint, member and cluster IDs, lease IDs, raft term, the client's retry log
// lines). Then both servers restart on their data: users, roles, permissions and the enabled flag survive.
// A token from before the restart does not survive etcdlite, which keeps tokens in memory only; etcd 3.4
// replays the Authenticate entries of its WAL since the last snapshot and so hands the same tokens out
// again (a side effect of raft, not a promise: tokens from before a snapshot are lost) - a deviation.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { status as grpcStatus } from '@grpc/grpc-js'
import { etcdctl, stderrLines, type CtlResult } from '../helpers/etcdctl.js'
import { haveEtcd, haveEtcdctl, startEtcdliteProcess, startReferenceEtcd, type ServerProcess } from '../helpers/processes.js'
import { tempDir } from '../helpers/tmp.js'
import { ClientError } from '../compliance/harness/client.js'
import { rawTestClient } from '../compliance/harness/adapters/raw.js'

const skip = !haveEtcdctl() ? 'etcdctl is not on PATH' : !haveEtcd() ? 'the reference `etcd` binary is not on PATH' : false

/** The cheapest bcrypt cost (etcd 3.4 has the flag too): users and logins stay fast. */
const BCRYPT = ['--bcrypt-cost', '4']
/** etcdlite introduces itself as the reference does (name, advertised URLs, version), so tables match. */
const OURS = [...BCRYPT, '--name', 'ref', '--initial-advertise-peer-urls', 'http://127.0.0.1:0', '--advertise-client-urls', 'http://127.0.0.1:0', '--etcd-version', '3.4.23']
const ROOT = ['--user', 'root:rootpw']
const ALICE = ['--user', 'alice:apw']
const BOB = ['--user', 'bob:bpw2']

/** One server under test, restartable on its data dir. */
interface Side {
  readonly name: 'etcd' | 'etcdlite'
  proc: ServerProcess
  readonly dir: string
  /** Where this side's `snapshot save` writes. */
  readonly snapshot: string
}

/** A server's own identity and lease IDs become placeholders; the retry log lines keep what they say. */
function normalize(r: CtlResult, side: Side): unknown {
  const deidentify = (s: string): string =>
    s
      .split(side.proc.endpoint).join('<EP>')
      .split(side.snapshot).join('<SNAPSHOT>')
      // Lease and member IDs: etcdctl prints lease IDs as %016x but member IDs as %x, so a random member ID
      // with a leading zero digit (1 in 16) has 15 digits, or fewer. 12 to 16 hex digits are an ID here (the
      // log lines' 10-digit timestamps are not).
      .replace(/\b[0-9a-f]{12,16}\b/g, '<HEX>')
  const stdout = deidentify(r.stdout)
    // member list and endpoint status tables: member ID and the sizes and indexes that differ by design.
    .replace(/^<HEX>, started, /gm, '<member>, started, ')
    .replace(/^(<EP>, <HEX>, [^,]+), [^,]+, (true|false), (true|false), \d+, \d+, \d+, /gm, '$1, <size>, $2, $3, <term>, <index>, <index>, ')
    .replace(/"(cluster_id|member_id|raft_term)":\d+/g, '"$1":0')
    .replace(/Snapshot saved at .*/g, 'Snapshot saved at <file>')
  // etcdctl's snapshot progress lines name a file and a size; only what they say is compared.
  const stderr = stderrLines(deidentify(r.stderr))
  return { code: r.code, stdout, stderr }
}

interface Case {
  readonly name: string
  readonly args: readonly string[] | ((s: Side) => readonly string[])
  readonly stdin?: string
  /** Expect a failure (non-zero exit) from etcd; etcdlite must answer the same either way. */
  readonly fails?: boolean
}

const users: readonly Case[] = [
  { name: 'user add with the password on stdin (--interactive=false)', args: ['user', 'add', 'root', '--interactive=false'], stdin: 'rootpw\n' },
  { name: 'user add name:password', args: ['user', 'add', 'alice:apw'] },
  { name: 'user add --new-user-password', args: ['user', 'add', 'bob', '--new-user-password=bpw'] },
  { name: 'user add --no-password', args: ['user', 'add', 'nopass', '--no-password'] },
  { name: 'user add of an existing name', args: ['user', 'add', 'alice:other'], fails: true },
  { name: 'role add', args: ['role', 'add', 'reader'] },
  ...['writer', 'prefixer', 'fromer', 'ranger', 'everything'].map((r): Case => ({ name: `role add ${r}`, args: ['role', 'add', r] })),
  { name: 'role add of an existing name', args: ['role', 'add', 'reader'], fails: true },
  { name: 'role grant-permission read on a key', args: ['role', 'grant-permission', 'reader', 'read', 'k'] },
  { name: 'role grant-permission readwrite on a key', args: ['role', 'grant-permission', 'writer', 'readwrite', 'k'] },
  { name: 'role grant-permission --prefix', args: ['role', 'grant-permission', 'prefixer', 'readwrite', 'p/', '--prefix'] },
  { name: 'role grant-permission --from-key', args: ['role', 'grant-permission', 'fromer', 'read', 'x', '--from-key'] },
  { name: 'role grant-permission on a range', args: ['role', 'grant-permission', 'ranger', 'write', 'a', 'c'] },
  { name: 'role grant-permission on every key (empty key, --prefix)', args: ['role', 'grant-permission', 'everything', 'readwrite', '', '--prefix'] },
  { name: 'role grant-permission to an unknown role', args: ['role', 'grant-permission', 'nosuch', 'read', 'k'], fails: true },
  { name: 'role grant-permission with a bad type', args: ['role', 'grant-permission', 'reader', 'readall', 'k'], fails: true },
  ...['reader', 'prefixer', 'fromer', 'ranger', 'everything'].map((r): Case => ({ name: `role get ${r}`, args: ['role', 'get', r] })),
  { name: 'role get -w json', args: ['role', 'get', 'prefixer', '-w', 'json'] },
  { name: 'role get of an unknown role', args: ['role', 'get', 'nosuch'], fails: true },
  { name: 'role list', args: ['role', 'list'] },
  { name: 'user grant-role', args: ['user', 'grant-role', 'alice', 'reader'] },
  { name: 'user grant-role another', args: ['user', 'grant-role', 'alice', 'prefixer'] },
  { name: 'user grant-role to bob', args: ['user', 'grant-role', 'bob', 'writer'] },
  { name: 'user grant-role ranger to bob', args: ['user', 'grant-role', 'bob', 'ranger'] },
  { name: 'user grant-role root to root', args: ['user', 'grant-role', 'root', 'root'] },
  { name: 'user grant-role of an unknown role', args: ['user', 'grant-role', 'alice', 'nosuch'], fails: true },
  { name: 'user grant-role to an unknown user', args: ['user', 'grant-role', 'nobody', 'reader'], fails: true },
  { name: 'user get', args: ['user', 'get', 'alice'] },
  { name: 'user get --detail', args: ['user', 'get', 'alice', '--detail'] },
  { name: 'user get -w json', args: ['user', 'get', 'bob', '-w', 'json'] },
  { name: 'user get of an unknown user', args: ['user', 'get', 'nobody'], fails: true },
  { name: 'user list', args: ['user', 'list'] },
  { name: 'user revoke-role', args: ['user', 'revoke-role', 'bob', 'ranger'] },
  { name: 'user revoke-role of a role not granted', args: ['user', 'revoke-role', 'bob', 'ranger'], fails: true },
  { name: 'role revoke-permission of a range', args: ['role', 'revoke-permission', 'ranger', 'a', 'c'] },
  { name: 'role revoke-permission of a permission not granted', args: ['role', 'revoke-permission', 'ranger', 'a', 'c'], fails: true },
  { name: 'role revoke-permission --from-key', args: ['role', 'revoke-permission', 'fromer', 'x', '--from-key'] },
  { name: 'role grant-permission --from-key again', args: ['role', 'grant-permission', 'fromer', 'read', 'x', '--from-key'] },
  { name: 'role revoke-permission --prefix', args: ['role', 'revoke-permission', 'everything', '', '--prefix'] },
  { name: 'role delete', args: ['role', 'delete', 'everything'] },
  { name: 'role delete of an unknown role', args: ['role', 'delete', 'everything'], fails: true },
  { name: 'user passwd with the password on stdin', args: ['user', 'passwd', 'bob', '--interactive=false'], stdin: 'bpw2\n' },
  { name: 'user passwd of an unknown user', args: ['user', 'passwd', 'nobody', '--interactive=false'], stdin: 'x\n', fails: true },
  { name: 'auth enable', args: ['auth', 'enable'] },
]

const enforced: readonly Case[] = [
  { name: 'get without --user', args: ['get', 'k'], fails: true },
  { name: 'put without --user', args: ['put', 'k', 'v'], fails: true },
  { name: 'user list without --user', args: ['user', 'list'], fails: true },
  { name: 'root puts k', args: [...ROOT, 'put', 'k', 'v0'] },
  ...['p/1', 'x', 'z', 'a'].map((k): Case => ({ name: `root puts ${k}`, args: [...ROOT, 'put', k, 'v'] })),
  { name: 'root get --prefix', args: [...ROOT, 'get', '', '--prefix'] },
  { name: 'user list as root', args: [...ROOT, 'user', 'list'] },
  { name: 'alice gets k (reader)', args: [...ALICE, 'get', 'k'] },
  { name: 'alice cannot put k', args: [...ALICE, 'put', 'k', 'v1'], fails: true },
  { name: 'alice gets the prefix p/', args: [...ALICE, 'get', 'p/', '--prefix'] },
  { name: 'alice puts under p/', args: [...ALICE, 'put', 'p/2', 'v'] },
  { name: 'alice cannot get x', args: [...ALICE, 'get', 'x'], fails: true },
  { name: 'alice cannot get from p/ on', args: [...ALICE, 'get', 'p/', '--from-key'], fails: true },
  { name: 'alice cannot delete k (she may only read it), with --prev-kv', args: [...ALICE, 'del', 'k', '--prev-kv'], fails: true },
  { name: 'alice with --password', args: ['--user', 'alice', '--password', 'apw', 'get', 'k'] },
  { name: 'bob puts k with his new password', args: [...BOB, 'put', 'k', 'v2'] },
  { name: 'bob with his old password', args: ['--user', 'bob:bpw', 'get', 'k'], fails: true },
  { name: 'an unknown user', args: ['--user', 'nobody:x', 'get', 'k'], fails: true },
  { name: 'a user without a password', args: ['--user', 'nopass:x', 'get', 'k'], fails: true },
  { name: 'alice cannot list users', args: [...ALICE, 'user', 'list'], fails: true },
  { name: 'alice gets herself', args: [...ALICE, 'user', 'get', 'alice'] },
  { name: 'alice gets her role', args: [...ALICE, 'role', 'get', 'reader'] },
  { name: 'alice cannot get a role she does not hold', args: [...ALICE, 'role', 'get', 'writer'], fails: true },
  { name: 'alice cannot get another user', args: [...ALICE, 'user', 'get', 'bob'], fails: true },
  { name: 'alice cannot add a user', args: [...ALICE, 'user', 'add', 'eve:x'], fails: true },
  { name: 'alice cannot disable auth', args: [...ALICE, 'auth', 'disable'], fails: true },
  { name: 'txn as alice: compare and put under p/', args: [...ALICE, 'txn'], stdin: 'value("p/2") = "v"\n\nput p/3 w\n\n\n' },
  { name: 'txn as alice: a failure branch she may not write', args: [...ALICE, 'txn'], stdin: 'value("p/2") = "v"\n\nput p/4 w\n\nput k w\n\n', fails: true },
  { name: 'alice grants a lease', args: [...ALICE, 'lease', 'grant', '600'] },
  { name: 'lease list as alice', args: [...ALICE, 'lease', 'list'] },
  { name: 'alice locks under p/ and runs a command', args: [...ALICE, 'lock', 'p/lock', 'echo', 'locked'] },
  { name: 'alice cannot lock outside her keys', args: [...ALICE, 'lock', 'q/lock', 'echo', 'locked'], fails: true },
  { name: 'alice cannot campaign outside her keys', args: [...ALICE, 'elect', 'q/elect', 'proposal'], fails: true },
  { name: 'endpoint status as alice (no permission needed)', args: [...ALICE, 'endpoint', 'status'] },
  // Without --user, etcd 3.4.23 answers; etcdlite refuses, as etcd does since its CVE-2026-33413 fix (docs/DEVIATIONS.md).
  { name: 'endpoint status as root', args: [...ROOT, 'endpoint', 'status'] },
  { name: 'member list as alice', args: [...ALICE, 'member', 'list'] },
  { name: 'snapshot save as root', args: (s) => [...ROOT, 'snapshot', 'save', s.snapshot] },
  { name: 'watch as alice outside her keys is refused', args: [...ALICE, 'watch', 'x', '--rev', '1'], fails: true },
  { name: 'compaction needs no permission', args: [...ALICE, 'compact', '2'] },
  { name: 'auth disable as root', args: [...ROOT, 'auth', 'disable'] },
  { name: 'get without --user while auth is off', args: ['get', 'k'] },
  { name: '--user while auth is off', args: [...ALICE, 'get', 'k'] },
  { name: 'auth enable without --user while auth is off', args: ['auth', 'enable'] },
  { name: 'user delete', args: [...ROOT, 'user', 'delete', 'nopass'] },
  { name: 'user delete of an unknown user', args: [...ROOT, 'user', 'delete', 'nopass'], fails: true },
  { name: 'role delete takes the role from bob', args: [...ROOT, 'role', 'delete', 'writer'] },
  { name: 'bob cannot put k any more', args: [...BOB, 'put', 'k', 'v3'], fails: true },
  { name: 'user get bob after the role is gone', args: [...ROOT, 'user', 'get', 'bob'] },
  { name: 'root cannot be deleted while auth is on', args: [...ROOT, 'user', 'delete', 'root'], fails: true },
  { name: 'root cannot lose role root while auth is on', args: [...ROOT, 'user', 'revoke-role', 'root', 'root'], fails: true },
]

const afterRestart: readonly Case[] = [
  { name: 'auth is still on: get without --user fails', args: ['get', 'k'], fails: true },
  { name: 'users survive', args: [...ROOT, 'user', 'list'] },
  { name: 'roles survive', args: [...ROOT, 'role', 'list'] },
  { name: 'permissions survive', args: [...ROOT, 'role', 'get', 'prefixer'] },
  { name: 'from-key permissions survive', args: [...ROOT, 'role', 'get', 'fromer'] },
  { name: 'granted roles survive', args: [...ROOT, 'user', 'get', 'alice'] },
  { name: 'passwords survive', args: [...BOB, 'get', 'k'], fails: true },
  { name: 'alice reads k', args: [...ALICE, 'get', 'k'] },
  { name: 'alice still cannot write k', args: [...ALICE, 'put', 'k', 'v9'], fails: true },
  { name: 'a user without a password still cannot log in', args: ['--user', 'nopass:x', 'get', 'k'], fails: true },
]

describe('etcdctl user, role and auth commands, and --user: etcdlite answers as etcd does', { skip }, () => {
  let sides: Side[] = []
  let dirs: Awaited<ReturnType<typeof tempDir>>[] = []

  before(async () => {
    const [files, ours] = await Promise.all([tempDir('etcdctl-auth-'), tempDir('etcdctl-auth-data-')])
    dirs = [files, ours]
    const [refProc, ourProc] = await Promise.all([startReferenceEtcd(BCRYPT), startEtcdliteProcess({ dataDir: ours.path, args: OURS })])
    sides = [
      { name: 'etcd', proc: refProc, dir: refProc.dataDir ?? '', snapshot: join(files.path, 'etcd.db') },
      { name: 'etcdlite', proc: ourProc, dir: ours.path, snapshot: join(files.path, 'etcdlite.db') },
    ]
  })

  after(async () => {
    await Promise.all(sides.map((s) => s.proc.dispose()))
    await Promise.all(dirs.map((d) => d.remove()))
  })

  /** Run a case on both servers at once; etcd's answer must have the expected outcome and etcdlite's match it. */
  async function compare(c: Case): Promise<void> {
    const [ref, ours] = sides
    if (ref === undefined || ours === undefined) throw new Error('servers did not start')
    const argsOf = (s: Side): readonly string[] => (typeof c.args === 'function' ? c.args(s) : c.args)
    const [want, got] = await Promise.all([etcdctl(ref.proc.endpoint, argsOf(ref), c.stdin), etcdctl(ours.proc.endpoint, argsOf(ours), c.stdin)])
    assert.equal(want.code !== 0, c.fails === true, `etcd itself: expected ${c.fails === true ? 'a failure' : 'success'}: ${want.stdout}${want.stderr}`)
    assert.deepStrictEqual(normalize(got, ours), normalize(want, ref), `etcdctl ${argsOf(ours).join(' ')}`)
  }

  for (const c of users) it(c.name, () => compare(c))
  for (const c of enforced) it(c.name, () => compare(c))

  it('restart with auth on: users, roles, permissions and the enabled flag survive; an etcdlite token from before does not', async () => {
    // A token of alice's, taken over raw gRPC before the restart.
    const tokens: string[] = []
    for (const s of sides) {
      const c = rawTestClient(s.proc.endpoint, () => Promise.resolve())
      try {
        tokens.push((await c.authenticate({ name: 'alice', password: 'apw' })).token)
      } finally {
        await c.close()
      }
    }
    const [ref, ours] = sides
    if (ref === undefined || ours === undefined) throw new Error('servers did not start')
    await Promise.all(sides.map((s) => s.proc.stop('SIGTERM')))
    // etcd takes the last --data-dir given: its first data dir (its own temp dir is then left empty).
    const [refProc, ourProc] = await Promise.all([
      startReferenceEtcd([...BCRYPT, '--data-dir', ref.dir]),
      startEtcdliteProcess({ dataDir: ours.dir, args: OURS }),
    ])
    const oldRef = ref.proc
    ref.proc = refProc
    ours.proc = ourProc
    dirs.push({ path: ref.dir, remove: () => oldRef.dispose() })
    const outcomes: unknown[] = []
    for (const [i, s] of sides.entries()) {
      const c = rawTestClient(s.proc.endpoint, () => Promise.resolve(), tokens[i])
      try {
        await c.range({ key: Buffer.from('k') })
        outcomes.push('ok')
      } catch (e) {
        if (!(e instanceof ClientError)) throw e
        outcomes.push({ code: e.code, message: e.message })
      } finally {
        await c.close()
      }
    }
    const invalid = { code: Number(grpcStatus.UNAUTHENTICATED), message: 'etcdserver: invalid auth token' }
    assert.deepStrictEqual(outcomes, ['ok', invalid], 'the old token on etcd (WAL replay) and on etcdlite')
    for (const c of afterRestart) await compare(c)
  })
})
