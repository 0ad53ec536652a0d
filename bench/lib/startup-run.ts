// The start-up workload (`startup-1m`): fill a fresh server with N keys from a load process
// (bench/startup-loader.ts), read its RSS, kill it with SIGKILL and start it again on the same data dir (a
// crash start), stop that one with SIGTERM and start it once more (a clean start), timing each start until
// a Range for a loaded key answers; then RSS with the restored index. Also the protocol
// between the runner and the loader (a JSON config on argv, markers on stderr, one JSON result on stdout),
// the summary over rounds and the table.
//
// Servers are launched here, not through servers.ts, because servers.ts always makes a fresh data dir and
// removes it on dispose, and keeps no spawn time. The launch arguments are the same as servers.ts's (etcd's
// come from test/helpers/processes.ts startReferenceEtcd); see `launch` for what would remove the copy.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import * as grpc from '@grpc/grpc-js'
import { lenFieldSize, Reader, WIRE_LEN, WIRE_VARINT, writeBytesField, writeVarintField } from '../../src/pkg/proto-wire.js'
import { etcdServingAddress, referenceEtcdArgs } from '../../test/helpers/processes.js'
import { LoadProcess } from './child.js'
import { etcdliteArgs, etcdliteServingAddress, processCpuSeconds, processRssMiB, teeOutput, type EtcdliteLaunch, type ServerName } from './servers.js'
import { median } from './stats.js'
import { fmt, present, printRows, ratio } from './table.js'

const LOADER_JS = fileURLToPath(new URL('../startup-loader.js', import.meta.url))

// ---------------------------------------------------------------------------------------------------
// The workload and the loader protocol

/** The workload's name in run.ts and its default key count (--startup-keys overrides it). */
export const STARTUP_WORKLOAD = { name: 'startup-1m', keys: 1_000_000 } as const

/** Puts per Txn: etcd's --max-txn-ops default (etcdlite's too). */
export const STARTUP_OPS_PER_TXN = 128
/** Txns in flight and the TCP connections they are spread over while loading. */
export const STARTUP_IN_FLIGHT = 16
export const STARTUP_CONNECTIONS = 4
/** Value size of the loaded keys, in bytes. */
export const STARTUP_VALUE_SIZE = 64
/** The loaded keys' one-byte prefix; the count check after the restart ranges over it. */
export const STARTUP_KEY_PREFIX = 's'

/** Loader markers on stderr: the first txn is about to go, and the last one has answered. */
export const MARK_LOAD_START = '@load-start'
export const MARK_LOAD_DONE = '@load-done'

export interface StartupLoaderConfig {
  readonly endpoint: string
  readonly keys: number
  readonly keySize: number
  readonly valueSize: number
  readonly keyPrefix: string
  readonly opsPerTxn: number
  readonly inFlight: number
  readonly connections: number
}

/** What bench/startup-loader.ts prints (one JSON object on stdout). */
export interface StartupLoaderResult {
  readonly keys: number
  readonly txns: number
  /** Txns sent again after UNAVAILABLE / RESOURCE_EXHAUSTED. */
  readonly retries: number
  /** From the first txn sent to the last one answered. */
  readonly seconds: number
  readonly keysPerSec: number
  readonly clientCpuSeconds: number
  /** Index of the key written last (the one the runner probes after the restart). */
  readonly probeIndex: number
}

/** Key `index` of exactly `size` bytes: the prefix and a zero-padded decimal index (as bench/client.ts). */
export function startupKey(prefix: string, index: number, size: number): Buffer {
  const digits = String(index)
  if (digits.length + prefix.length > size) throw new Error(`key size ${size} is too small for key index ${index}`)
  return Buffer.from(prefix + digits.padStart(size - prefix.length, '0'), 'latin1')
}

/**
 * Key `index`'s value: `size` pseudo-random bytes seeded by the index (so the runner can check a value it
 * did not write, and LevelDB's Snappy compression gains nothing a real payload would not give it).
 */
