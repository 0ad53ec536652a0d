// etcd's v2stats for a one-member cluster: /v2/stats/self (this member, always the leader, sending and
// receiving no appends, so its rates stay out of the JSON) and /v2/stats/leader (no followers).
import { utf8ToBstr } from '../../../pkg/bstr.js'
import { goJsonMarshal } from '../../../pkg/go-json.js'
import { formatGoDuration, formatRfc3339Nano, wallNowNs } from '../../../pkg/go-time.js'

/** The member the statistics describe. */
export interface StatsMember {
  readonly name: string
  /** etcd's types.ID string: hexadecimal. */
  readonly id: string
}

export class ServerStats {
  private readonly member: () => StatsMember
  /** When the server started, and when it became leader (at once: it is alone), Unix nanoseconds. */
  private readonly startTime: bigint
  private readonly leaderStartTime: bigint

  constructor(member: () => StatsMember, startTime = wallNowNs()) {
    this.member = member
    this.startTime = startTime
    this.leaderStartTime = startTime
  }

  /** /v2/stats/self: times in the local zone, as Go's time.Now() carries them. */
  selfJson(now = wallNowNs()): string {
    const m = this.member()
    const local = (ns: bigint): string => formatRfc3339Nano(ns, false) ?? ''
    return goJsonMarshal({
      name: utf8ToBstr(m.name),
      id: m.id,
      state: 'StateLeader',
      startTime: local(this.startTime),
      leaderInfo: { leader: m.id, uptime: utf8ToBstr(formatGoDuration(now - this.leaderStartTime)), startTime: local(this.leaderStartTime) },
      recvAppendRequestCnt: 0,
      sendAppendRequestCnt: 0,
    })
  }

  /** /v2/stats/leader. */
  leaderJson(): string {
    return goJsonMarshal({ leader: this.member().id, followers: {} })
  }
}
