// etcd 3.5.11+'s named health checks behind /livez and /readyz (server/etcdserver/api/etcdhttp/health.go:
// CheckRegistry). /livez runs serializable_read; /readyz runs data_corruption, serializable_read and
// linearizable_read. Each check also has its own sub-path (/livez/serializable_read, /readyz/data_corruption,
// ...). etcd keeps the checks in a Go map, so its lines come in no fixed order; etcdlite lists them in
// registration order, one of the orders etcd may print.
import type { EtcdServer } from '../etcdserver/etcd-server.js'
import type { AlarmType } from '../etcdserver/types/maintenance.js'
import { isEtcdError } from '../pkg/errors.js'
import { errorMessage } from '../pkg/as-error.js'

/** Which registry: etcd's checkTypeLivez or checkTypeReadyz. */
export type CheckType = 'livez' | 'readyz'

/** One check: undefined when it passes, else the error text etcd prints after "failed: ". */
type HealthCheck = (server: EtcdServer) => string | undefined

/** etcd's activeAlarmCheck: fails while an alarm of that type is raised ("alarm activated: CORRUPT"). */
function activeAlarmCheck(alarm: AlarmType): HealthCheck {
  return (server) => (server.maintenance.alarmList().some((a) => a.alarm === alarm) ? `alarm activated: ${alarm}` : undefined)
}

/**
 * etcd's readCheck: a one-key keys-only Range, serializable or not. etcd runs it as root (AuthStore.WithRoot),
 * so with auth on a refusal for want of a user or a permission cannot happen there and does not fail it here.
 */
function readCheck(serializable: boolean): HealthCheck {
  return (server) => {
    try {
      server.kvService.range({ key: new Uint8Array([0]), rangeEnd: new Uint8Array([0]), limit: 1, keysOnly: true, serializable })
    } catch (err) {
      if (isEtcdError(err, 'USER_EMPTY') || isEtcdError(err, 'PERMISSION_DENIED')) return undefined
      return errorMessage(err)
    }
    return undefined
  }
}

const REGISTRIES: Readonly<Record<CheckType, ReadonlyMap<string, HealthCheck>>> = {
  livez: new Map([['serializable_read', readCheck(true)]]),
  readyz: new Map([
    ['data_corruption', activeAlarmCheck('CORRUPT')],
    ['serializable_read', readCheck(true)],
    ['linearizable_read', readCheck(false)],
  ]),
}

/** The outcome of running some checks: etcd's HealthStatus (reason: one "[+]name ok" / "[-]name failed: why" line each). */
export interface CheckResult {
  readonly ok: boolean
  readonly reason: string
  /** Each check run, and whether it passed (for etcd_server_healthcheck and etcd_server_healthchecks_total). */
  readonly results: ReadonlyArray<readonly [name: string, ok: boolean]>
}

/** Run the named checks of one registry, in the order given (etcd's runHealthChecks). */
export function runHealthChecks(server: EtcdServer, type: CheckType, names: readonly string[]): CheckResult {
  const registry = REGISTRIES[type]
  let reason = ''
  const results: Array<readonly [string, boolean]> = []
  for (const name of names) {
    const check = registry.get(name)
    if (check === undefined) throw new Error(`Health check: ${name} not registered`)
    const failure = check(server)
    reason += failure === undefined ? `[+]${name} ok\n` : `[-]${name} failed: ${failure}\n`
    results.push([name, failure === undefined])
  }
  return { ok: results.every(([, ok]) => ok), reason, results }
}

/**
 * The checks a path selects: the root path (/livez, /readyz) runs every check but those named in ?exclude=
 * (an unknown name is ignored, as etcd only logs it); a sub-path (/readyz/linearizable_read) runs that one
 * check and ignores ?exclude=. Undefined for any other path (404, like Go's ServeMux: no /livez/ or
 * /livez/unknown).
 */
export function checksFor(pathname: string, url: URL): { readonly type: CheckType; readonly names: readonly string[] } | undefined {
  for (const type of ['livez', 'readyz'] as const) {
    const names = [...REGISTRIES[type].keys()]
    if (pathname === `/${type}`) {
      const excluded = new Set(url.searchParams.getAll('exclude'))
      return { type, names: names.filter((n) => !excluded.has(n)) }
    }
    const sub = names.find((n) => pathname === `/${type}/${n}`)
    if (sub !== undefined) return { type, names: [sub] }
  }
  return undefined
}
