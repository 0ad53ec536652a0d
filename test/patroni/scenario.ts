// The Patroni scenario on one etcd endpoint: bootstrap a cluster (leader race through the DCS), replicate a
// row, switch over with patronictl, kill the leader's Patroni (SIGKILL) and see a replica take over, then
// clean up. Each phase is timed; any failure throws with Patroni's logs and the DCS view attached.
import { PatroniCluster, waitFor } from './cluster.js'
import { DCS_TIMINGS } from './config.js'
import { errorMessage } from '../../src/pkg/as-error.js'

export interface PhaseTiming {
  readonly phase: string
  readonly seconds: number
}

export interface ScenarioOptions {
  /** Nodes in the cluster, at least 2. */
  readonly size: number
  /** Progress lines. */
  readonly log?: (line: string) => void
  /** Ends the scenario early (cleaning up as after a failure). */
  readonly signal?: AbortSignal
}

/** A row written on `leader` reaches every node in `replicas`. */
async function replicates(cluster: PatroniCluster, leader: string, replicas: readonly string[], value: string, signal?: AbortSignal): Promise<void> {
  await cluster.node(leader).sql(`CREATE TABLE IF NOT EXISTS etcdlite_check (v text); INSERT INTO etcdlite_check VALUES ('${value}')`)
  await Promise.all(replicas.map((name) => waitFor(`the row '${value}' on ${name}`, 30_000, async () => {
    const rows = (await cluster.node(name).sql('SELECT v FROM etcdlite_check ORDER BY v')).split('\n')
    return rows.includes(value) ? true : undefined
  }, signal)))
}

/**
 * What Patroni's etcd3 DCS asks first — /version, then the member list over the gateway — so a server
 * without the gateway fails the scenario at once instead of after Patroni's bootstrap timeout.
 */
async function gatewayAnswers(etcd: string): Promise<void> {
  for (const [path, init] of [['/version', {}], ['/v3/cluster/member/list', { method: 'POST', body: '{}' }]] as const) {
    const res = await fetch(`http://${etcd}${path}`, { ...init, signal: AbortSignal.timeout(5000) })
    const text = await res.text()
    if (res.status !== 200) throw new Error(`${'method' in init ? 'POST' : 'GET'} ${path} answered ${res.status}: ${text.trim()}`)
  }
}

export async function runScenario(etcd: string, opts: ScenarioOptions): Promise<PhaseTiming[]> {
  if (opts.size < 2) throw new TypeError('a Patroni scenario needs at least 2 nodes')
  await gatewayAnswers(etcd)
  const log = opts.log ?? (() => undefined)
  const timings: PhaseTiming[] = []
  let t = Date.now()
  const phase = (name: string): void => {
    const now = Date.now()
    timings.push({ phase: name, seconds: (now - t) / 1000 })
    log(`${name}: ${((now - t) / 1000).toFixed(1)} s`)
    t = now
  }
  const t0 = Date.now()
  const cluster = await PatroniCluster.start(etcd, opts.size)
  const all = cluster.nodes.map((n) => n.name)
  const others = (leader: string, ...also: string[]): string[] => all.filter((n) => n !== leader && !also.includes(n))
  try {
    const first = await cluster.waitForRoles('a leader and running replicas', 120_000, { replicas: (l) => others(l) }, opts.signal)
    phase(`bootstrap (${first} leads, ${opts.size - 1} replicas)`)

    await replicates(cluster, first, others(first), 'before switchover', opts.signal)
    phase('a row written on the leader reached every replica')

    const candidate = others(first)[0] ?? ''
    const r = await cluster.patronictl(['switchover', '--leader', first, '--candidate', candidate, '--force'])
    if (r.code !== 0 || !r.stdout.includes('Successfully switched over')) throw new Error(`patronictl switchover: ${r.stdout}${r.stderr}`)
    await cluster.waitForRoles(`${candidate} leading after the switchover`, 60_000, { leader: candidate, replicas: (l) => others(l) }, opts.signal)
    await replicates(cluster, candidate, others(candidate), 'after switchover', opts.signal)
    phase(`switchover ${first} -> ${candidate} (old leader replicating again)`)

    await cluster.node(candidate).stop('SIGKILL')
    log(`killed ${candidate}'s Patroni (SIGKILL); its leader key expires after ttl ${DCS_TIMINGS.ttl} s`)
    const next = await cluster.waitForRoles('a replica taking over', 90_000, { not: [candidate], replicas: (l) => others(l, candidate) }, opts.signal)
    await replicates(cluster, next, others(next, candidate), 'after failover', opts.signal)
    phase(`failover ${candidate} -> ${next}`)
  } catch (e) {
    const details = await cluster.diagnostics()
    await cluster.dispose()
    throw new Error(`${errorMessage(e)}\n${details}`, { cause: e })
  }
  await cluster.dispose()
  phase('cleanup')
  log(`total: ${((Date.now() - t0) / 1000).toFixed(1)} s`)
  return timings
}
