// Auth steps: AuthSession runs the auth steps of one case (case.ts AuthStep): Auth calls, principals
// (clients acting as a user, or carrying a raw token), any other step run as a principal, permission-matrix
// cells (every differing cell reported in one table) and waiting out a token's TTL.
import assert from 'node:assert/strict'
import { inspect, isDeepStrictEqual } from 'node:util'
import { status } from '@grpc/grpc-js'
import type { ResponseHeader } from '../../../src/etcdserver/types/header.js'
import { ClientError, type EtcdTestClient } from './client.js'
import { b, type AuthCallStep, type AuthStep, type KvStep, type MatrixRow, type Step, type WantError } from './case.js'
import { CallSession, isCallStep } from './call-steps.js'
import { settle, type MatchContext } from './match.js'
import { isWatchStep, WatchSession, type HeaderCheck, type Viewer } from './watch-steps.js'
import { errorMessage } from '../../../src/pkg/as-error.js'

/** Runs one KV step on a client exactly as the suite runs it on the case's own client (suite.ts). */
export type KvRunner = (c: EtcdTestClient, s: KvStep, where: string) => Promise<void>

const AUTH_CALLS = [
  'authEnable', 'authDisable', 'authStatus', 'authenticate', 'userAdd', 'userGet', 'userList', 'userDelete',
  'userChangePassword', 'userGrantRole', 'userRevokeRole', 'roleAdd', 'roleGet', 'roleList', 'roleDelete',
  'roleGrantPermission', 'roleRevokePermission',
] as const
const AUTH_KEYS: readonly string[] = [...AUTH_CALLS, 'login', 'useToken', 'logout', 'as', 'matrix', 'expireToken', 'advanceMs']

export function isAuthStep(s: Step): s is AuthStep {
  return AUTH_KEYS.some((k) => k in s)
}

/** gRPC status names by number, for failure messages. */
const STATUS_NAME: ReadonlyMap<number, string> = new Map(
  Object.entries(status).filter((e): e is [string, number] => typeof e[1] === 'number').map(([k, v]) => [v, k]),
)
/** What a cell got: success, a ClientError, or anything else thrown (a broken adapter or server). */
type Got = 'ok' | WantError | { readonly thrown: string }
const describeOutcome = (x: Got): string =>
  x === 'ok' ? 'ok' : 'thrown' in x ? x.thrown : `${STATUS_NAME.get(x.code) ?? x.code} "${x.message}"`
const UNAUTHENTICATED: number = status.UNAUTHENTICATED
/** A matrix failure lists this many differing cells, then counts the rest. */
const MAX_DIFFS_SHOWN = 40

/**
 * How long a real-time server may take past the TTL to drop an unused token: etcd sweeps tokens once a
 * second, and the reference runs several servers at once on two cores. It only bounds a failing case.
 */
const EXPIRY_SLACK_MS = 4000
/** Probe spacing while waiting for a token to expire (each probe uses up one fresh token). */
const PROBE_EVERY_MS = 150

interface Principal {
  readonly client: EtcdTestClient
  readonly token: string | undefined
  readonly watches: WatchSession
  readonly calls: CallSession
}

type Reply = { readonly header?: ResponseHeader }

/** The principals and auth steps of one case; close() releases every principal's client and streams. */
export class AuthSession {
  private readonly principals = new Map<string, Principal>()
  private readonly base: EtcdTestClient
  private readonly view: Viewer
  private readonly checkHeader: HeaderCheck
  private readonly runKv: KvRunner
  private readonly saved = new Map<string, unknown>()

  constructor(base: EtcdTestClient, view: Viewer, checkHeader: HeaderCheck, runKv: KvRunner) {
    this.base = base
    this.view = view
    this.checkHeader = checkHeader
    this.runKv = runKv
  }

  private principal(name: string, where: string): Principal {
    const p = this.principals.get(name)
    if (p === undefined) assert.fail(`${where}: no principal ${name} (log in first)`)
    return p
  }

  private add(name: string, client: EtcdTestClient, token: string | undefined, where: string): void {
    assert.ok(!this.principals.has(name), `${where}: principal ${name} exists already`)
    const check: HeaderCheck = (h, at) => this.checkHeader(h, at)
    this.principals.set(name, {
      client, token, watches: new WatchSession(client, this.view, check), calls: new CallSession(client, this.view, check),
    })
  }

