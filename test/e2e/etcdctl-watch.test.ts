// `etcdctl watch` (3.4, ETCDCTL_API=3) against the real etcd and against the etcdlite CLI: the same
// scenario on two fresh servers, in lockstep (every write goes to both, so revisions line up), and the
// output of the two etcdctl processes compared. WATCH_DIFF_AGAINST=etcd runs the other side as a second
// real etcd, which proves the harness.
//
// etcdctl watch runs until killed and says nothing when its watch is established. A watch from a given
// revision (--rev) needs no signal: history is replayed whenever it starts, and the test waits for the
// replay before writing more, so even the batching of the replay is deterministic. A watch from "now"
// is established by sentinel writes: put "sync" on a watched key (on both servers) until both outputs
// show it, then put "synced" and wait for that (one watcher prints in order, so nothing of the sentinel
// rounds can arrive later); the leading sentinel events are cut from both outputs before comparing. Then
// each scenario write is followed by a wait for the events it must print, so several watchers of one
// process (interactive mode) print in a fixed order. Last, a "fence" put per watcher, awaited until fully
// printed (etcdctl prints an event line by line), and both processes are killed; unless etcdctl exits by
// itself (compacted, refused), in which case its exit code is compared too. stdout and stderr are always
// compared. Normalized away: header cluster_id/member_id (JSON and `-w fields`).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { rawClient, type RawClient } from '../helpers/grpc-client.js'
import { haveEtcd, haveEtcdctl, startEtcdliteProcess, startReferenceEtcd, type ServerProcess } from '../helpers/processes.js'
import { stderrLines } from '../helpers/etcdctl.js'

const AGAINST = process.env['WATCH_DIFF_AGAINST'] === 'etcd' ? 'etcd' : 'etcdlite'
const skip = !haveEtcdctl() ? 'etcdctl is not on PATH' : !haveEtcd() ? 'the reference `etcd` binary is not on PATH' : false

/** The reference prints within this; etcdlite gets the same before the comparison shows what is missing. */
const OUTPUT_TIMEOUT_MS = 10_000
const SYNC = 'sync'
const SYNCED = 'synced'

type Format = 'simple' | 'json' | 'fields'

// One etcdctl watch process

class CtlWatch {
  private readonly proc: ChildProcessWithoutNullStreams
  stdout = ''
  stderr = ''
  private exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined
  private readonly exited: Promise<void>
  private wake: (() => void) | undefined

  constructor(endpoint: string, args: readonly string[], stdin: string | undefined) {
    this.proc = spawn('etcdctl', [`--endpoints=${endpoint}`, '--dial-timeout=3s', 'watch', ...args], {
      env: { ...process.env, ETCDCTL_API: '3' },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    this.proc.stdout.on('data', (d: Buffer) => {
      this.stdout += d.toString()
      this.wake?.()
    })
    this.proc.stderr.on('data', (d: Buffer) => {
      this.stderr += d.toString()
      this.wake?.()
    })
    this.exited = new Promise((resolve) => {
      this.proc.on('close', (code, signal) => {
        this.exitInfo = { code, signal }
        this.wake?.()
        resolve()
      })
    })
    // Interactive mode reads commands from stdin and exits at EOF: keep it open until the process is killed.
    if (stdin !== undefined) this.proc.stdin.write(stdin)
    else this.proc.stdin.end()
  }

  get exit(): { code: number | null; signal: NodeJS.Signals | null } | undefined {
    return this.exitInfo
  }

  /** Resolve true once cond() holds (checked after every output), false after timeoutMs or once it exits. */
  async until(cond: () => boolean, timeoutMs = OUTPUT_TIMEOUT_MS): Promise<boolean> {
    const deadline = Date.now() + timeoutMs
    while (!cond()) {
      const left = deadline - Date.now()
      if (left <= 0 || this.exitInfo !== undefined) return cond()
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, left)
        function done(): void {
          clearTimeout(timer)
          resolve()
        }
        this.wake = done
      })
      this.wake = undefined
    }
    return true
  }

  /** Wait for it to exit by itself. */
  async waitExit(timeoutMs = OUTPUT_TIMEOUT_MS): Promise<boolean> {
    return this.until(() => this.exitInfo !== undefined, timeoutMs)
  }

  async kill(): Promise<void> {
    if (this.exitInfo === undefined) this.proc.kill('SIGKILL')
    this.proc.stdin.destroy()
    await this.exited
  }
}

// Reading etcdctl's watch output

