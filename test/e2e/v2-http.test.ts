// The v2 HTTP API (enableV2) request by request: v2-cases.ts holds ~230 requests (keys, compare-and-swap,
// directories, hidden keys, in-order keys, form and query parsing, JSON escaping, errors, members, stats,
// auth users/roles/enable with basic auth and the guest role, the mux's redirects and 404s, TTLs) and what
// etcd 3.4.23 answered to each, in order, on a fresh server. etcdlite must answer the same (or, where
// marked, as etcd 3.5.17 does); the real etcd, when installed, must still answer as recorded, which keeps
// the record honest. Without --enable-v2 the v2 paths are etcd 3.5's 404.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { openEtcd } from '../../src/embed/etcd.js'
import { haveEtcd, startReferenceEtcd } from '../helpers/processes.js'
import { OutcomeReducer, clusterVersionDecided, send, type Outcome } from '../helpers/v2-http.js'
import { V2_CASES } from './v2-cases.js'

/** Send every case in order; returns each outcome (raft steps dropped where the case says so). */
async function runCases(endpoint: string): Promise<Outcome[]> {
  const members = JSON.parse((await send(endpoint, { method: 'GET', path: '/v2/members' })).body) as { members: { id: string }[] }
  const self = members.members[0]?.id ?? ''
  const reducer = new OutcomeReducer()
  const out: Outcome[] = []
  for (const c of V2_CASES) {
    const o = reducer.reduce(await send(endpoint, { ...c, path: c.path.replace('{self}', self) }), c.unordered === true)
    out.push(c.noRaft === true ? dropRaft(o) : o)
  }
  return out
}

function dropRaft(o: Outcome): Outcome {
  const rest = { ...o }
  delete rest.raftStep
  return rest
}

/** Every case whose outcome differs from what is expected, with both. */
function mismatches(got: readonly Outcome[], expected: (i: number) => Outcome): string[] {
  const bad: string[] = []
  V2_CASES.forEach((c, i) => {
    const want = c.noRaft === true ? dropRaft(expected(i)) : expected(i)
    try {
      assert.deepEqual(got[i], want)
    } catch {
      bad.push(`#${i} ${c.method} ${c.path}${c.body === undefined ? '' : ` ${c.body}`}\n  got  ${JSON.stringify(got[i])}\n  want ${JSON.stringify(want)}`)
    }
  })
  return bad
}

describe('the v2 HTTP API, request by request', () => {
  it('etcdlite answers every recorded request as etcd does', async () => {
    // Named and advertised as the reference etcd is (test/helpers/processes.ts), so member JSON matches.
    const etcd = await openEtcd({ memory: true, enableV2: true, name: 'ref', peerUrls: ['http://127.0.0.1:0'] })
    try {
      const { endpoint } = await etcd.listen({ port: 0 })
      const got = await runCases(endpoint)
      assert.deepEqual(mismatches(got, (i) => V2_CASES[i]?.lite ?? (V2_CASES[i] as { want: Outcome }).want), [])
    } finally {
      await etcd.close()
    }
  })

  it('the real etcd with --enable-v2 still answers as recorded', { skip: !haveEtcd() && 'no etcd binary' }, async () => {
    const ref = await startReferenceEtcd(['--enable-v2'])
    try {
      await clusterVersionDecided(ref.endpoint)
      const got = await runCases(ref.endpoint)
      assert.deepEqual(mismatches(got, (i) => (V2_CASES[i] as { want: Outcome }).want), [])
    } finally {
      await ref.dispose()
    }
  })

  it('without enableV2 every v2 path is 404, as etcd 3.5 without --enable-v2', async () => {
    const etcd = await openEtcd({ memory: true })
    try {
      const { endpoint } = await etcd.listen({ port: 0 })
      for (const path of ['/v2/keys/foo', '/v2/members', '/v2/machines', '/v2/stats/self', '/v2/auth/enable']) {
        const r = await send(endpoint, { method: 'GET', path })
        assert.equal(r.status, 404, path)
        assert.equal(r.body, '404 page not found\n', path)
        assert.equal(r.headers['access-control-allow-origin'], '*', path)
      }
      const put = await send(endpoint, { method: 'PUT', path: '/v2/keys/foo', body: 'value=1' })
      assert.equal(put.status, 404)
      // The v3 /health still answers (with a Range, not a v2 read), and /livez exists.
      assert.equal((await send(endpoint, { method: 'GET', path: '/health' })).body, '{"health":"true","reason":""}')
      assert.equal((await send(endpoint, { method: 'GET', path: '/livez' })).status, 200)
    } finally {
      await etcd.close()
    }
  })
})
