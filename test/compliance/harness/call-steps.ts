// Lease and maintenance steps: CallSession runs them for one case, resolving IDs that earlier steps
// captured, comparing each response with its LooseWant (exact fields exactly, matcher fields by their
// predicate) and checking every header like a KV header.
import assert from 'node:assert/strict'
import type { ResponseHeader } from '../../../src/etcdserver/types/header.js'
import { ClientError, type EtcdTestClient } from './client.js'
import { NO_HEADER, type IdRef, type LeaseStep, type MaintenanceStep, type Step, type WantError } from './case.js'
import { settle, type MatchContext } from './match.js'

export type CallStep = LeaseStep | MaintenanceStep

const CALL_KEYS = ['leaseGrant', 'leaseRevoke', 'leaseKeepAlive', 'leaseTimeToLive', 'leaseLeases', 'status', 'hash', 'hashKV', 'alarm', 'defragment', 'moveLeader', 'memberList', 'downgrade'] as const

export function isCallStep(s: Step): s is CallStep {
  return CALL_KEYS.some((k) => k in s)
}

/** The suite's view(): the compared form of a response (bytes as latin1 strings, no undefined fields). */
export type Viewer = (x: unknown) => unknown
export type HeaderCheck = (h: ResponseHeader, where: string) => void

type Reply = { readonly header?: ResponseHeader }
type Compared = Record<string, unknown>
type Outcome = { readonly ok: Compared[]; readonly headers: (ResponseHeader | undefined)[] } | { readonly err: WantError }

const byString = (x: unknown, y: unknown): number => (String(x) < String(y) ? -1 : String(x) > String(y) ? 1 : 0)
const byId = (x: unknown, y: unknown): number => {
  const a = (x as { id?: unknown }).id
  const b = (y as { id?: unknown }).id
  return typeof a === 'bigint' && typeof b === 'bigint' ? (a < b ? -1 : a > b ? 1 : 0) : 0
}

/** The lease and maintenance steps of one case; `saved` holds what capture() matchers took. */
export class CallSession {
  readonly saved = new Map<string, unknown>()
  private readonly client: EtcdTestClient
  private readonly view: Viewer
  private readonly checkHeader: HeaderCheck

  constructor(client: EtcdTestClient, view: Viewer, checkHeader: HeaderCheck) {
    this.client = client
    this.view = view
    this.checkHeader = checkHeader
  }

  private id(r: IdRef, where: string): bigint {
    if (typeof r === 'bigint') return r
    const v = this.saved.get(r.saved)
    if (typeof v !== 'bigint') assert.fail(`${where}: no ID was captured as ${r.saved}`)
    return v
  }

  /** Send the step's call; resolves with its responses (one, or one per keep-alive request). */
  private send(s: CallStep, where: string): { name: string; p: Promise<readonly Reply[]> } {
    const c = this.client
    const one = (p: Promise<Reply>): Promise<readonly Reply[]> => p.then((r) => [r])
    if ('leaseGrant' in s) return { name: 'leaseGrant', p: one(c.leaseGrant(s.leaseGrant)) }
    if ('leaseRevoke' in s) return { name: 'leaseRevoke', p: one(c.leaseRevoke({ id: this.id(s.leaseRevoke.id, where) })) }
    if ('leaseKeepAlive' in s) return { name: 'leaseKeepAlive', p: c.leaseKeepAlive(s.leaseKeepAlive.map((r) => ({ id: this.id(r.id, where) }))) }
    if ('leaseTimeToLive' in s) {
      const { id, ...rest } = s.leaseTimeToLive
      return { name: 'leaseTimeToLive', p: one(c.leaseTimeToLive({ ...rest, id: this.id(id, where) })) }
    }
    if ('leaseLeases' in s) return { name: 'leaseLeases', p: one(c.leaseLeases()) }
    if ('status' in s) return { name: 'status', p: one(c.status()) }
    if ('hash' in s) return { name: 'hash', p: one(c.hash()) }
    if ('hashKV' in s) return { name: 'hashKV', p: one(c.hashKV(s.hashKV)) }
    if ('alarm' in s) return { name: 'alarm', p: one(c.alarm({ ...s.alarm, memberId: this.id(s.alarm.memberId, where) })) }
    if ('defragment' in s) return { name: 'defragment', p: one(c.defragment()) }
    if ('moveLeader' in s) return { name: 'moveLeader', p: one(c.moveLeader({ targetId: this.id(s.moveLeader.targetId, where) })) }
    if ('downgrade' in s) return { name: 'downgrade', p: one(c.downgrade(s.downgrade)) }
    return { name: 'memberList', p: one(s.memberList === true ? c.memberList() : c.memberList(s.memberList)) }
  }

  /** The compared form: view() of everything but the header, `rev` from the header, unordered lists sorted. */
  private compared(r: Reply): Compared {
    const { header, ...rest } = r
    const v = this.view(rest) as Compared
    const keys: unknown = v['keys']
    if (Array.isArray(keys)) v['keys'] = [...(keys as unknown[])].sort(byString)
    const leases: unknown = v['leases']
    if (Array.isArray(leases)) v['leases'] = [...(leases as unknown[])].sort(byId)
    return { ...v, rev: header === undefined ? NO_HEADER : header.revision }
  }

  private async outcome(p: Promise<readonly Reply[]>): Promise<Outcome> {
    let rs: readonly Reply[]
    try {
      rs = await p
    } catch (e) {
      if (e instanceof ClientError) return { err: { code: e.code, message: e.message } }
      throw e
    }
    return { ok: rs.map((r) => this.compared(r)), headers: rs.map((r) => r.header) }
  }

  /** Run one step; `where` names it in failures. */
  async run(s: CallStep, where: string): Promise<void> {
    const { name, p } = this.send(s, where)
    const at = `${where} (${name})`
    const got = await this.outcome(p)
    if ('err' in got) {
      if (s.err !== undefined) assert.deepStrictEqual(got, { err: s.err }, `${at}: want error`)
      else assert.fail(`${at}: failed: ${got.err.code} ${got.err.message}`)
      return
    }
    for (const [i, h] of got.headers.entries()) if (h !== undefined) this.checkHeader(h, `${at} response ${i + 1}`)
    if (s.err !== undefined) assert.fail(`${at}: want error ${s.err.code} ${s.err.message}, got a response`)
    if (s.want === undefined) return
    const wants: readonly unknown[] = Array.isArray(s.want) ? s.want : [s.want]
    assert.equal(got.ok.length, wants.length, `${at}: number of responses`)
    for (const [i, want] of wants.entries()) {
      const response: Compared = got.ok[i] ?? {}
      const ctx: MatchContext = { saved: this.saved, header: got.headers[i], response }
      assert.deepStrictEqual(settle(want, response, ctx), want, `${at}: want response${wants.length > 1 ? ` ${i + 1}` : ''}`)
    }
  }
}
