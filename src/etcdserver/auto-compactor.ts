// Mirrors etcd 3.4 etcdserver/api/v3compactor (compactor.go, periodic.go, revision.go) and embed's
// parseCompactionRetention; deviations are listed in docs/DEVIATIONS.md.
import { MAX_DURATION_NS, parseGoDuration } from '../pkg/duration.js'
import { isEtcdError } from '../pkg/errors.js'
import type { Clock } from '../pkg/clock.js'
import type { Logger } from '../pkg/logger.js'
import { Ticker } from '../pkg/ticker.js'
import { errorMessage } from '../pkg/as-error.js'

export type AutoCompactionMode = 'periodic' | 'revision'

/**
 * A parsed --auto-compaction-retention. periodic: keep `periodMs` of history; revision: keep the last
 * `revisions` revisions.
 */
export type CompactionRetention =
  | { readonly mode: 'periodic'; readonly periodMs: number }
  | { readonly mode: 'revision'; readonly revisions: number }

/** A retention value etcd would refuse (or, for the values etcd takes but misbehaves on, etcdlite refuses). */
export class InvalidRetentionError extends Error {
  constructor(message: string) {
    super(`error parsing CompactionRetention: ${message}`)
    this.name = 'InvalidRetentionError'
  }
}

const NS_PER_MS = 1e6
const HOUR_NS = 3600 * 1e9

const quote = (s: string): string => JSON.stringify(s)

/**
 * Parse --auto-compaction-retention for a mode, as etcd's embed.parseCompactionRetention: a non-negative
 * integer means hours (periodic) or a revision count (revision); anything else must be a Go duration
 * ("30m", "1h30m", "90s"). "0" (or "", or a zero duration) disables auto-compaction: the result is undefined.
 *
 * Throws InvalidRetentionError with etcd's message for what etcd refuses ("error parsing CompactionRetention:
 * time: invalid duration \"abc\""), and also, unlike etcd 3.4, for a negative duration (etcd would compact
 * in a busy loop) and for a duration in revision mode (etcd would read "5m" as 300,000,000,000 revisions).
 */
export function parseRetention(mode: AutoCompactionMode, retention: string): CompactionRetention | undefined {
  const raw = retention === '' ? '0' : retention
  if (/^[+-]?[0-9]+$/.test(raw)) {
    const n = Number(raw)
    // Go's Atoi takes a sign; a negative count falls through to ParseDuration, which refuses it (no unit).
    if (n >= 0 && n <= MAX_DURATION_NS) {
      if (n === 0) return undefined
      return mode === 'revision' ? { mode, revisions: n } : { mode, periodMs: (n * HOUR_NS) / NS_PER_MS }
    }
  }
  let ns: number
  try {
    ns = parseGoDuration(raw)
  } catch (err) {
    throw new InvalidRetentionError(errorMessage(err))
  }
  if (ns === 0) return undefined
  if (ns < 0) throw new InvalidRetentionError(`negative retention ${quote(raw)}`)
  if (mode === 'revision') throw new InvalidRetentionError(`revision mode takes a revision count, not a duration: ${quote(raw)}`)
  return { mode, periodMs: ns / NS_PER_MS }
}

/** What the compactor needs from the server. */
export interface Compactable {
  /** The current revision. */
  rev(): number
  /**
   * Compact at `rev` (etcd's Compact RPC, not physical). A CompactedError (COMPACTED: rev is at or below the
   * compacted revision) is not a failure for the compactor, as in etcd.
   */
  compact(rev: number): Promise<unknown>
}

export interface AutoCompactorOptions {
  readonly retention: CompactionRetention
  readonly clock: Clock
  /** A failed compaction (other than COMPACTED); the loop retries on its schedule. */
  readonly onError: (err: unknown) => void
  /** Start/finish lines, as etcd logs them. */
  readonly logger?: Logger
}

/** etcd's revInterval: revision mode checks every 5 minutes. */
export const REVISION_CHECK_INTERVAL_MS = 5 * 60 * 1000
const HOUR_MS = 3600 * 1000
/** etcd's retryDivisor: periodic mode samples the revision every tenth of the (at most 1 h) period. */
const RETRY_DIVISOR = 10

