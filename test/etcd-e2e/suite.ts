// etcd's own end-to-end suite (tests/e2e of etcd 3.4.23, from Debian's golang-etcd-server-dev) as an oracle:
// built once in GOPATH mode, then run with a bin dir whose `etcd` is etcdlite and whose `etcdctl` is the
// real one, so every test starts etcdlite with the flags it gives etcd, unchanged.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, symlinkSync, writeFileSync, chmodSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ETCDLITE_BIN } from '../helpers/processes.js'

/** Where Debian installs etcd's Go source (golang-etcd-server-dev). */
export const ETCD_SOURCE = '/usr/share/gocode/src/go.etcd.io/etcd'
const GOPATH = '/usr/share/gocode'
const CACHE = join(tmpdir(), 'etcdlite-etcd-e2e')

export type Outcome = 'PASS' | 'FAIL' | 'SKIP'

export interface TestResult {
  readonly outcome: Outcome
  /** The test's own lines of `-test.v` output, for failure reports. */
  readonly output: string
}

/** Why the suite cannot run here, or undefined when it can. */
export function unavailable(): string | undefined {
  if (spawnSync('go', ['version'], { stdio: 'ignore' }).status !== 0) return 'no Go toolchain (Debian golang-go)'
  if (!existsSync(join(ETCD_SOURCE, 'tests/e2e'))) return `no etcd source at ${ETCD_SOURCE} (Debian golang-etcd-server-dev)`
  if (spawnSync('etcdctl', ['version'], { stdio: 'ignore', env: { ...process.env, ETCDCTL_API: '3' } }).status !== 0) return 'no etcdctl (Debian etcd-client)'
  return undefined
}

/** Build the suite's test binary (once per machine; about 20 s). */
export function buildSuite(): string {
  const out = join(CACHE, 'e2e.test')
  if (existsSync(out)) return out
  mkdirSync(CACHE, { recursive: true })
  const r = spawnSync('go', ['test', '-c', '-o', out, 'go.etcd.io/etcd/tests/e2e'], {
    env: { ...process.env, GOPATH, GO111MODULE: 'off', GOFLAGS: '' },
    encoding: 'utf8',
  })
  if (r.status !== 0) throw new Error(`building etcd's e2e suite failed:\n${r.stdout}${r.stderr}`)
  return out
}

/**
 * The bin dir: `etcd` runs etcdlite (exec, so the suite's SIGKILL reaches the server itself) or the given
 * binary; `etcdctl` is the real one.
 */
function binDir(etcd: string | undefined): string {
  const dir = join(CACHE, etcd === undefined ? 'bin-etcdlite' : 'bin-etcd')
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  const script = etcd === undefined ? `#!/bin/sh\nexec "${process.execPath}" "${ETCDLITE_BIN}" "$@"\n` : `#!/bin/sh\nexec "${etcd}" "$@"\n`
  writeFileSync(join(dir, 'etcd'), script)
  chmodSync(join(dir, 'etcd'), 0o755)
  const ctl = spawnSync('sh', ['-c', 'command -v etcdctl'], { encoding: 'utf8' }).stdout.trim()
  symlinkSync(ctl, join(dir, 'etcdctl'))
  return dir
}

/**
 * The working dir: the suite reads its certificates both from -cert-dir and as ../../integration/fixtures
 * from tests/e2e of etcd's tree. (It also reads ../../etcd.conf.yml.sample, which Debian does not ship: that
 * one test fails on the real etcd here too.)
 */
function workDir(): string {
  const dir = join(CACHE, 'work/tests/e2e')
  mkdirSync(dir, { recursive: true })
  const fixtures = join(CACHE, 'work/integration/fixtures')
  if (!existsSync(fixtures)) {
    mkdirSync(join(CACHE, 'work/integration'), { recursive: true })
    symlinkSync(join(ETCD_SOURCE, 'integration/fixtures'), fixtures)
  }
  return dir
}

export interface RunOptions {
  /** Top-level test names to run; undefined runs them all. */
  readonly tests?: readonly string[]
  /** Run this etcd binary instead of etcdlite (to check the real etcd passes the same tests). */
  readonly etcd?: string
  /** Extra environment for the suite and every server it starts. */
  readonly env?: Readonly<Record<string, string>>
  /** Each line of the suite's output, as it comes. */
  readonly onLine?: (line: string) => void
}

/** Run the suite; resolves with each top-level test's outcome and output. */
export async function runSuite(binary: string, opts: RunOptions = {}): Promise<Map<string, TestResult>> {
  const args = ['-test.v', '-test.timeout', '80m', '-bin-dir', binDir(opts.etcd), '-cert-dir', '../../integration/fixtures']
  if (opts.tests !== undefined) args.push('-test.run', `^(${opts.tests.join('|')})$`)
  const child = spawn(binary, args, { cwd: workDir(), env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] })
  const results = new Map<string, TestResult>()
  const outputs = new Map<string, string[]>()
  let current: string | undefined
  let pending = ''
  const onData = (chunk: Buffer): void => {
    pending += chunk.toString('utf8')
    let nl
    while ((nl = pending.indexOf('\n')) !== -1) {
      const line = pending.slice(0, nl)
      pending = pending.slice(nl + 1)
      opts.onLine?.(line)
      const run = /^=== (?:RUN|CONT)\s+([^\s/]+)$/.exec(line)
      const started = run?.[1]
      if (started !== undefined) {
        current = started
        if (!outputs.has(started)) outputs.set(started, [])
      }
      if (current !== undefined) outputs.get(current)?.push(line)
      const done = /^--- (PASS|FAIL|SKIP): (\S+) /.exec(line)
      if (done !== null) {
        const name = done[2] as string
        results.set(name, { outcome: done[1] as Outcome, output: (outputs.get(name) ?? []).join('\n') })
      }
    }
  }
  child.stdout.on('data', onData)
  child.stderr.on('data', onData)
  await new Promise<void>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', () => resolve())
  })
  return results
}