/** Lines etcdctl has finished writing (a last line without its newline is still on its way). */
const completeLines = (out: string): string[] => out.split('\n').slice(0, -1)

/** Events printed so far: simple: "PUT"/"DELETE" lines; json: events of each response line; fields: '"Type" :' lines. */
function eventCount(format: Format, out: string): number {
  const lines = completeLines(out)
  switch (format) {
    case 'simple': return lines.filter((l) => l === 'PUT' || l === 'DELETE').length
    case 'fields': return lines.filter((l) => l.startsWith('"Type" :')).length
    case 'json': return lines.reduce((n, l) => n + jsonEvents(l).length, 0)
  }
}

interface JsonEvent {
  readonly type: 'PUT' | 'DELETE'
  readonly key: string
  readonly value: string
}

/** The events of one `-w json` line (a WatchResponse; keys and values base64, DELETE as type 1). */
function jsonEvents(line: string): JsonEvent[] {
  let resp: unknown
  try {
    resp = JSON.parse(line)
  } catch {
    return []
  }
  const evs = (resp as { Events?: unknown } | null)?.Events
  if (!Array.isArray(evs)) return []
  return evs.map((e: unknown) => {
    const ev = e as { type?: number; kv?: { key?: string; value?: string } }
    const text = (x: string | undefined): string => Buffer.from(x ?? '', 'base64').toString()
    return { type: ev.type === 1 ? 'DELETE' : 'PUT', key: text(ev.kv?.key), value: text(ev.kv?.value) }
  })
}

/** Has every watcher of the process printed the sentinel `value` (on its key)? */
function printed(format: Format, out: string, keys: readonly string[], value: string): boolean {
  const lines = completeLines(out)
  switch (format) {
    // An event prints its type, [prev key, prev value,] key and value, one per line.
    case 'simple': return keys.every((k) => lines.some((l, i) => l === value && lines[i - 1] === k))
    case 'json': return keys.every((k) => lines.some((l) => jsonEvents(l).some((e) => e.type === 'PUT' && e.key === k && e.value === value)))
    // A kv prints Key, CreateRevision, ModRevision, Version, Value, Lease: wait for the Lease after the Value.
    case 'fields': return keys.every((k) => lines.some((l, i) => l === `"Value" : "${value}"` && lines[i - 4] === `"Key" : "${k}"` && lines[i + 1]?.startsWith('"Lease" :') === true))
  }
}

const isSentinelValue = (v: string | undefined): boolean => v === SYNC || v === SYNCED

/** stdout without the leading sentinel events (how many there are depends on when the watch started). */
function withoutSentinels(format: Format, out: string): string {
  const lines = out.split('\n')
  let i = 0
  if (format === 'json') {
    while (i < lines.length) {
      const evs = jsonEvents(lines[i] ?? '')
      if (evs.length === 0 || !evs.every((e) => e.type === 'PUT' && isSentinelValue(e.value))) break
      i++
    }
  } else if (format === 'simple') {
    // Whole leading PUT events whose (last) value line is a sentinel.
    while (lines[i] === 'PUT') {
      let j = i + 1
      while (j < lines.length && lines[j] !== 'PUT' && lines[j] !== 'DELETE') j++
      const valueLine = j === lines.length ? lines[j - 2] : lines[j - 1]
      if (!isSentinelValue(valueLine)) break
      i = j
    }
  }
  return lines.slice(i).join('\n')
}

const IDS = new Set(['cluster_id', 'member_id'])

function stripIds(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stripIds)
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).filter(([k]) => !IDS.has(k)).map(([k, x]) => [k, stripIds(x)]))
  return v
}

function normStdout(format: Format, out: string): unknown {
  const s = withoutSentinels(format, out)
  switch (format) {
    case 'simple': return s
    // cluster_id/member_id exceed 2^53 and lose precision in JSON.parse, which does not matter: they are dropped.
    case 'json': return s.split('\n').filter((l) => l !== '').map((l) => {
      try {
        return stripIds(JSON.parse(l))
      } catch {
        return l
      }
    })
    case 'fields': return s.split('\n').filter((l) => !/^"(ClusterID|MemberID)" : /.test(l))
  }
}

const normStderr = stderrLines

// The scenarios

type Write = { readonly put: string; readonly value: string } | { readonly del: string; readonly end?: string }

interface Step {
  readonly write: Write
  /** Events this write must print (0: outside the watch; a later printed event proves it was seen). */
  readonly events: number
}

interface Ctx {
  /** Current revision (the same on both servers). */
  readonly rev: number
}

