// The write txns the watchable store has heard of but may not deliver yet: events go to watchers only once
// their revision is durable (etcd notifies in End() and relies on its raft log for durability; here the
// commit is the only durability there is).
import type { Change, Event, KeyValue } from './kv.js'

const EMPTY: Uint8Array = new Uint8Array(0)

/** A change as its event: a DELETE carries the key and the deleting revision only (etcd patches mod_revision). */
export function toEvent(rev: number, c: Change): Event {
  if (c.type === 'put') return { type: 'PUT', kv: c.kv }
  const kv: KeyValue = { key: c.kv.key, value: EMPTY, createRevision: 0, modRevision: rev, version: 0, lease: 0n }
  return { type: 'DELETE', kv }
}

interface PendingTxn {
  readonly rev: number
  readonly changes: readonly Change[]
}

/** Ended write txns, oldest first, until their commit makes them durable or its failure rolls them back. */
export class PendingTxns {
  private list: PendingTxn[] = []
  /** list[0 .. head) are taken and wait to be cut off in one go. */
  private head = 0

  push(rev: number, changes: readonly Change[]): void {
    this.list.push({ rev, changes })
  }

  /** The txns after `rev` (the durable revision) never became durable: forget them. */
  rollBack(rev: number): void {
    let n = this.list.length
    while (n > this.head && (this.list[n - 1] as PendingTxn).rev > rev) n--
    this.list.length = n
  }

  /** Take every txn up to `rev`, oldest first, calling fn for each. */
  takeUpTo(rev: number, fn: (rev: number, changes: readonly Change[]) => void): void {
    while (this.head < this.list.length) {
      const p = this.list[this.head] as PendingTxn
      if (p.rev > rev) break
      this.head++
      fn(p.rev, p.changes)
    }
    if (this.head === this.list.length) {
      this.list = []
      this.head = 0
    } else if (this.head > 1024) {
      // Cut the taken slots off only once there are many: amortized O(1) per txn.
      this.list = this.list.slice(this.head)
      this.head = 0
    }
  }
}
