// The scalar and enum mappings every protobuf <-> domain converter shares (convert.ts for the server's
// direction, convert-requests.ts and convert-responses.ts for the client's). int64 fields arrive as decimal
// strings (LOADER_OPTIONS longs: String); revisions and counts become numbers, IDs bigints.
import type { CompareResult, CompareTarget, SortOrder, SortTarget } from '../etcdserver/types/kv.js'
import type { AlarmAction, AlarmType } from '../etcdserver/types/maintenance.js'
import type { WatchFilter } from '../etcdserver/types/watch.js'

export const num = (s: string | undefined): number => (s === undefined || s === '' ? 0 : Number(s))
export const big = (s: string | undefined): bigint => (s === undefined || s === '' ? 0n : BigInt(s))
/** uint64 IDs: protobufjs hands them over as unsigned decimal strings. */
export const u64 = (s: string | undefined): bigint => BigInt.asUintN(64, big(s))

// The enums in rpc.proto's order: a value's index is its number on the wire.
export const SORT_ORDERS: readonly SortOrder[] = ['NONE', 'ASCEND', 'DESCEND']
export const SORT_TARGETS: readonly SortTarget[] = ['KEY', 'VERSION', 'CREATE', 'MOD', 'VALUE']
export const ALARM_ACTIONS: readonly AlarmAction[] = ['GET', 'ACTIVATE', 'DEACTIVATE']
export const ALARM_TYPES: readonly AlarmType[] = ['NONE', 'NOSPACE', 'CORRUPT']
export const COMPARE_RESULTS: readonly CompareResult[] = ['EQUAL', 'GREATER', 'LESS', 'NOT_EQUAL']
export const COMPARE_TARGETS: readonly CompareTarget[] = ['VERSION', 'CREATE', 'MOD', 'VALUE', 'LEASE']
export const WATCH_FILTERS: readonly WatchFilter[] = ['NOPUT', 'NODELETE']

/** Map an enum value protobufjs left numeric (unknown to our proto) or named, onto the domain union. */
export function enumOf<T extends string>(names: readonly T[], v: string | number, fallback: T): T {
  if (typeof v === 'number') return names[v] ?? fallback
  return (names as readonly string[]).includes(v) ? (v as T) : fallback
}
