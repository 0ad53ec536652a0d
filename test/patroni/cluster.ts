// A Patroni cluster of `size` nodes on one etcd endpoint, in one temporary directory: start, read its
// state through patronictl (which reads the DCS, so through the etcd gateway), switch over, and clean up
// everything it started, whatever state it is left in.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import { freePort } from '../helpers/gateway-etcd.js'
import { postgresBinDir } from './config.js'
import { ownedDir, PatroniNode, postgresOwner } from './node.js'

/** One row of `patronictl list -f json`. */
export interface MemberRow {
  readonly Member: string
  readonly Role: string
  readonly State: string
  readonly TL?: number | string
}

export interface CtlResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * Poll `cond` (every 250 ms) until it yields a value; fail naming `what` after `timeoutMs`, or at once
 * when `signal` aborts.
 */
export async function waitFor<T>(what: string, timeoutMs: number, cond: () => Promise<T | undefined>, signal?: AbortSignal): Promise<T> {
  const t0 = Date.now()
  let last: unknown
  for (;;) {
    signal?.throwIfAborted()
    try {
      const v = await cond()
      if (v !== undefined) return v
    } catch (e) {
      last = e
    }
    if (Date.now() - t0 > timeoutMs) {
      throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}${last instanceof Error ? ` (last error: ${last.message})` : ''}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

export class PatroniCluster {
  readonly nodes: PatroniNode[] = []
  readonly scope = `etcdlite-${randomUUID().slice(0, 8)}`
  private constructor(readonly etcd: string, private readonly dir: string) {}

  /** Create the nodes (free ports, their own directories) and start every Patroni at once. */
  static async start(etcd: string, size: number): Promise<PatroniCluster> {
    const binDir = postgresBinDir()
    if (binDir === undefined) throw new Error('no PostgreSQL server under /usr/lib/postgresql (Debian package postgresql)')
    const owner = postgresOwner()
    const dir = mkdtempSync(join(tmpdir(), 'etcdlite-patroni-'))
    const cluster = new PatroniCluster(etcd, dir)
    try {
      ownedDir(dir, owner)
      for (let i = 1; i <= size; i++) {
        const [restPort, pgPort] = [await freePort(), await freePort()]
        const name = `node${i}`
        cluster.nodes.push(new PatroniNode({ scope: cluster.scope, name, dir: join(dir, name), restPort, pgPort, etcd, binDir }, owner))
      }
      for (const n of cluster.nodes) n.start()
      return cluster
    } catch (e) {
      await cluster.dispose()
      throw e
    }
  }

  node(name: string): PatroniNode {
    const n = this.nodes.find((x) => x.name === name)
    if (n === undefined) throw new Error(`no node ${name}`)
    return n
  }

  /** patronictl with the first node's configuration (it only uses the DCS section and the scope). */
  patronictl(args: readonly string[]): Promise<CtlResult> {
    const config = this.nodes[0]?.configFile ?? ''
    return new Promise((resolve, reject) => {
      const p = spawn('patronictl', ['-c', config, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LANG: 'C.UTF-8' } })
      const timer = setTimeout(() => p.kill('SIGKILL'), 60_000)
      let stdout = ''
      let stderr = ''
      p.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
      p.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
      p.on('error', reject)
      p.on('close', (code) => {
        clearTimeout(timer)
        resolve({ code, stdout, stderr })
      })
    })
  }

  /** The members as the DCS has them (`patronictl list -f json`). */
  async members(): Promise<MemberRow[]> {
    const r = await this.patronictl(['list', '-f', 'json'])
    if (r.code !== 0) throw new Error(`patronictl list: ${r.stderr.trim() || r.stdout.trim()}`)
    return JSON.parse(r.stdout) as MemberRow[]
  }

  /**
   * Wait until `leader` (or, when undefined, any node but those in `not`) leads and every node in
   * `replicas` is a running replica; the leader's name.
   */
  async waitForRoles(what: string, timeoutMs: number, want: { leader?: string; not?: readonly string[]; replicas: (leader: string) => readonly string[] }, signal?: AbortSignal): Promise<string> {
    return waitFor(what, timeoutMs, async () => {
      const rows = await this.members()
      const leader = rows.find((r) => r.Role === 'Leader' && r.State === 'running')
      if (leader === undefined || (want.leader !== undefined && leader.Member !== want.leader) || want.not?.includes(leader.Member) === true) return undefined
      const ready = want.replicas(leader.Member).every((name) => rows.some((r) => r.Member === name && r.Role === 'Replica' && (r.State === 'running' || r.State === 'streaming')))
      return ready ? leader.Member : undefined
    }, signal)
  }

  /** Patroni's log tails and the DCS view, for a failure report. */
  async diagnostics(): Promise<string> {
    const list = await this.patronictl(['list']).then((r) => r.stdout + r.stderr, (e: Error) => e.message)
    return [list, ...this.nodes.map((n) => `--- ${n.name} (patroni ${n.running ? 'running' : 'stopped'}) ---\n${n.logTail()}`)].join('\n')
  }

  /** Stop every Patroni (which stops its PostgreSQL), then any PostgreSQL a killed Patroni left, then delete everything. */
  async dispose(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.stop('SIGTERM')))
    await Promise.all(this.nodes.map((n) => n.stopPostgres()))
    rmSync(this.dir, { recursive: true, force: true })
  }
}