  /** Run one auth step; `where` names it in failures. */
  async run(s: AuthStep, where: string): Promise<void> {
    if ('login' in s) return this.login(s, where)
    if ('useToken' in s) {
      const withToken = this.base.withToken
      if (withToken === undefined) assert.fail(`${where}: this adapter cannot send raw tokens (the case must require authToken)`)
      const token = typeof s.useToken === 'string' ? s.useToken : this.principal(s.useToken.of, where).token
      if (token === undefined) assert.fail(`${where}: principal ${typeof s.useToken === 'string' ? '' : s.useToken.of} has no known token`)
      this.add(s.name, withToken(token), token, where)
      return
    }
    if ('logout' in s) {
      const p = this.principal(s.logout, where)
      this.principals.delete(s.logout)
      p.watches.close()
      await p.client.close()
      return
    }
    if ('step' in s) {
      const p = this.principal(s.as, where)
      const inner = s.step
      const at = `${where} as ${s.as}`
      if (isWatchStep(inner)) await p.watches.run(inner, `${at} (watch stream ${inner.stream})`)
      else if (isCallStep(inner)) await p.calls.run(inner, at)
      else await this.runKv(p.client, inner, at)
      return
    }
    if ('matrix' in s) return this.matrix(s.matrix, where)
    if ('expireToken' in s) return this.expireToken(s, where)
    if ('advanceMs' in s) {
      const advance = this.base.advanceTime
      if (advance === undefined) assert.fail(`${where}: this adapter has no ManualClock (the case must require manualClock)`)
      await advance(s.advanceMs)
      return
    }
    return this.call(s, where)
  }

  private async login(s: Extract<AuthStep, { readonly login: string }>, where: string): Promise<void> {
    const via = s.via === undefined ? this.base : this.principal(s.via, where).client
    const at = `${where} (login ${s.login})`
    let got: Awaited<ReturnType<EtcdTestClient['login']>>
    try {
      got = await via.login(s.login, s.password)
    } catch (e) {
      expectFailure(e, s.err, at)
      return
    }
    if (s.err !== undefined) {
      await got.client.close()
      assert.fail(`${at}: want error ${describeOutcome(s.err)}, but the login succeeded`)
    }
    this.add(s.name ?? s.login, got.client, got.token, at)
  }

  /** Send one Auth call on the step's client. */
  private send(s: AuthCallStep, where: string): { name: string; p: Promise<Reply> } {
    const c = s.as === undefined ? this.base : this.principal(s.as, where).client
    if ('authEnable' in s) return { name: 'authEnable', p: c.authEnable() }
    if ('authDisable' in s) return { name: 'authDisable', p: c.authDisable() }
    if ('authStatus' in s) return { name: 'authStatus', p: c.authStatus() }
    if ('authenticate' in s) return { name: 'authenticate', p: c.authenticate(s.authenticate) }
    if ('userAdd' in s) return { name: 'userAdd', p: c.userAdd(s.userAdd) }
    if ('userGet' in s) return { name: 'userGet', p: c.userGet(s.userGet) }
    if ('userList' in s) return { name: 'userList', p: c.userList() }
    if ('userDelete' in s) return { name: 'userDelete', p: c.userDelete(s.userDelete) }
    if ('userChangePassword' in s) return { name: 'userChangePassword', p: c.userChangePassword(s.userChangePassword) }
    if ('userGrantRole' in s) return { name: 'userGrantRole', p: c.userGrantRole(s.userGrantRole) }
    if ('userRevokeRole' in s) return { name: 'userRevokeRole', p: c.userRevokeRole(s.userRevokeRole) }
    if ('roleAdd' in s) return { name: 'roleAdd', p: c.roleAdd(s.roleAdd) }
    if ('roleGet' in s) return { name: 'roleGet', p: c.roleGet(s.roleGet) }
    if ('roleList' in s) return { name: 'roleList', p: c.roleList() }
    if ('roleDelete' in s) return { name: 'roleDelete', p: c.roleDelete(s.roleDelete) }
    if ('roleGrantPermission' in s) return { name: 'roleGrantPermission', p: c.roleGrantPermission(s.roleGrantPermission) }
    return { name: 'roleRevokePermission', p: c.roleRevokePermission(s.roleRevokePermission) }
  }

