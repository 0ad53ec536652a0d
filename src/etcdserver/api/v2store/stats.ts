// etcd's v2store Stats: success and failure counts of each store operation and of expired keys, which
// /v2/stats/store shows with the number of watchers. The write counts survive a restart (etcd replays its
// log into the store); the read counts start again (reads are not logged).

export const STAT_FIELDS = [
  'getsSuccess', 'getsFail', 'setsSuccess', 'setsFail', 'deleteSuccess', 'deleteFail', 'updateSuccess', 'updateFail',
  'createSuccess', 'createFail', 'compareAndSwapSuccess', 'compareAndSwapFail', 'compareAndDeleteSuccess',
  'compareAndDeleteFail', 'expireCount',
] as const

export type StatField = (typeof STAT_FIELDS)[number]

/** The counters that come back after a restart. */
export const WRITE_STAT_FIELDS: readonly StatField[] = STAT_FIELDS.filter((f) => f !== 'getsSuccess' && f !== 'getsFail')

export class Stats {
  private readonly counts = new Map<StatField, number>(STAT_FIELDS.map((f) => [f, 0]))

  inc(field: StatField): void {
    this.counts.set(field, this.get(field) + 1)
  }

  get(field: StatField): number {
    return this.counts.get(field) ?? 0
  }

  set(field: StatField, n: number): void {
    this.counts.set(field, n)
  }

  /** Run an operation, counting it as etcd's deferred check does (see FailMark), and rethrow its error. */
  counted<T>(ok: StatField, failed: StatField, op: (fail: FailMark) => T): T {
    const fail = new FailMark()
    try {
      const r = op(fail)
      this.inc(ok)
      return r
    } catch (err) {
      this.inc(fail.counts(err) ? failed : ok)
      throw err
    }
  }

  /** etcd's JsonStats: every counter in etcd's order, then the watcher count. */
  toJson(watchers: number): string {
    const fields = STAT_FIELDS.map((f) => `"${f}":${this.get(f)}`)
    return `{${fields.join(',')},"watchers":${watchers}}`
  }
}

/**
 * Which errors count as failures in an operation's statistics. etcd counts through a deferred check of a
 * variable that some error returns never set; those errors are marked here with not(), and count as successes.
 */
export class FailMark {
  private readonly uncounted = new Set<unknown>()

  not<E>(err: E): E {
    this.uncounted.add(err)
    return err
  }

  counts(err: unknown): boolean {
    return !this.uncounted.has(err)
  }
}
