// Mirrors etcd lease/lease_queue.go (LeaseQueue + LeaseExpiredNotifier): lease IDs by expiry time (clock
// ms), one entry per lease, moved in place on renew, so a lease never has more than one entry however
// often it is renewed.
import { IndexedMinHeap } from '../pkg/indexed-heap.js'

export class LeaseQueue extends IndexedMinHeap<bigint> {
  /** Queue `id` to expire at `time`, or move its existing entry there. */
  registerOrUpdate(id: bigint, time: number): void {
    this.set(id, time)
  }

  /** How many entries are due at `now` (time <= now), counting at most `limit`. */
  countDue(now: number, limit: number): number {
    return this.countAtMost(now, limit)
  }
}
