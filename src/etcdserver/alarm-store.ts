// Mirrors etcd etcdserver/api/v3alarm/alarms.go: raised alarms, persisted in the backend's `alarm` bucket
// exactly as etcd stores them (key = encoded etcdserverpb.AlarmMember, empty value).
import type { Backend } from '../backend/backend.js'
import { ALARM_CODES, decodeAlarmMember, encodeAlarmMember } from '../wire/alarm-member.js'
import type { AlarmMember, AlarmType } from './types/maintenance.js'

/**
 * An alarm as etcd's Status lists it: the Go protobuf text form of the AlarmMember, e.g.
 * `memberID:13988464155605699416 alarm:NOSPACE ` (each field followed by a space; zero fields left out).
 */
export function alarmText(m: AlarmMember): string {
  return (m.memberId !== 0n ? `memberID:${m.memberId} ` : '') + (m.alarm !== 'NONE' ? `alarm:${m.alarm} ` : '')
}

const keyOf = (memberId: bigint, alarm: AlarmType): string => `${alarm}/${memberId}`

/**
 * Raised alarms by type and member. Changes are buffered in the backend; the caller commits them. Load
 * with {@link AlarmStore.open}.
 */
export class AlarmStore {
  private readonly backend: Backend
  private readonly alarms = new Map<string, AlarmMember>()

  private constructor(backend: Backend) {
    this.backend = backend
  }

  /** Load the persisted alarms. */
  static async open(backend: Backend): Promise<AlarmStore> {
    const s = new AlarmStore(backend)
    const all = await backend.scan('alarm', new Uint8Array(0), new Uint8Array([0xff, 0xff]), Number.MAX_SAFE_INTEGER)
    for (const { key } of all) {
      const m = decodeAlarmMember(key)
      s.alarms.set(keyOf(m.memberId, m.alarm), m)
    }
    return s
  }

  /**
   * Raise an alarm for a member. Returns the alarm (the one already raised, if any), or undefined for type
   * NONE, which raises nothing (etcd-io/etcd#13084; 3.4.23 stores it). With `persist` false the alarm is
   * held in memory only (the backend refuses writes: the disk is full), so a restart forgets it.
   */
  activate(memberId: bigint, alarm: AlarmType, persist = true): AlarmMember | undefined {
    if (alarm === 'NONE') return undefined
    const k = keyOf(memberId, alarm)
    const had = this.alarms.get(k)
    if (had !== undefined) return had
    const m: AlarmMember = { memberId, alarm }
    // Buffered first: a backend that refuses writes throws, and then nothing is raised.
    if (persist) this.backend.put('alarm', encodeAlarmMember(m), new Uint8Array(0))
    this.alarms.set(k, m)
    return m
  }

  /** Clear a member's alarm. Returns it, or undefined when it was not raised. */
  deactivate(memberId: bigint, alarm: AlarmType): AlarmMember | undefined {
    const k = keyOf(memberId, alarm)
    const m = this.alarms.get(k)
    if (m === undefined) return undefined
    this.alarms.delete(k)
    this.backend.del('alarm', encodeAlarmMember(m))
    return m
  }

  /** Raised alarms of one type (NONE: of every type), ordered by type, then member ID. */
  get(alarm: AlarmType): AlarmMember[] {
    const out = [...this.alarms.values()].filter((m) => alarm === 'NONE' || m.alarm === alarm)
    return out.sort((a, b) =>
      a.alarm !== b.alarm ? ALARM_CODES[a.alarm] - ALARM_CODES[b.alarm] : a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0)
  }

  /** Whether any member has an alarm of this type raised. */
  has(alarm: AlarmType): boolean {
    for (const m of this.alarms.values()) if (m.alarm === alarm) return true
    return false
  }
}