export function startupValue(index: number, size: number): Buffer {
  const out = Buffer.allocUnsafe(size)
  let s = (index ^ 0x9e3779b9) >>> 0
  for (let i = 0; i < size; i++) {
    // xorshift32: cheap and good enough to be incompressible.
    s ^= s << 13
    s >>>= 0
    s ^= s >>> 17
    s ^= s << 5
    s >>>= 0
    out[i] = s & 0xff
  }
  return out
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b]
  return a
}

/**
 * The write order: the seq-th key written is key `order(seq)`, a permutation of 0..keys-1 that jumps
 * through the key space (stride ≈ 0.618 × keys, coprime with keys), so each txn's puts land all over it as
 * real keys do, rather than appending in key order (the best case for both B-trees and LevelDB).
 */
export function writeOrder(keys: number): (seq: number) => number {
  let stride = Math.max(1, Math.floor(keys * 0.6180339887))
  while (gcd(stride, keys) !== 1) stride++
  // seq × stride stays below 2^53 for any key count a machine can hold.
  return (seq) => (seq * stride) % keys
}

// ---------------------------------------------------------------------------------------------------
// Launching a server on a given data dir

/** How the two servers are started: the same flags as bench/lib/servers.ts. */
export interface StartupParams {
  /** Keys to load (default STARTUP_WORKLOAD.keys). */
  readonly keys: number
  readonly keySize: number
  /** Value size (default STARTUP_VALUE_SIZE). */
  readonly valueSize: number
  /** Extra etcd flags (run.ts --etcd-args). */
  readonly etcdArgs: readonly string[]
  /** etcdlite node flags, extra flags and script (run.ts --etcdlite-node-args, --etcdlite-args, --etcdlite-bin). */
  readonly etcdlite: EtcdliteLaunch
  /** Progress lines (stderr in run.ts). */
  readonly log?: (msg: string) => void
}

/** A server process started by `launch`, with its timings on the performance.now() clock. */
interface Launched {
  readonly proc: ChildProcess
  readonly pid: number
  readonly endpoint: string
  readonly spawnedAt: number
  /** When the process said it serves clients (the "serving client traffic" log line both write). */
  readonly readyAt: number
}

/** Server processes and data dirs of runs in progress, for the exit paths. */
const liveProcs = new Set<ChildProcess>()
const liveDirs = new Set<string>()

/** SIGKILL every server this module started and remove its data dirs (for run.ts's exit paths). */
export function killStartupServersSync(): void {
  for (const p of liveProcs) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL')
  for (const d of liveDirs) rmSync(d, { recursive: true, force: true })
}

const READY_TIMEOUT_MS = 300_000

/**
 * Start `kind` on `dataDir` (empty: a new member; otherwise a restart on its data) with the flags the tests'
 * reference etcd and the bench's etcdlite use, and resolve when it says it serves, with the bound client
 * address (every listener is on port 0). Unlike servers.ts, the caller owns the data dir, which outlives
 * the process.
 */
