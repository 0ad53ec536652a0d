// etcd's protobuf enums in their .proto order, as the domain names them: a value's index is its number on
// the wire. Shared by the hand-written codecs of src/wire/ and by the proto-loader converters of src/grpc/,
// so both read and write the same numbers.
import type { PermissionType } from '../auth/permission.js'
import type { CompareResult, CompareTarget, SortOrder, SortTarget } from '../etcdserver/types/kv.js'
import type { AlarmAction, AlarmType, DowngradeAction } from '../etcdserver/types/maintenance.js'
import type { WatchFilter } from '../etcdserver/types/watch.js'

/** etcdserverpb.RangeRequest.SortOrder. */
export const SORT_ORDERS: readonly SortOrder[] = ['NONE', 'ASCEND', 'DESCEND']
/** etcdserverpb.RangeRequest.SortTarget. */
export const SORT_TARGETS: readonly SortTarget[] = ['KEY', 'VERSION', 'CREATE', 'MOD', 'VALUE']
/** etcdserverpb.Compare.CompareResult. */
export const COMPARE_RESULTS: readonly CompareResult[] = ['EQUAL', 'GREATER', 'LESS', 'NOT_EQUAL']
/** etcdserverpb.Compare.CompareTarget. */
export const COMPARE_TARGETS: readonly CompareTarget[] = ['VERSION', 'CREATE', 'MOD', 'VALUE', 'LEASE']
/** etcdserverpb.WatchCreateRequest.FilterType. */
export const WATCH_FILTERS: readonly WatchFilter[] = ['NOPUT', 'NODELETE']
/** etcdserverpb.AlarmRequest.AlarmAction. */
export const ALARM_ACTIONS: readonly AlarmAction[] = ['GET', 'ACTIVATE', 'DEACTIVATE']
/** etcdserverpb.AlarmType. */
export const ALARM_TYPES: readonly AlarmType[] = ['NONE', 'NOSPACE', 'CORRUPT']
/** etcdserverpb.DowngradeRequest.DowngradeAction. */
export const DOWNGRADE_ACTIONS: readonly DowngradeAction[] = ['VALIDATE', 'ENABLE', 'CANCEL']
/** authpb.Permission.Type. */
export const PERMISSION_TYPES: readonly PermissionType[] = ['READ', 'WRITE', 'READWRITE']