interface Case {
  readonly name: string
  readonly format: Format
  /** Writes before the watch starts. */
  readonly history?: readonly Write[]
  /** After the history, compact (physically) at the current revision minus this many revisions. */
  readonly compactBack?: number
  /** Arguments after `watch`; `ctx.rev` is the revision after the history (and compaction). */
  readonly args: (ctx: Ctx) => readonly string[]
  /** Interactive mode: lines written to stdin (kept open). */
  readonly stdin?: string
  /** One key inside each watch of the process: sentinels and the final fence are put there. */
  readonly keys?: readonly string[]
  /** The watch starts from "now" and must be established with sentinels first (not for --rev watches). */
  readonly establish?: boolean
  /** Events replayed from history before any live write. */
  readonly replay?: number
  readonly steps?: readonly Step[]
  /** The fence has been fully printed (default: the fence event's last line for the format). */
  readonly fenced?: (stdout: string) => boolean
  /** etcdctl ends by itself: compare its exit code as well. */
  readonly exits?: boolean
}

const put = (key: string, value: string): Write => ({ put: key, value })
const del = (key: string, end?: string): Write => (end === undefined ? { del: key } : { del: key, end })
const step = (write: Write, events: number): Step => ({ write, events })

const cases: readonly Case[] = [
  {
    name: 'watch a key',
    format: 'simple',
    args: () => ['w1'],
    keys: ['w1'],
    establish: true,
    steps: [step(put('w1', 'v1'), 1), step(put('w1x', 'no'), 0), step(del('w1'), 1), step(del('w1'), 0), step(put('w1', 'v2'), 1)],
  },
  {
    name: 'watch --prefix',
    format: 'simple',
    args: () => ['--prefix', 'p/'],
    keys: ['p/sync'],
    establish: true,
    steps: [
      step(put('p/a', '1'), 1), step(put('p', 'no'), 0), step(put('p/b/c', '2'), 1),
      // One delete of three keys: one response, three events.
      step(del('p/a', 'p0'), 3), step(put('q', 'no'), 0), step(put('p/z', '3'), 1),
    ],
  },
  {
    name: 'watch a range [key, end)',
    format: 'simple',
    args: () => ['r1', 'r5'],
    keys: ['r2'],
    establish: true,
    steps: [step(put('r0', 'no'), 0), step(put('r1', '1'), 1), step(put('r3', '3'), 1), step(put('r5', 'no'), 0), step(put('r4x', '4'), 1)],
  },
  {
    name: 'watch --prev-kv',
    format: 'simple',
    args: () => ['--prev-kv', 'pk'],
    keys: ['pk'],
    establish: true,
    steps: [step(put('pk', 'v1'), 1), step(put('pk', 'v2'), 1), step(del('pk'), 1), step(put('pk', 'v3'), 1)],
  },
  {
    name: 'watch -w json: headers and one response per revision',
    format: 'json',
    args: () => ['--prefix', 'j/', '-w', 'json'],
    keys: ['j/s'],
    establish: true,
    steps: [step(put('j/a', '1'), 1), step(del('j/', 'j0'), 2), step(put('j/b', '2'), 1)],
  },
  {
    name: 'watch --rev replays history as one response, then live events (-w json)',
    format: 'json',
    history: [put('h', '1'), put('h', '2'), put('hx', 'no'), del('h'), put('h', '3')],
    args: (c) => ['--rev', String(c.rev - 4), 'h', '-w', 'json'],
    keys: ['h'],
    replay: 4,
    steps: [step(put('h', '4'), 1), step(del('h'), 1)],
  },
  {
    name: 'watch --rev --prefix --prev-kv (-w fields)',
    format: 'fields',
    history: [put('f/1', 'a'), put('f/2', 'b'), put('f/1', 'c'), del('f/2')],
    args: (c) => ['--rev', String(c.rev - 2), '--prefix', 'f/', '--prev-kv', '-w', 'fields'],
    keys: ['f/1'],
    replay: 3,
    steps: [step(put('f/3', 'd'), 1)],
  },
  {
    name: 'watch --rev in the future waits for it',
    format: 'simple',
    args: (c) => ['--rev', String(c.rev + 3), 'fut'],
    keys: ['fut'],
    steps: [step(put('fut', 'early1'), 0), step(put('fut', 'early2'), 0), step(put('fut', 'at'), 1), step(put('fut', 'after'), 1)],
  },
  {
    name: 'watch --rev with an exec command sees the response revision',
    format: 'simple',
    history: [put('ex', '1'), put('ex', '2')],
    args: (c) => ['--rev', String(c.rev - 1), 'ex', '--', 'sh', '-c', 'echo "exec $ETCD_WATCH_REVISION $ETCD_WATCH_EVENT_TYPE $ETCD_WATCH_KEY $ETCD_WATCH_VALUE"'],
    keys: ['ex'],
    replay: 2,
    steps: [step(put('ex', '3'), 1)],
    // The command runs after the event is printed; its line names the value quoted.
    fenced: (out) => completeLines(out).some((l) => l.startsWith('exec ') && l.endsWith('"fence"')),
  },
  {
    name: 'watch -i (interactive): two watches and an invalid command',
    format: 'simple',
    args: () => ['-i'],
    stdin: 'watch ia\nnot-a-command\nwatch --prefix ib/\n',
    keys: ['ia', 'ib/s'],
    establish: true,
    steps: [step(put('ia', '1'), 1), step(put('ib/x', '2'), 1), step(put('ic', 'no'), 0), step(del('ia'), 1), step(put('ib/y', '3'), 1)],
  },
  // Not compared here: a watch from exactly the compact revision. etcd 3.4.23 loses a delete at that
  // revision (fixed by etcd-io/etcd#18274); etcdlite follows the fix, so the outputs differ on purpose.
  // The compliance suite checks etcdlite's behaviour ('a watch from the compact revision sees its delete').
  {
    name: 'watch --rev below the compact revision: canceled, exit 5',
    format: 'simple',
    history: [put('cp', '1'), put('cp', '2'), put('cp', '3')],
    compactBack: 0,
    args: (c) => ['--rev', String(c.rev - 2), 'cp'],
    exits: true,
  },
  {
    name: 'watch an empty range (key >= end): canceled, exit 5',
    format: 'simple',
    args: () => ['zz', 'za'],
    exits: true,
  },
]