async function launch(kind: ServerName, dataDir: string, p: StartupParams): Promise<Launched> {
  const spawnedAt = performance.now()
  const proc = kind === 'etcd'
    ? spawn('etcd', referenceEtcdArgs(dataDir, p.etcdArgs), { stdio: ['ignore', 'ignore', 'pipe'] })
    : spawn(process.execPath, etcdliteArgs(p.etcdlite, dataDir), { stdio: ['ignore', 'pipe', 'pipe'] })
  if (kind === 'etcdlite') teeOutput(proc, p.etcdlite)
  liveProcs.add(proc)
  proc.once('exit', () => liveProcs.delete(proc))
  let tail = ''
  try {
    const endpoint = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ready line within ${READY_TIMEOUT_MS / 1000} s`)), READY_TIMEOUT_MS)
      const settle = (f: () => void): void => {
        clearTimeout(timer)
        f()
      }
      proc.once('exit', (code) => settle(() => reject(new Error(`exited with ${String(code)} before serving`))))
      if (proc.stderr === null) throw new Error('stderr is not piped')
      createInterface({ input: proc.stderr }).on('line', (line) => {
        tail = (tail + line + '\n').slice(-4000)
        const address = kind === 'etcd' ? etcdServingAddress(line) : etcdliteServingAddress(line)
        if (address !== undefined) settle(() => resolve(address))
      })
      if (proc.stdout !== null) {
        createInterface({ input: proc.stdout }).on('line', (line) => {
          const address = etcdliteServingAddress(line)
          if (address !== undefined) settle(() => resolve(address))
        })
      }
    })
    const readyAt = performance.now()
    if (proc.pid === undefined) throw new Error('no pid')
    return { proc, pid: proc.pid, endpoint, spawnedAt, readyAt }
  } catch (e) {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL')
    throw new Error(`${kind} did not start on ${dataDir}: ${e instanceof Error ? e.message : String(e)}\n${tail}`, { cause: e })
  }
}

const STOP_GRACE_MS = 120_000

/**
 * SIGTERM and wait for the exit (SIGKILL after STOP_GRACE_MS). Resolves with the seconds it took and whether
 * the stop was clean: exit code 0, or death by the SIGTERM itself (etcd re-raises it after its shutdown
 * handlers have run), and not our SIGKILL.
 */
async function stop(s: Launched): Promise<{ seconds: number; clean: boolean }> {
  const t0 = performance.now()
  if (s.proc.exitCode !== null || s.proc.signalCode !== null) return { seconds: 0, clean: false }
  const exit = once(s.proc, 'exit') as Promise<[number | null, NodeJS.Signals | null]>
  s.proc.kill('SIGTERM')
  let killed = false
  const timer = setTimeout(() => {
    killed = true
    s.proc.kill('SIGKILL')
  }, STOP_GRACE_MS)
  try {
    const [code, signal] = await exit
    return { seconds: round3((performance.now() - t0) / 1000), clean: !killed && (code === 0 || signal === 'SIGTERM') }
  } finally {
    clearTimeout(timer)
  }
}

// ---------------------------------------------------------------------------------------------------
// Range probes over raw gRPC (no protobufjs in the runner's timing path)

const RANGE_METHOD = '/etcdserverpb.KV/Range'
const PROBE_INTERVAL_MS = 10
const PROBE_DEADLINE_MS = 1000
const PROBE_TIMEOUT_MS = 300_000

/** `RangeRequest{key, range_end?, count_only?}`. */
function encodeRange(key: Uint8Array, rangeEnd?: Uint8Array, countOnly = false): Buffer {
  const size = lenFieldSize(key.length) + (rangeEnd === undefined ? 0 : lenFieldSize(rangeEnd.length)) + (countOnly ? 2 : 0)
  const out = Buffer.allocUnsafe(size)
  let pos = writeBytesField(out, 0, 1, key)
  if (rangeEnd !== undefined) pos = writeBytesField(out, pos, 2, rangeEnd)
  if (countOnly) pos = writeVarintField(out, pos, 9, 1)
  if (pos !== size) throw new Error(`encodeRange: wrote ${pos} of ${size} bytes`)
  return out
}

/** The values of a RangeResponse's kvs (KeyValue.value, field 5) and its count (field 4). */
function decodeRange(buf: Buffer): { values: Uint8Array[]; count: number } {
  const r = new Reader(buf)
  const values: Uint8Array[] = []
  let count = 0
  while (!r.done) {
    const tag = r.varint()
    if (tag >>> 3 === 2 && (tag & 7) === WIRE_LEN) {
      const kv = new Reader(r.bytes())
      let value: Uint8Array = new Uint8Array(0)
      while (!kv.done) {
        const t = kv.varint()
        if (t >>> 3 === 5 && (t & 7) === WIRE_LEN) value = kv.bytes()
        else kv.skip(t & 7)
      }
      values.push(value)
    } else if (tag >>> 3 === 4 && (tag & 7) === WIRE_VARINT) count = r.varint()
    else r.skip(tag & 7)
  }
  return { values, count }
}

function rangeCall(client: grpc.Client, req: Buffer, deadlineMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest<Buffer, Buffer>(RANGE_METHOD, (b) => b, (b) => b, req, { deadline: Date.now() + deadlineMs }, (err, res) => {
      if (err !== null) reject(err)
      else if (res === undefined) reject(new Error('range: no response'))
      else resolve(res)
    })
  })
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Poll Range(key) every PROBE_INTERVAL_MS until it returns `value`; resolves with the performance.now()
 * time of that answer and the number of attempts. A failed or empty answer is retried; a wrong value throws.
 */
async function probeUntilServed(client: grpc.Client, key: Buffer, value: Buffer): Promise<{ at: number; attempts: number }> {
  const req = encodeRange(key)
  const giveUp = performance.now() + PROBE_TIMEOUT_MS
  for (let attempts = 1; ; attempts++) {
    try {
      const { values } = decodeRange(await rangeCall(client, req, PROBE_DEADLINE_MS))
      const got = values[0]
      if (got !== undefined) {
        if (!value.equals(got)) throw new Error(`probe: key ${key.toString('latin1')} has the wrong value`)
        return { at: performance.now(), attempts }
      }
    } catch (e) {
      if (e instanceof Error && e.message.startsWith('probe:')) throw e
    }
    if (performance.now() > giveUp) throw new Error(`probe: key ${key.toString('latin1')} not served within ${PROBE_TIMEOUT_MS / 1000} s`)
    await sleep(PROBE_INTERVAL_MS)
  }
}

/** Count-only Range over every key with `prefix` (a one-byte prefix below 0xff). */
async function countKeys(client: grpc.Client, prefix: string): Promise<number> {
  const key = Buffer.from(prefix, 'latin1')
  const end = Buffer.from(key)
  end[end.length - 1] = (end[end.length - 1] as number) + 1
  return decodeRange(await rangeCall(client, encodeRange(key, end, true), 60_000)).count
}

// ---------------------------------------------------------------------------------------------------
// One measurement

export interface StartupFigures {
  readonly keys: number
  /** Loader time from the first txn sent to the last one answered, and keys per second over it. */
  readonly loadSeconds: number
  readonly loadKeysPerSec: number
  /** Server RSS (VmRSS) settled: right after the first start, after loading, and after the restart. */
  readonly rssEmptyMiB: number | null
  readonly rssLoadedMiB: number | null
  /** (rssLoaded − rssEmpty) / keys. */
  readonly rssPerKeyBytes: number | null
  /** From spawning the restarted server until a Range for a loaded key returned its value. */
  readonly startupSeconds: number
  /**
   * The same after a crash: the loaded server killed with SIGKILL as soon as the last txn answered, and
   * started again (etcd replays its WAL; etcdlite reads its newest background index checkpoint and replays
   * the log past it).
   */
  readonly crashStartupSeconds: number
  readonly rssAfterRestartMiB: number | null
  /** (rssAfterRestart − rssEmpty) / keys: the restored index (and whatever caches the restart left filled). */
  readonly rssPerKeyAfterRestartBytes: number | null
  /** From spawning the restarted server until it said it serves (its ready log line). */
  readonly readySeconds: number
  /** The same for the first start on the empty data dir: the fixed cost of starting, without keys. */
  readonly readyEmptySeconds: number
  /** Range attempts until the probe was served (1: served at the first try after the ready line). */
  readonly probeAttempts: number
  /** Keys a count-only Range found after the restart (must equal `keys`). */
  readonly keysAfterRestart: number
  /** File-backed part of the RSS (mmapped files: bbolt's db for etcd), loaded and after the restart. */
  readonly rssFileLoadedMiB: number | null
  readonly rssFileAfterRestartMiB: number | null
  /** Bytes of the data dir after the clean stop. */
  readonly dataDirMiB: number
  /** Seconds from SIGTERM to exit of the server started after the crash, and whether it exited by itself with code 0. */
  readonly stopSeconds: number
  readonly cleanStop: boolean
  /** Server CPU seconds while loading, and from spawn until the probe was served. */
  readonly serverCpuLoadSeconds: number | null
  readonly serverCpuStartupSeconds: number | null
  readonly loaderCpuSeconds: number
  readonly loadRetries: number
}

const round1 = (x: number): number => Number(x.toFixed(1))
const round3 = (x: number): number => Number(x.toFixed(3))

/** The RssFile line of /proc/<pid>/status in MiB; null off Linux. */
function rssFileMiB(pid: number): number | null {
  try {
    const m = /RssFile:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))
    return m?.[1] === undefined ? null : round1(Number(m[1]) / 1024)
  } catch {
    return null
  }
}

const RSS_SETTLE_POLL_MS = 500
const RSS_SETTLE_MAX_MS = 10_000

/** VmRSS once two readings RSS_SETTLE_POLL_MS apart differ by under 1 % (or after RSS_SETTLE_MAX_MS), as the watch memory workload. */
async function settledRssMiB(pid: number): Promise<number | null> {
  let last = processRssMiB(pid)
  const end = performance.now() + RSS_SETTLE_MAX_MS
  for (;;) {
    await sleep(RSS_SETTLE_POLL_MS)
    const next = processRssMiB(pid)
    const stable = next !== undefined && last !== undefined && Math.abs(next - last) < last * 0.01
    last = next
    if (stable || performance.now() > end) break
  }
  return last === undefined ? null : round1(last)
}

function dirBytes(dir: string): number {
  let total = 0
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    if (e.isDirectory()) total += dirBytes(p)
    else if (e.isFile()) total += statSync(p).size
  }
  return total
}

function perKey(after: number | null, before: number | null, keys: number): number | null {
  return after === null || before === null ? null : Math.round(((after - before) * 1024 * 1024) / keys)
}

function rawClient(endpoint: string): grpc.Client {
  return new grpc.Client(endpoint, grpc.credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 })
}

/**
 * SIGKILL `s` (a crash), start `kind` again on `dataDir` and return the new server and the seconds from its
 * spawn until the probe key is served.
 */
async function crashStartup(
  kind: ServerName, s: Launched, dataDir: string, p: StartupParams, running: Launched[], probeKey: Buffer, probeValue: Buffer,
): Promise<{ server: Launched; seconds: number }> {
  const exit = once(s.proc, 'exit')
  s.proc.kill('SIGKILL')
  await exit
  running.splice(running.indexOf(s), 1)
  const server = await launch(kind, dataDir, p)
  running.push(server)
  const client = rawClient(server.endpoint)
  try {
    const served = await probeUntilServed(client, probeKey, probeValue)
    return { server, seconds: round3((served.at - server.spawnedAt) / 1000) }
  } finally {
    client.close()
  }
}

/**
 * Run the start-up workload against a fresh `kind` server (its own temp data dir, durable defaults):
 * start, load `p.keys` keys from a load process, kill with SIGKILL and start again on the same data dir,
 * stop that with SIGTERM and start again, timing each start until a Range for the key written last returns
 * its value. Removes the data dir at the end.
 */
export async function runStartupWorkload(kind: ServerName, p: StartupParams): Promise<StartupFigures> {
  const log = p.log ?? ((): void => undefined)
  const dataDir = mkdtempSync(join(tmpdir(), `startup-bench-${kind}-`))
  liveDirs.add(dataDir)
  const running: Launched[] = []
  let loader: LoadProcess | undefined
  try {
    // 1. A fresh server, its empty RSS.
    const first = await launch(kind, dataDir, p)
    running.push(first)
    const rssEmptyMiB = await settledRssMiB(first.pid)

    // 2. Load from a separate process; sample the server's CPU at its markers.
    const cfg: StartupLoaderConfig = {
      endpoint: first.endpoint, keys: p.keys, keySize: p.keySize, valueSize: p.valueSize, keyPrefix: STARTUP_KEY_PREFIX,
      opsPerTxn: STARTUP_OPS_PER_TXN, inFlight: STARTUP_IN_FLIGHT, connections: STARTUP_CONNECTIONS,
    }
    const cpuAt: Partial<Record<string, number>> = {}
    log(`${kind}: loading ${p.keys} keys`)
    loader = new LoadProcess(`${kind} startup loader`, LOADER_JS, ['--config', JSON.stringify(cfg)], (line) => {
      if (line === MARK_LOAD_START || line === MARK_LOAD_DONE) cpuAt[line] = processCpuSeconds(first.pid)
    })
    const load = await loader.result<StartupLoaderResult>()
    const c0 = cpuAt[MARK_LOAD_START]
    const c1 = cpuAt[MARK_LOAD_DONE]
    const rssLoadedMiB = await settledRssMiB(first.pid)
    const rssFileLoadedMiB = rssFileMiB(first.pid)

    const probeIndex = writeOrder(p.keys)(p.keys - 1)
    if (probeIndex !== load.probeIndex) throw new Error(`loader probed key ${load.probeIndex}, runner expects ${probeIndex}`)
    const probeKey = startupKey(STARTUP_KEY_PREFIX, probeIndex, p.keySize)
    const probeValue = startupValue(probeIndex, p.valueSize)

    // 3. Crash (SIGKILL) as soon as the last txn has answered, and start again; time until the key written
    //    last is served.
    log(`${kind}: loaded in ${load.seconds} s; killing it (SIGKILL) and restarting on the same data dir`)
    const crashed = await crashStartup(kind, first, dataDir, p, running, probeKey, probeValue)

    // 4. Clean stop; the data dir stays.
    log(`${kind}: restarted after the crash in ${crashed.seconds} s; stopping it (SIGTERM) and restarting`)
    const stopped = await stop(crashed.server)
    running.splice(running.indexOf(crashed.server), 1)
    const dataDirMiB = round1(dirBytes(dataDir) / (1024 * 1024))

    // 5. Restart on the same data dir; time until the key written last is served.
    const second = await launch(kind, dataDir, p)
    running.push(second)
    const client = rawClient(second.endpoint)
    try {
      const served = await probeUntilServed(client, probeKey, probeValue)
      const cpuStartup = processCpuSeconds(second.pid)
      const rssAfterRestartMiB = await settledRssMiB(second.pid)
      const rssFileAfterRestartMiB = rssFileMiB(second.pid)
      const keysAfterRestart = await countKeys(client, STARTUP_KEY_PREFIX)
      log(`${kind}: restarted in ${round3((served.at - second.spawnedAt) / 1000)} s`)
      return {
        keys: p.keys,
        loadSeconds: load.seconds,
        loadKeysPerSec: load.keysPerSec,
        rssEmptyMiB,
        rssLoadedMiB,
        rssPerKeyBytes: perKey(rssLoadedMiB, rssEmptyMiB, p.keys),
        startupSeconds: round3((served.at - second.spawnedAt) / 1000),
        crashStartupSeconds: crashed.seconds,
        rssAfterRestartMiB,
        rssPerKeyAfterRestartBytes: perKey(rssAfterRestartMiB, rssEmptyMiB, p.keys),
        readySeconds: round3((second.readyAt - second.spawnedAt) / 1000),
        readyEmptySeconds: round3((first.readyAt - first.spawnedAt) / 1000),
        probeAttempts: served.attempts,
        keysAfterRestart,
        rssFileLoadedMiB,
        rssFileAfterRestartMiB,
        dataDirMiB,
        stopSeconds: stopped.seconds,
        cleanStop: stopped.clean,
        serverCpuLoadSeconds: c0 === undefined || c1 === undefined ? null : round3(c1 - c0),
        serverCpuStartupSeconds: cpuStartup === undefined ? null : round3(cpuStartup),
        loaderCpuSeconds: load.clientCpuSeconds,
        loadRetries: load.retries,
      }
    } finally {
      client.close()
    }
  } finally {
    loader?.kill()
    for (const s of running) await stop(s)
    rmSync(dataDir, { recursive: true, force: true })
    liveDirs.delete(dataDir)
  }
}

// ---------------------------------------------------------------------------------------------------
// Summaries over rounds, the JSON summary's ratios and the table

/** One start-up measurement as bench/run.ts records it. */
export type StartupMeasurement = StartupFigures & { readonly round: number; readonly workload: string; readonly server: ServerName }

/** The medians over rounds of one server's start-up figures (the same fields), and the rounds that went wrong. */
export type StartupServerSummary = Pick<StartupFigures,
  'keys' | 'loadSeconds' | 'loadKeysPerSec' | 'rssEmptyMiB' | 'rssLoadedMiB' | 'rssPerKeyBytes' | 'readySeconds' | 'readyEmptySeconds' |
  'startupSeconds' | 'crashStartupSeconds' | 'rssAfterRestartMiB' | 'rssPerKeyAfterRestartBytes' | 'rssFileAfterRestartMiB' | 'dataDirMiB' |
  'serverCpuStartupSeconds'
> & {
  /** Rounds where the count after the restart was not `keys`, or the first stop was not clean. */
  readonly problems: number
}

export interface StartupSummary {
  readonly etcd: StartupServerSummary
  readonly lite: StartupServerSummary
}

function summarizeServer(ms: readonly StartupFigures[]): StartupServerSummary {
  return {
    keys: median(ms.map((m) => m.keys)),
    loadSeconds: median(ms.map((m) => m.loadSeconds)),
    loadKeysPerSec: median(ms.map((m) => m.loadKeysPerSec)),
    rssEmptyMiB: present(ms.map((m) => m.rssEmptyMiB)),
    rssLoadedMiB: present(ms.map((m) => m.rssLoadedMiB)),
    rssPerKeyBytes: present(ms.map((m) => m.rssPerKeyBytes)),
    readySeconds: median(ms.map((m) => m.readySeconds)),
    readyEmptySeconds: median(ms.map((m) => m.readyEmptySeconds)),
    startupSeconds: median(ms.map((m) => m.startupSeconds)),
    crashStartupSeconds: median(ms.map((m) => m.crashStartupSeconds)),
    rssAfterRestartMiB: present(ms.map((m) => m.rssAfterRestartMiB)),
    rssPerKeyAfterRestartBytes: present(ms.map((m) => m.rssPerKeyAfterRestartBytes)),
    rssFileAfterRestartMiB: present(ms.map((m) => m.rssFileAfterRestartMiB)),
    dataDirMiB: median(ms.map((m) => m.dataDirMiB)),
    serverCpuStartupSeconds: present(ms.map((m) => m.serverCpuStartupSeconds)),
    problems: ms.filter((m) => m.keysAfterRestart !== m.keys || !m.cleanStop).length,
  }
}

/** Medians over rounds per server of the start-up workload's measurements. */
export function summarizeStartup(results: readonly StartupMeasurement[]): StartupSummary {
  const of = (n: ServerName): StartupMeasurement[] => results.filter((r) => r.workload === STARTUP_WORKLOAD.name && r.server === n)
  return { etcd: summarizeServer(of('etcd')), lite: summarizeServer(of('etcdlite')) }
}

/** The summary JSON line's ratios, every one > 1 when etcdlite is better. */
export function startupRatios(s: StartupSummary): Record<string, number | null> {
  return {
    startupRatio: ratio(s.etcd.startupSeconds, s.lite.startupSeconds),
    crashStartupRatio: ratio(s.etcd.crashStartupSeconds, s.lite.crashStartupSeconds),
    loadRatio: ratio(s.lite.loadKeysPerSec, s.etcd.loadKeysPerSec),
    memPerKeyRatio: ratio(s.etcd.rssPerKeyBytes, s.lite.rssPerKeyBytes),
    memPerKeyAfterRestartRatio: ratio(s.etcd.rssPerKeyAfterRestartBytes, s.lite.rssPerKeyAfterRestartBytes),
  }
}

export interface StartupTableParams {
  readonly rounds: number
  readonly keySize: number
  readonly valueSize: number
  /** Both servers ran with --unsafe-no-fsync (said in the title). */
  readonly unsafeNoFsync: boolean
}

export function printStartupTable(p: StartupTableParams, s: StartupSummary): void {
  const out = process.stdout
  const { etcd, lite } = s
  out.write(`\nstart-up: etcd vs etcdlite — ${p.rounds} round(s), fresh server per measurement, ` +
    `${p.unsafeNoFsync ? 'both with --unsafe-no-fsync' : 'durable (fsync)'}; medians over rounds\n` +
    `  ${STARTUP_WORKLOAD.name}: ${fmt(etcd.keys || lite.keys, 0)} keys (key ${p.keySize} B, value ${p.valueSize} B) loaded as Txns of ` +
    `${STARTUP_OPS_PER_TXN} puts, ${STARTUP_IN_FLIGHT} in flight on ${STARTUP_CONNECTIONS} connections; SIGKILL; restart; SIGTERM; restart on the same data dir\n` +
    'start s = spawn until a Range for the key written last returned its value; ready s = spawn until the ready log line;\n' +
    'empty s = the same ready time for the first start on an empty data dir (the fixed cost of starting);\n' +
    'after kill s = spawn until served after a SIGKILL right after loading (etcd replays its WAL; etcdlite reads its newest\n' +
    'background index checkpoint and replays the log past it); the clean restart follows a SIGTERM of that server;\n' +
    'ratio = etcd start s ÷ etcdlite start s (> 1: etcdlite faster). B/key = (VmRSS − VmRSS of the empty server) ÷ keys, after\n' +
    'loading and after the restart (settled; neither GC forced); file = RSS of mapped files after the restart (etcd: bbolt\'s mmap).\n' +
    'The restart reads a data dir that is still in the page cache (a warm start).\n\n')
  printRows(
    ['workload', 'etcd start s', 'lite start s', 'ratio', 'after kill s e/l', 'kill ratio', 'ready s e/l', 'empty s e/l', 'load s e/l', 'load keys/s e/l', 'RSS empty MiB e/l',
      'B/key loaded e/l', 'B/key restart e/l', 'mem ratio', 'RSS restart MiB e/l', 'file MiB e/l', 'disk MiB e/l', 'start cpu s e/l'],
    [[
      STARTUP_WORKLOAD.name, fmt(etcd.startupSeconds, 2), fmt(lite.startupSeconds, 2), fmt(ratio(etcd.startupSeconds, lite.startupSeconds), 2),
      `${fmt(etcd.crashStartupSeconds, 2)}/${fmt(lite.crashStartupSeconds, 2)}`, fmt(ratio(etcd.crashStartupSeconds, lite.crashStartupSeconds), 2),
      `${fmt(etcd.readySeconds, 2)}/${fmt(lite.readySeconds, 2)}`, `${fmt(etcd.readyEmptySeconds, 2)}/${fmt(lite.readyEmptySeconds, 2)}`,
      `${fmt(etcd.loadSeconds, 1)}/${fmt(lite.loadSeconds, 1)}`,
      `${fmt(etcd.loadKeysPerSec, 0)}/${fmt(lite.loadKeysPerSec, 0)}`, `${fmt(etcd.rssEmptyMiB, 0)}/${fmt(lite.rssEmptyMiB, 0)}`,
      `${fmt(etcd.rssPerKeyBytes, 0)}/${fmt(lite.rssPerKeyBytes, 0)}`, `${fmt(etcd.rssPerKeyAfterRestartBytes, 0)}/${fmt(lite.rssPerKeyAfterRestartBytes, 0)}`,
      fmt(ratio(etcd.rssPerKeyAfterRestartBytes, lite.rssPerKeyAfterRestartBytes), 2),
      `${fmt(etcd.rssAfterRestartMiB, 0)}/${fmt(lite.rssAfterRestartMiB, 0)}`, `${fmt(etcd.rssFileAfterRestartMiB, 0)}/${fmt(lite.rssFileAfterRestartMiB, 0)}`,
      `${fmt(etcd.dataDirMiB, 0)}/${fmt(lite.dataDirMiB, 0)}`, `${fmt(etcd.serverCpuStartupSeconds, 2)}/${fmt(lite.serverCpuStartupSeconds, 2)}`,
    ]],
  )
  if (etcd.problems + lite.problems > 0) {
    out.write('\nWARNING: start-up rounds with a wrong key count after the restart or an unclean stop (see JSON lines: keysAfterRestart, cleanStop)\n')
  }
}
