// A scripted etcdctl workload for the metrics tests: the same steps against etcdlite and the real etcd, with
// the server's /metrics scraped after each step, so the tests compare what each step moved. It touches every
// part of the server with a metric family: KV, txn, leases (renewed, revoked, expired), a watcher and its
// event, compaction, defragmentation, status, hashes, health, alarms, members, a snapshot, auth, and a
// malformed watch request. Steps that finish in the background (an expiry, a watch event) poll until the
// figure they move has moved, with a generous bound, so no step depends on timing.
import { spawn } from 'node:child_process'
import * as grpc from '@grpc/grpc-js'
import { etcdctl, ETCDCTL_ENV } from './etcdctl.js'
import { parseExposition, scrape, type Exposition } from './metrics-text.js'
import { tempDir } from './tmp.js'

export interface StepResult {
  readonly name: string
  /** The exposition after the step. */
  readonly after: Exposition
}

/** Poll the exposition until `cond` holds (at most `ms`); returns the last one. */
async function scrapeUntil(endpoint: string, cond: (e: Exposition) => boolean, what: string, ms = 15_000): Promise<Exposition> {
  const deadline = Date.now() + ms
  for (;;) {
    const e = parseExposition(await scrape(endpoint))
    if (cond(e)) return e
    if (Date.now() > deadline) throw new Error(`${endpoint}: timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

const value = (e: Exposition, series: string): number => e.series.get(series) ?? 0

/** Run etcdctl and fail on an unexpected exit code. */
async function ctl(endpoint: string, args: readonly string[], opts: { stdin?: string; fails?: boolean } = {}): Promise<string> {
  const r = await etcdctl(endpoint, args, opts.stdin ?? '')
  if ((r.code === 0) === (opts.fails === true)) throw new Error(`etcdctl ${args.join(' ')}: exit ${r.code}\n${r.stdout}${r.stderr}`)
  return r.stdout
}

/** A Watch call whose first message does not unmarshal (a length-delimited field cut short). */
function malformedWatch(endpoint: string): Promise<void> {
  const client = new grpc.Client(endpoint, grpc.credentials.createInsecure())
  return new Promise((resolve) => {
    const call = client.makeBidiStreamRequest('/etcdserverpb.Watch/Watch', (b: Buffer) => b, (b: Buffer) => b)
    call.on('data', () => undefined)
    call.on('error', () => {
      client.close()
      resolve()
    })
    call.write(Buffer.from([0x0a, 0x05, 0x0a]))
  })
}

/**
 * Wait until a freshly started server has applied what its start proposes (etcd 3.4 sets the cluster
 * version a moment after it serves), so the first step moves only what it does itself.
 */
export function settled(endpoint: string): Promise<Exposition> {
  return scrapeUntil(endpoint, (e) => [...e.series.keys()].some((k) => k.startsWith('etcd_cluster_version{')) && value(e, 'etcd_server_proposals_pending') === 0, 'the start to settle')
}

/** Run the workload against `endpoint`, scraping after each step. */
export async function runWorkload(endpoint: string): Promise<{ start: Exposition; steps: StepResult[] }> {
  const start = await settled(endpoint)
  const steps: StepResult[] = []
  const step = async (name: string, run: () => Promise<unknown>, after?: (e: Exposition) => boolean): Promise<void> => {
    await run()
    const e = after === undefined ? parseExposition(await scrape(endpoint)) : await scrapeUntil(endpoint, after, name)
    steps.push({ name, after: e })
  }
  const last = (): Exposition => steps[steps.length - 1]?.after ?? start
  const dir = await tempDir('metrics-workload-')
  try {
    await step('put', () => ctl(endpoint, ['put', 'a', '1']))
    await step('put with prev kv', () => ctl(endpoint, ['put', 'a', '2', '--prev-kv']))
    await step('get', () => ctl(endpoint, ['get', 'a']))
    await step('get every key', () => ctl(endpoint, ['get', '', '--from-key']))
    await step('delete of nothing', () => ctl(endpoint, ['del', 'none']))
    await step('txn', () => ctl(endpoint, ['txn'], { stdin: 'value("a") = "2"\n\nput c 3\nget a\n\n\n' }))
    let lease = ''
    await step('lease grant', async () => {
      lease = /lease (\S+) granted/.exec(await ctl(endpoint, ['lease', 'grant', '100']))?.[1] ?? ''
    })
    await step('put with lease', () => ctl(endpoint, ['put', 'l', '1', `--lease=${lease}`]))
    await step('lease keep-alive', () => ctl(endpoint, ['lease', 'keep-alive', '--once', lease]))
    await step('lease timetolive', () => ctl(endpoint, ['lease', 'timetolive', lease, '--keys']))
    await step('lease revoke', () => ctl(endpoint, ['lease', 'revoke', lease]))
    const expired = value(last(), 'etcd_debugging_server_lease_expired_total')
    await step('lease expiry', () => ctl(endpoint, ['lease', 'grant', '1']), (e) => value(e, 'etcd_debugging_server_lease_expired_total') > expired)
    const events = value(last(), 'etcd_debugging_mvcc_events_total')
    const watcher = spawn('etcdctl', [`--endpoints=${endpoint}`, 'watch', 'w'], { env: ETCDCTL_ENV, stdio: 'ignore' })
    try {
      await scrapeUntil(endpoint, (e) => value(e, 'etcd_debugging_mvcc_watcher_total') === 1, 'the watcher')
      await step('put to a watched key', () => ctl(endpoint, ['put', 'w', '1']), (e) => value(e, 'etcd_debugging_mvcc_events_total') > events)
    } finally {
      watcher.kill('SIGTERM')
    }
    await step('watcher gone', () => Promise.resolve(), (e) => value(e, 'etcd_debugging_mvcc_watcher_total') === 0 && value(e, 'etcd_debugging_mvcc_watch_stream_total') === 0)
    await step('compact', () => ctl(endpoint, ['compact', '3', '--physical']))
    await step('compact a compacted revision', () => ctl(endpoint, ['compact', '2'], { fails: true }))
    await step('defrag', () => ctl(endpoint, ['defrag']))
    await step('endpoint status', () => ctl(endpoint, ['endpoint', 'status']))
    await step('endpoint hashkv', () => ctl(endpoint, ['endpoint', 'hashkv']))
    await step('endpoint health', () => ctl(endpoint, ['endpoint', 'health']))
    await step('/health', async () => (await fetch(`http://${endpoint}/health`)).text())
    await step('alarm list', () => ctl(endpoint, ['alarm', 'list']))
    await step('member list', () => ctl(endpoint, ['member', 'list']))
    await step('snapshot save', () => ctl(endpoint, ['snapshot', 'save', `${dir.path}/snap.db`]))
    await step('malformed watch request', () => malformedWatch(endpoint), (e) => (e.series.get('etcd_network_server_stream_failures_total{API="watch",Type="receive"}') ?? 0) > 0)
    await step('user add', () => ctl(endpoint, ['user', 'add', 'root:root']))
    await step('role add', () => ctl(endpoint, ['role', 'add', 'root']))
    await step('grant role', () => ctl(endpoint, ['user', 'grant-role', 'root', 'root']))
    await step('auth enable', () => ctl(endpoint, ['auth', 'enable']))
    await step('get as root', () => ctl(endpoint, ['--user', 'root:root', 'get', 'a']))
    await step('get with a wrong password', () => ctl(endpoint, ['--user', 'root:wrong', 'get', 'a'], { fails: true }))
    await step('auth disable', () => ctl(endpoint, ['--user', 'root:root', 'auth', 'disable']))
  } finally {
    await dir.remove()
  }
  return { start, steps }
}
