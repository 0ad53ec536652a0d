// Mirrors etcd etcdserver/api/v3alarm/alarms.go: raised alarms, persisted in the backend's `alarm` bucket
// exactly as etcd stores them (key = encoded etcdserverpb.AlarmMember, empty value).
import type { Backend } from '../backend/backend.js'
import { Reader, WIRE_VARINT, bigVarintSize, varintSize, writeBigVarint, writeVarint } from '../pkg/proto-wire.js'
import type { AlarmMember, AlarmType } from './types/maintenance.js'

/** AlarmType enum values on the wire (etcdserverpb.AlarmType). */
const ALARM_CODES: Readonly<Record<AlarmType, number>> = { NONE: 0, NOSPACE: 1, CORRUPT: 2 }
const ALARM_NAMES: readonly AlarmType[] = ['NONE', 'NOSPACE', 'CORRUPT']

/** Encode an AlarmMember as etcd does (proto3: zero fields left out). */
export function encodeAlarmMember(m: AlarmMember): Uint8Array {
  const code = ALARM_CODES[m.alarm]
  const size = (m.memberId !== 0n ? 1 + bigVarintSize(m.memberId) : 0) + (code !== 0 ? 1 + varintSize(code) : 0)
  const out = new Uint8Array(size)
  let pos = 0
  if (m.memberId !== 0n) {
    out[pos++] = (1 << 3) | WIRE_VARINT
    pos = writeBigVarint(out, pos, m.memberId)
  }
  if (code !== 0) {
    out[pos++] = (2 << 3) | WIRE_VARINT
    writeVarint(out, pos, code)
  }
  return out
}

/** Decode a stored AlarmMember; unknown fields are skipped, an unknown alarm code reads as NONE. */
export function decodeAlarmMember(b: Uint8Array): AlarmMember {
  let memberId = 0n
  let alarm: AlarmType = 'NONE'
  const r = new Reader(b)
  while (!r.done) {
    const tag = r.varint()
    const field = Math.floor(tag / 8)
    const wt = tag & 7
    if (field === 1 && wt === WIRE_VARINT) memberId = BigInt.asUintN(64, r.bigVarint())
    else if (field === 2 && wt === WIRE_VARINT) alarm = ALARM_NAMES[r.varint()] ?? 'NONE'
    else r.skip(wt)
  }
  return { memberId, alarm }
}

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
