// Differential test for leases: seeded random KV traffic mixed with lease grants (explicit IDs from a
// small set, TTLs long enough not to expire during the run, some below the minimum or over the maximum),
// revokes, TimeToLive (with keys), Leases, and puts/txns attaching keys to those leases (or to unknown
// ones), against the real etcd and etcdlite, every response compared. What is not compared: the outer
// header's cluster/member/term (as in kv.differential), a TimeToLive's remaining `TTL` beyond "within two
// seconds of the granted TTL" (wall time passes differently on each server), and the order of a lease's
// keys and of the lease list (etcd returns them in Go map order). Replay with DIFF_SEEDS=<seed>.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import * as grpc from '@grpc/grpc-js'
import { openEtcd, type Etcd } from '../../src/embed/etcd.js'
import { loadEtcdProto } from '../../src/grpc/proto.js'
import { rawClient, unary, type RawClient, type UnaryCall } from '../helpers/grpc-client.js'
import { haveEtcd, startReferenceEtcd, type ServerProcess } from '../helpers/processes.js'
import { Prng, seedsFromEnv } from '../helpers/prng.js'
import { b, callOf, RequestGen, type GenState, type Op, type PbRequest } from './gen.js'
import { normError, normResponse, show, showRequest } from './normalize.js'

const SEEDS = seedsFromEnv('DIFF_SEEDS', [11, 12, 13, 14])
const OPS = Number(process.env['DIFF_OPS'] ?? 300)
const skip = haveEtcd() ? false : 'the reference `etcd` binary is not on PATH'

/** Lease IDs the test grants and revokes (one never granted), as int64 strings. */
const LEASES = ['1', '2', '3', '694d77aa9f9b2a01', '-5'].map((x) => (x.length > 8 ? BigInt('0x' + x).toString() : x))

type LeaseOp =
  | { readonly kind: 'grant' | 'revoke' | 'timeToLive' | 'leases'; readonly req: PbRequest }
  | Op

interface Client {
  readonly raw: RawClient
  readonly lease: Record<'grant' | 'revoke' | 'timeToLive' | 'leases', UnaryCall>
  close(): void
}

function connect(endpoint: string): Client {
  const raw = rawClient(endpoint)
  const proto = loadEtcdProto()
  const c = new proto.etcdserverpb.Lease(endpoint, grpc.credentials.createInsecure())
  return {
    raw,
    lease: {
      grant: unary(c, 'LeaseGrant'),
      revoke: unary(c, 'LeaseRevoke'),
      timeToLive: unary(c, 'LeaseTimeToLive'),
      leases: unary(c, 'LeaseLeases'),
    },
    close: () => {
      raw.close()
      c.close()
    },
  }
}

class LeaseGen {
  private readonly kv: RequestGen
  constructor(private readonly r: Prng, state: GenState) {
    this.kv = new RequestGen(r, state)
  }

  private leaseId(): string {
    return this.r.pick(LEASES)
  }

  /** Give some puts (top level and inside txns) a lease from the set. */
  private withLeases(req: PbRequest, isPut: boolean): PbRequest {
    if (isPut && req['ignore_lease'] !== true && this.r.chance(0.5)) req['lease'] = this.leaseId()
    for (const branch of ['success', 'failure']) {
      const ops = req[branch]
      if (!Array.isArray(ops)) continue
      for (const op of ops as PbRequest[]) {
        const put = op['request_put'] as PbRequest | undefined
        if (put !== undefined) this.withLeases(put, true)
        const sub = op['request_txn'] as PbRequest | undefined
        if (sub !== undefined) this.withLeases(sub, false)
      }
    }
    return req
  }

  op(): LeaseOp {
    const kind = this.r.weighted<'kv' | 'grant' | 'revoke' | 'timeToLive' | 'leases'>([[60, 'kv'], [14, 'grant'], [8, 'revoke'], [13, 'timeToLive'], [5, 'leases']])
    switch (kind) {
      case 'kv': {
        const op = this.kv.op()
        return op.kind === 'put' || op.kind === 'txn' ? { kind: op.kind, req: this.withLeases(op.req, op.kind === 'put') } : op
      }
      case 'grant': {
        const ttl = this.r.weighted<string>([[80, String(this.r.between(1000, 5000))], [10, String(this.r.between(-3, 1))], [10, '9000000001']])
        return { kind, req: { ID: this.leaseId(), TTL: ttl } }
      }
      case 'revoke': return { kind, req: { ID: this.leaseId() } }
      case 'timeToLive': return { kind, req: { ID: this.leaseId(), keys: this.r.chance(0.7) } }
      case 'leases': return { kind, req: {} }
    }
  }
}

const obj = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {})
const rev = (res: Record<string, unknown>): unknown => obj(res['header'])['revision']

/**
 * `grantedAt`: when the test sent the grant of each lease ID (performance.now()), so the remaining TTL can be
 * checked against the time that has really passed: on a slow machine a lease granted early in a run is
 * seconds old by the time it is asked about, on both servers alike.
 */