// Running a case on both servers

class Pair {
  readonly ref: RawClient
  readonly ours: RawClient
  rev = 1

  constructor(refEndpoint: string, oursEndpoint: string) {
    this.ref = rawClient(refEndpoint)
    this.ours = rawClient(oursEndpoint)
  }

  /** The same write on both servers; they must agree on the resulting revision. */
  async write(w: Write): Promise<void> {
    const call = (c: RawClient): Promise<Record<string, unknown>> => ('put' in w
      ? c.kv.Put({ key: Buffer.from(w.put), value: Buffer.from(w.value) })
      : c.kv.DeleteRange({ key: Buffer.from(w.del), ...(w.end === undefined ? {} : { range_end: Buffer.from(w.end) }) }))
    const [r, o] = await Promise.all([call(this.ref), call(this.ours)])
    const rev = (x: Record<string, unknown>): number => Number((x['header'] as Record<string, unknown> | undefined)?.['revision'])
    assert.equal(rev(o), rev(r), `${AGAINST} and etcd disagree on the revision after ${JSON.stringify(w)}`)
    this.rev = rev(r)
  }

  async compact(revision: number): Promise<void> {
    await Promise.all([this.ref.kv.Compact({ revision: String(revision), physical: true }), this.ours.kv.Compact({ revision: String(revision), physical: true })])
  }

  close(): void {
    this.ref.close()
    this.ours.close()
  }
}

/**
 * Establish watches from "now": rounds of "sync" puts on every key until both processes printed one for
 * each, then one "synced" put per key and a wait for it (after it, no sentinel of the rounds can follow).
 */
async function establish(pair: Pair, c: Case, ref: CtlWatch, ours: CtlWatch): Promise<void> {
  const keys = c.keys ?? []
  const seen = (w: CtlWatch): boolean => printed(c.format, w.stdout, keys, SYNC)
  for (let round = 0, wait = 50; round < 20 && !(seen(ref) && seen(ours)); round++, wait = Math.min(wait * 2, 400)) {
    for (const k of keys) await pair.write(put(k, SYNC))
    await Promise.all([ref.until(() => seen(ref), wait), ours.until(() => seen(ours), wait)])
  }
  if (!seen(ref)) throw new Error(`harness: etcd's etcdctl watch never printed a sentinel\n${ref.stdout}\n${ref.stderr}`)
  for (const k of keys) await pair.write(put(k, SYNCED))
  const synced = (w: CtlWatch): boolean => printed(c.format, w.stdout, keys, SYNCED)
  if (!(await ref.until(() => synced(ref)))) throw new Error(`harness: etcd's etcdctl watch did not print the last sentinel\n${ref.stdout}`)
  await ours.until(() => synced(ours))
}

