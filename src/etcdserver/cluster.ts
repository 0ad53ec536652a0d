// The Cluster service's core for a one-member server (etcd's etcdserver/api/v3rpc/member.go over
// membership.RaftCluster): the member list is this member; membership cannot change. Requests about an
// unknown member ID fail as etcd fails them (member not found); changes that name this member, and any
// MemberAdd, fail with SINGLE_MEMBER.
import { EtcdError } from '../pkg/errors.js'
import type { CallerAuth } from './caller-auth.js'
import type {
  Member, MemberAddRequest, MemberListRequest, MemberListResponse, MemberPromoteRequest, MemberRemoveRequest,
  MemberUpdateRequest,
} from './types/cluster.js'
import type { CallCredentials } from './types/credentials.js'
import type { ResponseHeader } from './types/header.js'

/** What the cluster core needs from the server. */
export interface ClusterMember {
  readonly memberId: bigint
  readonly clusterId: bigint
  readonly raftTerm: number
  readonly member: { readonly name: string; readonly peerUrls: readonly string[]; readonly clientUrls: readonly string[] }
  /** Membership changes need the root role once auth is on, the member list a user. */
  readonly callerAuth: Pick<CallerAuth, 'checkAdmin' | 'checkAuthenticated'>
  /** True once the server is closing. */
  readonly closed: boolean
}

/**
 * etcd's types.NewURLs check, which MemberAdd applies before anything else: at least one URL; each
 * http(s) URL is host:port without a path; the scheme is http, https, unix or unixs.
 */
export function validPeerUrls(urls: readonly string[]): boolean {
  if (urls.length === 0) return false
  for (const raw of urls) {
    let u: URL
    try {
      u = new URL(raw.trim())
    } catch {
      return false
    }
    switch (u.protocol) {
      case 'http:':
      case 'https:':
        if (u.port === '' || u.hostname === '') return false
        // Go's url.Path is empty for "http://h:1" but "/" for "http://h:1/": any path is refused.
        if (raw.trim().replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '').startsWith('/')) return false
        break
      case 'unix:':
      case 'unixs:':
        break
      default:
        return false
    }
  }
  return true
}

export class Cluster {
  private readonly s: ClusterMember

  constructor(s: ClusterMember) {
    this.s = s
  }

  /** This member, as MemberList shows it. */
  self(): Member {
    const m = this.s.member
    return { id: this.s.memberId, name: m.name, peerUrls: [...m.peerUrls], clientUrls: [...m.clientUrls], isLearner: false }
  }

  /** etcd's cluster service header: cluster, member and term, no revision. */
  header(): ResponseHeader {
    return { clusterId: this.s.clusterId, memberId: this.s.memberId, revision: 0, raftTerm: this.s.raftTerm }
  }

  /**
   * This member. Any user once auth is on (CVE-2026-33413, relaxed for MemberList by etcd-io/etcd#21538).
   * `linearizable` makes etcd 3.5 wait for a read index first, which a one-member server has at once;
   * that wait fails only once the server is stopping.
   */
  memberList(r: MemberListRequest = {}, creds?: CallCredentials): MemberListResponse {
    this.s.callerAuth.checkAuthenticated(creds)
    if (r.linearizable === true && this.s.closed) throw new EtcdError('STOPPED')
    return { header: this.header(), members: [this.self()] }
  }

  /** Always fails: MEMBER_BAD_URLS for invalid peer URLs (etcd checks them first), else SINGLE_MEMBER. */
  memberAdd(r: MemberAddRequest, creds?: CallCredentials): never {
    if (!validPeerUrls(r.peerUrls)) throw new EtcdError('MEMBER_BAD_URLS')
    this.s.callerAuth.checkAdmin(creds)
    throw new EtcdError('SINGLE_MEMBER')
  }

  /** Always fails: MEMBER_NOT_FOUND for an unknown ID, SINGLE_MEMBER for this member. */
  memberRemove(r: MemberRemoveRequest, creds?: CallCredentials): never {
    this.s.callerAuth.checkAdmin(creds)
    this.known(r.id)
    throw new EtcdError('SINGLE_MEMBER')
  }

  /** Always fails: MEMBER_NOT_FOUND for an unknown ID, SINGLE_MEMBER for this member. */
  memberUpdate(r: MemberUpdateRequest, creds?: CallCredentials): never {
    this.s.callerAuth.checkAdmin(creds)
    this.known(r.id)
    throw new EtcdError('SINGLE_MEMBER')
  }

  /** Always fails: MEMBER_NOT_FOUND for an unknown ID; this member is no learner (etcd's answer). */
  memberPromote(r: MemberPromoteRequest, creds?: CallCredentials): never {
    this.s.callerAuth.checkAdmin(creds)
    this.known(r.id)
    throw new EtcdError('MEMBER_NOT_LEARNER')
  }

  private known(id: bigint): void {
    if (id !== this.s.memberId) throw new EtcdError('MEMBER_NOT_FOUND')
  }
}