function normLease(op: LeaseOp, res: Record<string, unknown>, grantedAt: ReadonlyMap<string, number> = new Map()): unknown {
  switch (op.kind) {
    case 'grant': return { rev: rev(res), ID: res['ID'], TTL: res['TTL'], error: res['error'] }
    case 'revoke': return { rev: rev(res) }
    case 'leases': return { rev: rev(res), leases: (res['leases'] as Array<Record<string, unknown>>).map((l) => String(l['ID'])).sort() }
    case 'timeToLive': {
      const granted = Number(res['grantedTTL'])
      const ttl = Number(res['TTL'])
      // Remaining time: -1 (unknown) exactly; otherwise at most the granted TTL and at least what is left of
      // it after the seconds since the grant was sent, less 2 s of rounding and clock slack.
      const sent = grantedAt.get(String(res['ID']))
      const age = sent === undefined ? 0 : Math.ceil((performance.now() - sent) / 1000)
      const left = ttl === -1 ? -1 : ttl <= granted && ttl >= granted - age - 2 ? 'about granted' : `off: ${ttl}/${granted}`
      return { rev: rev(res), ID: res['ID'], grantedTTL: res['grantedTTL'], left, keys: (res['keys'] as Uint8Array[]).map(show).sort() }
    }
    case 'range': case 'put': case 'deleteRange': case 'txn': case 'compact': return normResponse(op, res)
  }
}

function call(c: Client, op: LeaseOp): Promise<Record<string, unknown>> {
  switch (op.kind) {
    case 'grant': case 'revoke': case 'timeToLive': case 'leases': return c.lease[op.kind](op.req)
    case 'range': case 'put': case 'deleteRange': case 'txn': case 'compact': return callOf(c.raw, op.kind)(op.req)
  }
}

async function runSeed(seed: number): Promise<{ errors: number; rev: number }> {
  let refProc: ServerProcess | undefined
  let ours: Etcd | undefined
  const clients: Client[] = []
  try {
    // A grant below the minimum TTL gets the minimum: with etcd's default (2 s) such a lease could expire
    // during the run, at a different moment on each server. An election timeout of 10 s (heartbeat 1 s)
    // makes the minimum 15 s on both, longer than any run.
    refProc = await startReferenceEtcd(['--election-timeout', '10000', '--heartbeat-interval', '1000'])
    ours = await openEtcd({ memory: true, minLeaseTtl: 15 })
    const l = await ours.listen({ port: 0 })
    const ref = connect(refProc.endpoint)
    const mine = connect(l.endpoint)
    clients.push(ref, mine)
    const state: GenState = { rev: 1, compactRev: 0 }
    const gen = new LeaseGen(new Prng(seed), state)
    let errors = 0
    const grantedAt = new Map<string, number>()
    for (let i = 0; i < OPS; i++) {
      const op = gen.op()
      const sentAt = performance.now()
      const [r, o] = await Promise.allSettled([call(ref, op), call(mine, op)])
      if (op.kind === 'grant' && r.status === 'fulfilled') grantedAt.set(String(r.value['ID']), sentAt)
      const want = r.status === 'fulfilled' ? normLease(op, r.value, grantedAt) : normError(r.reason)
      const got = o.status === 'fulfilled' ? normLease(op, o.value, grantedAt) : normError(o.reason)
      assert.deepStrictEqual(got, want, [
        `lease differential mismatch: seed=${seed} op#${i} (${op.kind}); replay with DIFF_SEEDS=${seed}`,
        `request: ${JSON.stringify(showRequest(op.req))}`,
        `etcd:    ${JSON.stringify(want)}`,
        `ours:    ${JSON.stringify(got)}`,
      ].join('\n'))
      if (r.status === 'fulfilled') {
        const h = Number(rev(r.value))
        if (Number.isSafeInteger(h)) state.rev = Math.max(state.rev, h)
        if (op.kind === 'compact') state.compactRev = Math.max(state.compactRev, Number(op.req['revision']))
      } else errors++
    }
    // The final state: every key with its lease, on both.
    const all: Op = { kind: 'range', req: { key: b('\x00'), range_end: b('\x00') } }
    const [r, o] = await Promise.all([call(ref, all), call(mine, all)])
    assert.deepStrictEqual(normLease(all, o), normLease(all, r), 'final contents')
    return { errors, rev: state.rev }
  } finally {
    for (const c of clients) c.close()
    await ours?.close()
    await refProc?.dispose()
  }
}

describe('Lease differential: etcdlite vs etcd 3.4', { skip }, () => {
  for (const seed of SEEDS) {
    it(`seed ${seed}: ${OPS} random lease and KV ops answer identically`, { timeout: 120_000 }, async (t) => {
      const s = await runSeed(seed)
      t.diagnostic(`seed ${seed}: ${OPS} ops, ${s.errors} errors (both), final rev ${s.rev}`)
    })
  }
})
