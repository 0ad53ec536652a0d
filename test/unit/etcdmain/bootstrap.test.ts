// A start on an empty data dir: etcd's checks of the initial cluster against this member (with their texts),
// etcdlite's refusals of what it does not do (more members, discovery, the v2 proxy), and the IDs.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { computeMemberId, genClusterId, verifyBootstrap, type BootstrapConfig, type Resolver } from '../../../src/etcdmain/bootstrap.js'
import { parseArgs } from '../../../src/etcdmain/config.js'
import { flagSetOf, IGNORED_FLAGS, newFlags } from '../../../src/etcdmain/config-flags.js'
import type { Config } from '../../../src/etcdmain/server-config.js'
import { flagsHelp, HELP_FLAGS } from '../../../src/etcdmain/help.js'
import { startIdentity } from '../../../src/etcdserver/identity.js'
import { openEtcd } from '../../../src/embed/etcd.js'

const base: BootstrapConfig = {
  name: 'a',
  initialCluster: 'a=http://127.0.0.1:2380',
  initialClusterToken: 'etcd-cluster',
  initialClusterState: 'new',
  initialAdvertisePeerUrls: ['http://127.0.0.1:2380'],
  discovery: '',
  discoverySrv: '',
  proxy: 'off',
}

/** A resolver that knows a few names (and fails for others with a lookup error). */
const hosts: Resolver = (host) => {
  const known: Record<string, string> = { 'node-a.example': '127.0.0.1', 'node-b.example': '10.9.9.9' }
  const ip = known[host]
  return ip === undefined ? Promise.reject(new Error(`lookup ${host}: no such host`)) : Promise.resolve(ip)
}

async function refusal(over: Partial<BootstrapConfig>): Promise<string> {
  try {
    await verifyBootstrap({ ...base, ...over }, hosts)
  } catch (err) {
    assert.ok(err instanceof Error)
    assert.equal(err.name, 'StartError')
    return err.message
  }
  return 'accepted'
}

describe('verifyBootstrap', () => {
  it('accepts this member alone, by URL text or by resolved address', async () => {
    assert.equal(await refusal({}), 'accepted')
    assert.equal(await refusal({ initialCluster: 'a=http://node-a.example:2380' }), 'accepted')
  })
  const cases: ReadonlyArray<readonly [string, Partial<BootstrapConfig>, string]> = [
    ['a name missing from the initial cluster', { initialCluster: 'b=http://127.0.0.1:2380' }, `couldn't find local name "a" in the initial cluster configuration`],
    ['a bad initial cluster', { initialCluster: 'a=localhost:2380' }, 'error setting up initial cluster: URL scheme must be http, https, unix, or unixs: localhost:2380'],
    [
      'an initial cluster URL not advertised',
      { initialCluster: 'a=http://127.0.0.1:2390' },
      '--initial-cluster has a=http://127.0.0.1:2390 but missing from --initial-advertise-peer-urls=http://127.0.0.1:2380 (resolved urls: "http://127.0.0.1:2380" != "http://127.0.0.1:2390")',
    ],
    [
      'an advertised URL missing from the initial cluster',
      { initialAdvertisePeerUrls: ['http://127.0.0.1:2380', 'http://127.0.0.1:2381'] },
      '--initial-advertise-peer-urls has http://127.0.0.1:2381 but missing from --initial-cluster=a=http://127.0.0.1:2380,a=http://127.0.0.1:2381',
    ],
    [
      'a host name that resolves elsewhere',
      { initialCluster: 'a=http://node-b.example:2380' },
      '--initial-cluster has a=http://node-b.example:2380 but missing from --initial-advertise-peer-urls=http://127.0.0.1:2380 (resolved urls: "http://127.0.0.1:2380" != "http://10.9.9.9:2380")',
    ],
    ['a duplicate URL', { initialCluster: 'a=http://127.0.0.1:2380,b=http://127.0.0.1:2380' }, 'initial cluster a=http://127.0.0.1:2380,b=http://127.0.0.1:2380 has duplicate url'],
    [
      'another member',
      { initialCluster: 'a=http://127.0.0.1:2380,b=http://127.0.0.1:2390' },
      'etcdlite serves a single member, but the initial cluster names 2 members (a, b); start it with --initial-cluster a=http://127.0.0.1:2380 or without --initial-cluster',
    ],
    ['joining an existing cluster alone', { initialClusterState: 'existing' }, 'cannot fetch cluster info from peer urls: could not retrieve cluster information from the given URLs'],
    ['a discovery service', { initialCluster: '', discovery: 'https://d.example/t' }, 'etcdlite serves a single member and does not join a cluster through a discovery service (--discovery https://d.example/t); give --initial-cluster instead'],
    ['DNS discovery', { initialCluster: '', discoverySrv: 'example.com' }, 'etcdlite serves a single member and does not bootstrap from DNS SRV records (--discovery-srv example.com); give --initial-cluster instead'],
    ['the v2 proxy', { proxy: 'on' }, "etcdlite does not run as etcd's v2 proxy (--proxy on); it serves as a member: start it with --proxy off"],
  ]
  for (const [name, over, message] of cases) {
    it(name, async () => assert.equal(await refusal(over), message))
  }
})

describe('IDs', () => {
  it("computeMemberId and genID as etcd's membership package computes them", () => {
    const m = computeMemberId(['http://localhost:20001'], 'new')
    assert.equal(m, 14578408409545168728n)
    assert.equal(genClusterId([m]), 238453183653593855n)
    // Sorted URLs joined with nothing: the order given does not matter.
    assert.equal(computeMemberId(['http://b:1', 'http://a:1'], 't'), computeMemberId(['http://a:1', 'http://b:1'], 't'))
  })
  it('a new store takes the given IDs; a store that has IDs keeps them', async () => {
    const cfg = async (args: readonly string[]): Promise<Config> => {
      const r = await parseArgs(args, { defaultHost: () => ({ error: 'none' }) })
      if (r.kind !== 'run') throw new Error('not a run')
      return r.config
    }
    const c = await cfg(['--initial-cluster-token', 't1'])
    const etcd = await openEtcd({ memory: true, memberId: c.memberId, clusterId: c.clusterId })
    try {
      const h = (await etcd.range({ key: 'k' })).header
      assert.deepEqual([h.memberId, h.clusterId], [c.memberId, c.clusterId])
      const backend = etcd.server.backend
      const again = startIdentity(backend, { memberId: 1n, clusterId: 2n })
      assert.deepEqual([again.memberId, again.clusterId], [c.memberId, c.clusterId])
    } finally {
      await etcd.close()
    }
  })
})

describe('--help', () => {
  it('describes every flag of the flag set, and only those', () => {
    const defined = flagSetOf(newFlags()).names().filter((n) => !IGNORED_FLAGS.includes(n) && n !== 'version' && n !== 'config-file')
    assert.deepEqual([...HELP_FLAGS].sort(), defined)
    const text = flagsHelp()
    for (const n of defined) assert.match(text, new RegExp(`^  --${n.replace(/\./g, '\\.')} '`, 'm'))
  })
})
