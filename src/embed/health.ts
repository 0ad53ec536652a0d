// etcd's /health checks (etcd 3.5 server/etcdserver/api/etcdhttp/metrics.go): the alarms, then a read that
// must succeed, a Range of the v3 store or, with the v2 API on, a quorum read of the v2 store. http.ts
// answers them in the body of the version etcdlite reports.
import type { EtcdServer } from '../etcdserver/etcd-server.js'
import type { AlarmType } from '../etcdserver/types/maintenance.js'
import type { V2Server } from '../etcdserver/v2-server.js'
import { requestV2 } from '../etcdserver/v2-request.js'
import { errorMessage } from '../pkg/as-error.js'
import { isEtcdError } from '../pkg/errors.js'

/** etcd's /health body (3.5): health "true"/"false", and why not. */
export interface Health {
  readonly health: 'true' | 'false'
  readonly reason: string
}

/** The types of the alarms raised on the server, in Status order. */
const raisedAlarms = (server: EtcdServer): readonly AlarmType[] => server.maintenance.alarmList().map((a) => a.alarm)

/**
 * etcd 3.5's checkV3Health for a single member: an alarm not excluded fails it ("ALARM NOSPACE"), there is
 * always a leader, then a one-key keys-only Range must succeed ("RANGE ERROR:<message>" otherwise). The
 * check carries no credentials: with auth on, the refusal of the Range (no user, or no permission) still
 * shows a working server, as etcd counts it.
 */
export function checkHealth(server: EtcdServer, excluded: ReadonlySet<string>, serializable: boolean): Health {
  const alarms = checkAlarms(server, excluded)
  if (alarms.health !== 'true') return alarms
  try {
    server.kvService.range({ key: new Uint8Array([0]), rangeEnd: new Uint8Array([0]), limit: 1, keysOnly: true, serializable })
  } catch (err) {
    if (!isEtcdError(err, 'USER_EMPTY') && !isEtcdError(err, 'PERMISSION_DENIED')) {
      return { health: 'false', reason: `RANGE ERROR:${errorMessage(err)}` }
    }
  }
  return { health: 'true', reason: '' }
}

/** etcd's checkAlarms: the first raised alarm not excluded fails the check. */
function checkAlarms(server: EtcdServer, excluded: ReadonlySet<string>): Health {
  for (const alarm of raisedAlarms(server)) {
    if (alarm === 'NONE' || excluded.has(alarm)) continue
    return { health: 'false', reason: alarm === 'NOSPACE' || alarm === 'CORRUPT' ? `ALARM ${alarm}` : 'ALARM UNKNOWN' }
  }
  return { health: 'true', reason: '' }
}

/** etcd 3.5's /health with the v2 API on: the alarms, then a quorum read of the v2 store (one raft entry). */
export async function checkV2Health(server: EtcdServer, v2: V2Server, excluded: ReadonlySet<string>): Promise<Health> {
  const alarms = checkAlarms(server, excluded)
  if (alarms.health !== 'true') return alarms
  try {
    await v2.do(requestV2({ method: 'QGET', path: '' }))
  } catch (err) {
    return { health: 'false', reason: `QGET ERROR:${errorMessage(err)}` }
  }
  return { health: 'true', reason: '' }
}
