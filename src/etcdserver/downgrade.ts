// Mirrors etcd 3.5 server/etcdserver/v3_server.go (Downgrade, downgradeValidate, downgradeEnable,
// downgradeCancel), cluster_util.go convertToClusterVersion and api/membership/downgrade.go, for a
// one-member cluster: the cluster version is the major.minor.0 of the version this server reports.
//
// State machine (the downgrade info, kept in the backend as etcd keeps it in its `cluster` bucket):
//
//   disabled --ENABLE (target = cluster version minus one minor)--> enabled(target)
//   enabled  --CANCEL--> disabled
//   enabled  --VALIDATE/ENABLE--> DOWNGRADE_IN_PROCESS      disabled --CANCEL--> NO_INFLIGHT_DOWNGRADE
//
// etcd 3.5 applies ENABLE and CANCEL through raft, but its applier returns no result for the internal
// DowngradeInfoSet request, so the proposer is never woken: the change is applied at once, and the call
// itself fails with "request timed out" once etcd's request timeout (5 s plus two election timeouts)
// has passed. etcdlite does the same (see Downgrader.propose).
import { META } from '../backend/schema.js'
import type { Backend } from '../backend/backend.js'
import { EtcdError } from '../pkg/errors.js'
import type { Logger } from '../pkg/logger.js'
import type { DowngradeInfo, DowngradeRequest, DowngradeResponse } from './types/maintenance.js'

/** A version as coreos/go-semver parses it; only what the downgrade checks compare. */
export interface SemVer {
  readonly major: bigint
  readonly minor: bigint
  readonly patch: bigint
  readonly preRelease: string
}