async function runCase(pair: Pair, refEndpoint: string, oursEndpoint: string, c: Case): Promise<{ ref: CtlWatch; ours: CtlWatch }> {
  for (const w of c.history ?? []) await pair.write(w)
  if (c.compactBack !== undefined) await pair.compact(pair.rev - c.compactBack)
  const args = c.args({ rev: pair.rev })
  const ref = new CtlWatch(refEndpoint, args, c.stdin)
  const ours = new CtlWatch(oursEndpoint, args, c.stdin)
  try {
    if (c.exits === true) {
      if (!(await ref.waitExit())) throw new Error(`harness: etcd's etcdctl watch did not exit\n${ref.stdout}\n${ref.stderr}`)
      await ours.waitExit()
      return { ref, ours }
    }
    if (c.establish === true) await establish(pair, c, ref, ours)
    // Count on from what each printed so far (the number of sentinel events differs).
    let wantRef = eventCount(c.format, ref.stdout) + (c.replay ?? 0)
    let wantOurs = eventCount(c.format, ours.stdout) + (c.replay ?? 0)
    const waitBoth = async (what: string): Promise<void> => {
      const [r, o] = [wantRef, wantOurs]
      if (!(await ref.until(() => eventCount(c.format, ref.stdout) >= r))) {
        throw new Error(`harness: etcd's etcdctl watch printed ${eventCount(c.format, ref.stdout)} of ${r} events (${what})\n${ref.stdout}\n${ref.stderr}`)
      }
      await ours.until(() => eventCount(c.format, ours.stdout) >= o)
    }
    await waitBoth('replay')
    for (const s of c.steps ?? []) {
      await pair.write(s.write)
      wantRef += s.events
      wantOurs += s.events
      if (s.events > 0) await waitBoth(JSON.stringify(s.write))
    }
    // The fence: one more event per watcher, each awaited until printed completely (so nothing before it
    // is cut off by the kill, and the watchers of an interactive session print in a fixed order).
    for (const [i, k] of (c.keys ?? []).entries()) {
      await pair.write(put(k, 'fence'))
      const fenced = c.fenced ?? ((out: string): boolean => printed(c.format, out, (c.keys ?? []).slice(0, i + 1), 'fence'))
      if (!(await ref.until(() => fenced(ref.stdout)))) throw new Error(`harness: etcd's etcdctl watch did not print the fence\n${ref.stdout}\n${ref.stderr}`)
      await ours.until(() => fenced(ours.stdout))
    }
    return { ref, ours }
  } finally {
    await Promise.all([ref.kill(), ours.kill()])
  }
}

function view(c: Case, w: CtlWatch): unknown {
  const out: Record<string, unknown> = { stdout: normStdout(c.format, w.stdout), stderr: normStderr(w.stderr) }
  if (c.exits === true) out['exit'] = w.exit?.code ?? `signal ${String(w.exit?.signal)}`
  return out
}

describe(`etcdctl watch against ${AGAINST} and etcd gives the same output`, { skip }, () => {
  let refServer: ServerProcess | undefined
  let ourServer: ServerProcess | undefined
  let pair: Pair | undefined

  before(async () => {
    ;[refServer, ourServer] = await Promise.all([startReferenceEtcd(), AGAINST === 'etcd' ? startReferenceEtcd() : startEtcdliteProcess({ memory: true })])
    pair = new Pair(refServer.endpoint, ourServer.endpoint)
  })

  after(async () => {
    pair?.close()
    await Promise.all([refServer?.dispose(), ourServer?.dispose()])
  })

  // Cases run in order on both servers; each sees the state the earlier ones left.
  for (const c of cases) {
    it(c.name, { timeout: 60_000 }, async () => {
      if (pair === undefined || refServer === undefined || ourServer === undefined) throw new Error('servers did not start')
      const { ref, ours } = await runCase(pair, refServer.endpoint, ourServer.endpoint, c)
      if (c.exits === true) assert.equal(ref.exit?.code, 5, `etcd's etcdctl should exit 5 (watch canceled by the server): ${ref.stderr}`)
      else assert.ok(eventCount(c.format, withoutSentinels(c.format, ref.stdout)) > 0, `etcd's etcdctl printed no scenario event:\n${ref.stdout}`)
      assert.deepStrictEqual(view(c, ours), view(c, ref), `etcdctl watch ${c.args({ rev: pair.rev }).join(' ')} (stdin ${JSON.stringify(c.stdin ?? '')})`)
    })
  }
})