  private async call(s: AuthCallStep, where: string): Promise<void> {
    const { name, p } = this.send(s, where)
    const at = `${where} (${name}${s.as === undefined ? '' : ` as ${s.as}`})`
    let r: Reply
    try {
      r = await p
    } catch (e) {
      expectFailure(e, s.err, at)
      return
    }
    if (r.header !== undefined) this.checkHeader(r.header, at)
    if (s.err !== undefined) assert.fail(`${at}: want error ${describeOutcome(s.err)}, got a response`)
    if (s.want === undefined) return
    const { header, ...rest } = r
    const response = { ...(this.view(rest) as Record<string, unknown>), rev: header?.revision }
    const ctx: MatchContext = { saved: this.saved, header, response }
    assert.deepStrictEqual(settle(s.want, response, ctx), s.want, `${at}: want response`)
  }

  /** Run every row's cells as its principal; fail once, listing every cell that differs. */
  private async matrix(rows: readonly MatrixRow[], where: string): Promise<void> {
    const diffs: string[] = []
    let total = 0
    for (const row of rows) {
      const c = row.as === undefined ? this.base : this.principal(row.as, where).client
      for (const cell of row.cells) {
        total++
        let got: Got
        try {
          await cell.run(c)
          got = 'ok'
        } catch (e) {
          // Anything but a ClientError is reported in the table too, so one broken cell hides no other.
          got = e instanceof ClientError ? { code: e.code, message: e.message } : { thrown: `not a ClientError: ${inspect(e)}` }
        }
        if (!isDeepStrictEqual(got, cell.want)) diffs.push(`${row.as ?? '(no credentials)'} | ${cell.name}: want ${describeOutcome(cell.want)}, got ${describeOutcome(got)}`)
      }
    }
    if (diffs.length === 0) return
    const shown = diffs.slice(0, MAX_DIFFS_SHOWN)
    const more = diffs.length > shown.length ? `\n    ... and ${diffs.length - shown.length} more` : ''
    assert.fail(`${where}: ${diffs.length} of ${total} cells differ (principal | operation):\n    ${shown.join('\n    ')}${more}`)
  }

  private async expireToken(s: Extract<AuthStep, { readonly expireToken: string }>, where: string): Promise<void> {
    this.principal(s.expireToken, where)
    const ttlMs = s.ttl * 1000
    if (this.base.advanceTime !== undefined) {
      // One TTL plus etcd's one-second sweep resolution.
      await this.base.advanceTime(ttlMs + 1000)
      return
    }
    const withToken = this.base.withToken
    if (withToken === undefined) assert.fail(`${where}: waiting for a token to expire needs raw tokens (supports.authToken)`)
    const probes: string[] = []
    const count = Math.ceil((ttlMs + EXPIRY_SLACK_MS) / PROBE_EVERY_MS)
    for (let i = 0; i < count; i++) probes.push((await this.base.authenticate({ name: s.user, password: s.password })).token)
    for (const token of probes) {
      const probe = withToken(token)
      try {
        await probe.range({ key: b('\x00expiry-probe') })
      } catch (e) {
        if (e instanceof ClientError && e.code === UNAUTHENTICATED) return
      } finally {
        await probe.close()
      }
      await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS))
    }
    assert.fail(`${where}: fresh tokens of ${s.user} were still valid ${ttlMs + EXPIRY_SLACK_MS} ms after their creation (TTL ${s.ttl} s)`)
  }

  /** After the last step: no principal's stream may hold a response the case did not expect. */
  assertDrained(): void {
    for (const [name, p] of this.principals) {
      try {
        p.watches.assertDrained()
      } catch (e) {
        assert.fail(`principal ${name}: ${errorMessage(e)}`)
      }
    }
  }

  async close(): Promise<void> {
    const ps = [...this.principals.values()]
    this.principals.clear()
    for (const p of ps) p.watches.close()
    await Promise.all(ps.map((p) => p.client.close()))
  }
}

/** A step failed with `e`: it must be a ClientError, and the step must have wanted exactly that error. */
function expectFailure(e: unknown, want: { readonly code: number; readonly message: string } | undefined, at: string): void {
  if (!(e instanceof ClientError)) throw e
  const err = { code: e.code, message: e.message }
  if (want === undefined) assert.fail(`${at}: failed: ${describeOutcome(err)}`)
  assert.deepStrictEqual({ err }, { err: want }, `${at}: want error`)
}