const IDENTIFIER = /^[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*$/
const INT64_MAX = (1n << 63n) - 1n

/** Go's strconv.ParseInt(s, 10, 64) for the digits go-semver hands it (signs are split off before). */
function parseInt64(s: string): bigint | undefined {
  if (!/^[0-9]+$/.test(s)) return undefined
  const v = BigInt(s)
  return v > INT64_MAX ? undefined : v
}

/** Split at the first `delim`: [before, after], or [s, ''] when it is absent (go-semver's splitOff). */
function splitOff(s: string, delim: string): [string, string] {
  const i = s.indexOf(delim)
  return i < 0 ? [s, ''] : [s.slice(0, i), s.slice(i + delim.length)]
}

/**
 * coreos/go-semver's NewVersion: `major.minor.patch`, then optional `-prerelease` and `+metadata`.
 * Undefined where go-semver returns an error.
 */
export function parseSemVer(version: string): SemVer | undefined {
  const [rest, metadata] = splitOff(version, '+')
  const [core, preRelease] = splitOff(rest, '-')
  // strings.SplitN(core, ".", 3): the third part keeps any further dots, and then fails to parse.
  const first = core.indexOf('.')
  const second = first < 0 ? -1 : core.indexOf('.', first + 1)
  if (second < 0) return undefined
  if (preRelease !== '' && !IDENTIFIER.test(preRelease)) return undefined
  if (metadata !== '' && !IDENTIFIER.test(metadata)) return undefined
  const major = parseInt64(core.slice(0, first))
  const minor = parseInt64(core.slice(first + 1, second))
  const patch = parseInt64(core.slice(second + 1))
  if (major === undefined || minor === undefined || patch === undefined) return undefined
  return { major, minor, patch, preRelease }
}

/** go-semver's Version.String for a major.minor version (patch 0, nothing else). */
export function clusterVersionString(v: Pick<SemVer, 'major' | 'minor'>): string {
  return `${v.major}.${v.minor}.0`
}

/**
 * etcd's convertToClusterVersion: a full version, or major.minor (".0" is appended and it is parsed
 * again), reduced to major.minor. Throws WRONG_DOWNGRADE_VERSION_FORMAT for anything else.
 */
export function toClusterVersion(v: string): Pick<SemVer, 'major' | 'minor'> {
  const ver = parseSemVer(v) ?? parseSemVer(`${v}.0`)
  if (ver === undefined) throw new EtcdError('WRONG_DOWNGRADE_VERSION_FORMAT')
  return { major: ver.major, minor: ver.minor }
}

/** etcd's membership.AllowedDowngradeVersion: one minor version below. */
export function allowedDowngradeVersion(cv: Pick<SemVer, 'major' | 'minor'>): Pick<SemVer, 'major' | 'minor'> {
  return { major: cv.major, minor: cv.minor - 1n }
}

/**
 * The cluster version of a one-member cluster whose member reports `etcdVersion`: its major.minor.0, as
 * etcd's monitorVersions decides it. Undefined for a version that is not semver (etcd then has none).
 */
export function clusterVersionOf(etcdVersion: string): Pick<SemVer, 'major' | 'minor'> | undefined {
  const v = parseSemVer(etcdVersion)
  return v === undefined ? undefined : { major: v.major, minor: v.minor }
}

/** Where etcd keeps the downgrade info: its `cluster` bucket's `downgrade` key; ours lives in `meta`. */
const DOWNGRADE_KEY = META.downgrade

/** The info as etcd stores it: encoding/json of membership.DowngradeInfo. */
export function encodeDowngradeInfo(d: DowngradeInfo): Uint8Array {
  return Buffer.from(JSON.stringify({ 'target-version': d.targetVersion, enabled: d.enabled }), 'utf8')
}

/**
 * Read the stored info back (etcd's downgradeInfoFromBackend). Undefined when nothing was ever stored;
 * a record etcd would panic on (not JSON, or enabled with a target that is not semver) throws.
 */
export function decodeDowngradeInfo(b: Uint8Array): DowngradeInfo {
  const raw: unknown = JSON.parse(Buffer.from(b).toString('utf8'))
  if (typeof raw !== 'object' || raw === null) throw new Error('failed to unmarshal downgrade information')
  const target = (raw as Record<string, unknown>)['target-version']
  const enabled = (raw as Record<string, unknown>).enabled
  const d: DowngradeInfo = { targetVersion: typeof target === 'string' ? target : '', enabled: enabled === true }
  if (d.enabled && parseSemVer(d.targetVersion) === undefined) {
    throw new Error(`unexpected version format of the downgrade target version from backend: ${d.targetVersion}`)
  }
  return d
}

/** What the downgrader needs from the server. */
export interface DowngradeHost {
  readonly backend: Backend
  /** The version this member reports (Status's version). */
  readonly etcdVersion: string
  /** Count one applied request that takes no revision (raftIndex grows with it). */
  noteApplied(): void
  /** Where etcd's lines about a downgrade go. */
  readonly logger?: Logger | undefined
}

/** etcd 3.5.17's call sites of the lines a downgrade logs. */
const AT = {
  rejected: 'etcdserver/v3_server.go:1058',
  ready: 'membership/cluster.go:890',
} as const

/**
 * The Downgrade RPC over the persisted downgrade info. Callers check the caller's rights first.
 * Every check before a change is synchronous, so two calls cannot both pass VALIDATE and both enable.
 */
export class Downgrader {
  private readonly host: DowngradeHost
  private current: DowngradeInfo

  constructor(host: DowngradeHost) {
    this.host = host
    const stored = host.backend.get('meta', DOWNGRADE_KEY)
    this.current = stored === undefined ? { enabled: false, targetVersion: '' } : decodeDowngradeInfo(stored)
  }

  /** The downgrade info (etcd's RaftCluster.DowngradeInfo): disabled with an empty target when none. */
  info(): DowngradeInfo {
    return { ...this.current }
  }

  /** etcd's EtcdServer.Downgrade. A number is an action etcd's enum lacks (from the wire): UNKNOWN_METHOD. */
  downgrade(r: DowngradeRequest): Promise<Omit<DowngradeResponse, 'header'>> {
    switch (r.action ?? 'VALIDATE') {
      case 'VALIDATE':
        return Promise.resolve(this.validate(r.version ?? ''))
      case 'ENABLE':
        return this.enable(r.version ?? '')
      case 'CANCEL':
        return this.cancel()
      default:
        return Promise.reject(new EtcdError('UNKNOWN_METHOD'))
    }
  }

  /** etcd's downgradeValidate; answers with the cluster version. */
  private validate(v: string): { version: string } {
    const target = toClusterVersion(v)
    const cv = clusterVersionOf(this.host.etcdVersion)
    if (cv === undefined) throw new EtcdError('CLUSTER_VERSION_UNAVAILABLE')
    const allowed = allowedDowngradeVersion(cv)
    if (target.major !== allowed.major || target.minor !== allowed.minor) throw new EtcdError('INVALID_DOWNGRADE_TARGET_VERSION')
    if (this.current.enabled) throw new EtcdError('DOWNGRADE_IN_PROCESS')
    return { version: clusterVersionString(cv) }
  }

  /** etcd's downgradeEnable: validate, then record the target; answers with the cluster version. */
  private async enable(v: string): Promise<{ version: string }> {
    let answer: { version: string }
    try {
      answer = this.validate(v)
    } catch (err) {
      this.host.logger?.warn('reject downgrade request', { error: err }, AT.rejected)
      throw err
    }
    await this.apply({ enabled: true, targetVersion: clusterVersionString(toClusterVersion(v)) })
    return answer
  }

  /** etcd's downgradeCancel: NO_INFLIGHT_DOWNGRADE unless a downgrade is enabled. */
  private async cancel(): Promise<{ version: string }> {
    if (!this.current.enabled) throw new EtcdError('NO_INFLIGHT_DOWNGRADE')
    await this.apply({ enabled: false, targetVersion: '' })
    const cv = clusterVersionOf(this.host.etcdVersion)
    return { version: cv === undefined ? '' : clusterVersionString(cv) }
  }

  /**
   * Apply a DowngradeInfoSet as etcd's applier does: stored, and counted as an applied raft entry. etcd
   * 3.5's applier never answers this proposal, so there ENABLE and CANCEL take effect and then fail with
   * "request timed out"; etcd 3.6 answers it, and so does this (docs/DEVIATIONS.md).
   */
  private async apply(d: DowngradeInfo): Promise<void> {
    this.current = d
    if (d.enabled) this.host.logger?.info('The server is ready to downgrade', { 'target-version': d.targetVersion, 'server-version': this.host.etcdVersion }, AT.ready)
    this.host.backend.put('meta', DOWNGRADE_KEY, encodeDowngradeInfo(d))
    this.host.noteApplied()
    await this.host.backend.commit()
  }
}