/**
 * Auto-compaction (etcd's v3compactor), a Ticker on the injected clock.
 *
 * periodic, retention P: every min(P, 1 h)/10 the current revision is sampled; the samples of the last P
 * are kept. Once P has passed since the start, it compacts at the oldest sample (the revision about P ago),
 * then again every min(P, 1 h). Example, P = 1 h: samples every 6 min, the first compaction at 1 h keeps
 * the last hour, then one every hour. P = 24 h: samples every 6 min, the first compaction after 24 h,
 * then hourly, each keeping the last 24 h.
 *
 * revision, retention N: every 5 minutes, compacts at (current revision - N) unless that is <= 0 or the
 * same as the last compaction.
 *
 * A failure is reported (onError) and retried at the next sample; COMPACTED counts as success.
 */
export class AutoCompactor {
  private readonly ctx: Compactable
  private readonly opts: AutoCompactorOptions
  private readonly ticker: Ticker
  // periodic
  private revs: number[] = []
  /** Samples kept (etcd's getRetentions: period / retry interval + 1). */
  private readonly retentions: number = 0
  private lastSuccess = 0
  private baseInterval = 0
  // revision
  private prev = 0
  private started = false
  private paused = false

  constructor(ctx: Compactable, opts: AutoCompactorOptions) {
    this.ctx = ctx
    this.opts = opts
    const r = opts.retention
    let periodMs = REVISION_CHECK_INTERVAL_MS
    if (r.mode === 'periodic') {
      // In integer nanoseconds, as Go computes getRetryInterval and getRetentions.
      const periodNs = Math.round(r.periodMs * NS_PER_MS)
      const retryNs = Math.max(1, Math.floor(Math.min(periodNs, HOUR_NS) / RETRY_DIVISOR))
      this.retentions = Math.floor(periodNs / retryNs) + 1
      // Below 10 ms of retention the sampling interval stays at 1 ms (etcd would spin, or divide by zero).
      periodMs = Math.max(1, retryNs / NS_PER_MS)
    }
    this.ticker = new Ticker(() => (r.mode === 'periodic' ? this.tickPeriodic(r.periodMs) : this.tickRevision(r.revisions)), periodMs, opts.clock, opts.onError)
  }

  /** Start the loop (etcd's Run). Idempotent. */
  start(): void {
    if (this.started) return
    this.started = true
    if (this.opts.retention.mode === 'periodic') {
      this.lastSuccess = this.opts.clock.now()
      this.baseInterval = this.opts.retention.periodMs
      this.record()
    }
    this.ticker.start()
  }

  /** Skip compactions until resume() (etcd's Pause; samples are still taken). */
  pause(): void {
    this.paused = true
  }

  resume(): void {
    this.paused = false
  }

  /** Stop the loop; resolves once a compaction in flight has returned. */
  stop(): Promise<void> {
    return this.ticker.stop()
  }

  /** Append the current revision, keeping one period of samples: revs[0] is about one period old. */
  private record(): void {
    this.revs.push(this.ctx.rev())
    if (this.revs.length > this.retentions) this.revs = this.revs.slice(this.revs.length - this.retentions)
  }

  private async tickPeriodic(periodMs: number): Promise<undefined> {
    try {
      if (this.paused || this.opts.clock.now() - this.lastSuccess < this.baseInterval) return undefined
      // The first compaction waits a whole period; the later ones come every min(period, 1 h).
      if (this.baseInterval === periodMs) this.baseInterval = Math.min(periodMs, HOUR_MS)
      const rev = this.revs[0]
      if (rev === undefined) return undefined
      if (await this.compact(rev, { 'compact-period': `${periodMs}ms` })) this.lastSuccess = this.opts.clock.now()
      return undefined
    } finally {
      this.record()
    }
  }

  private async tickRevision(retention: number): Promise<undefined> {
    if (this.paused) return undefined
    const rev = this.ctx.rev() - retention
    if (rev <= 0 || rev === this.prev) return undefined
    if (await this.compact(rev, { 'revision-compaction-retention': retention })) this.prev = rev
    return undefined
  }

  /** One compaction; true when it succeeded or the revision was already compacted. */
  private async compact(rev: number, fields: Record<string, unknown>): Promise<boolean> {
    const mode = this.opts.retention.mode
    this.opts.logger?.info(`starting auto ${mode} compaction`, { revision: rev, ...fields })
    try {
      await this.ctx.compact(rev)
    } catch (err) {
      if (!isEtcdError(err, 'COMPACTED')) {
        this.opts.logger?.warn(`failed auto ${mode} compaction`, { revision: rev, ...fields, error: err })
        this.opts.onError(err)
        return false
      }
    }
    this.opts.logger?.info(`completed auto ${mode} compaction`, { revision: rev, ...fields })
    return true
  }
}
