// Mirrors etcd pkg/idutil/id.go: unique 64-bit IDs from a member ID, the start time and a counter.

const SUFFIX_BITS = 48n
const SUFFIX_MASK = (1n << SUFFIX_BITS) - 1n
const TS_MASK = (1n << 40n) - 1n

/**
 * etcd's ID generator: the high 2 bytes are the low 16 bits of the member ID, the next 5 bytes the start
 * time in milliseconds, the low byte a counter; each ID adds one to the low 6 bytes (the counter may carry
 * into the timestamp, as in etcd). IDs stay unique across restarts as long as fewer than 256 are made per
 * millisecond of uptime. etcd takes lease IDs from it (masked to a positive int64), so etcdlite's lease IDs
 * look like etcd's.
 */
export class IdGenerator {
  private readonly prefix: bigint
  private suffix: bigint

  constructor(memberId: bigint, nowMs: number = Date.now()) {
    this.prefix = (memberId & 0xffffn) << SUFFIX_BITS
    this.suffix = (BigInt(Math.floor(nowMs)) & TS_MASK) << 8n
  }

  next(): bigint {
    this.suffix = (this.suffix + 1n) & SUFFIX_MASK
    return this.prefix | this.suffix
  }
}
