// The background writer of the index checkpoint (index-checkpoint.ts), so that a start after a crash reads
// the checkpoint and replays only the log written since, instead of rebuilding from the whole log.
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { CheckpointWriter } from './index-checkpoint.js'
import type { KeyIndex } from './key-index.js'
import type { KvStore } from './kvstore.js'

/** Log entries past the checkpoint in force before a new one is written, at the least. */
export const CHECKPOINT_MIN_ENTRIES = 50_000
/**
 * ... and at least the index's size divided by this: a start then replays at most a quarter of the keys'
 * worth of log entries after reading the checkpoint, and the store encodes its index once for every
 * quarter of its size in writes (about 1 µs per key, spread over event-loop turns).
 */
export const CHECKPOINT_KEYS_PER_ENTRY = 4
/** Keys encoded per event-loop turn (a few milliseconds). */
export const CHECKPOINT_KEYS_PER_TURN = 10_000

/**
 * Writes a new checkpoint once enough log entries have been written past the one in force: the index is
 * encoded a slice per event-loop turn while writes go on, then the header is buffered and committed. A
 * compaction while it runs makes it give up (compaction rewrites entries it has encoded and deletes revisions
 * they name); it starts again once that compaction is done. Owned by KvStore: stop() ends it.
 */
export class IndexCheckpointer {
  private readonly s: KvStore
  private readonly minEntries: number
  private readonly keysPerTurn: number
  /** Log entries past the checkpoint in force (what a start would replay). */
  private dirty = 0
  private running: Promise<void> | undefined
  private stopped = false
  private written = 0

  constructor(s: KvStore, minEntries = CHECKPOINT_MIN_ENTRIES, keysPerTurn = CHECKPOINT_KEYS_PER_TURN) {
    this.s = s
    this.minEntries = minEntries
    this.keysPerTurn = keysPerTurn
  }

  /** Checkpoints written since the store opened. */
  get checkpoints(): number {
    return this.written
  }

  /** After the open: the entries it read past the checkpoint it used (all it read, when it used none). */
  opened(replayed: number): void {
    this.dirty = Math.max(this.dirty, replayed)
    this.poke()
  }

  /** A write txn ended with `entries` changes. */
  wrote(entries: number): void {
    this.dirty += entries
    if (this.dirty >= this.minEntries) this.poke()
  }

  /**
   * A compaction was scheduled: the checkpoint in force no longer matches the log. A start would rebuild
   * from the whole log, at least one entry per key.
   */
  compacting(): void {
    this.dirty = Math.max(this.dirty, this.s.index.size)
  }

  /** Start a checkpoint if one is due and nothing stands in the way. */
  poke(): void {
    if (this.stopped || this.running !== undefined || !this.s.compactionIdle) return
    if (this.dirty < Math.max(this.minEntries, this.s.index.size / CHECKPOINT_KEYS_PER_ENTRY)) return
    this.running = this.run().finally(() => {
      this.running = undefined
      this.poke()
    })
  }

  /** Stop: a checkpoint being written is given up. Resolves once it has. */
  async stop(): Promise<void> {
    this.stopped = true
    await this.running
  }

  private async run(): Promise<void> {
    const s = this.s
    const state = s.checkpointState()
    const replay = this.dirty
    this.dirty = 0
    // The keys in the index now: a key created later is all in the log past state.rev.
    const keys = s.index.snapshot()
    const w = new CheckpointWriter(s.backend)
    const giveUp = (): boolean => this.stopped || !s.compactionIdle || s.compactRev() !== state.compactRev
    try {
      for (let i = 0; i < keys.length; i += this.keysPerTurn) {
        const chunks = w.chunks
        const end = Math.min(i + this.keysPerTurn, keys.length)
        for (let j = i; j < end; j++) {
          const ki = keys[j] as KeyIndex
          w.add(ki, s.leaseOf(ki))
        }
        // Let the chunks buffered go out before encoding more (a commit joins the writers' group commit).
        if (w.chunks !== chunks) await s.backend.commit()
        else await yieldToLoop()
        if (giveUp()) {
          w.abandon()
          this.dirty += replay
          return
        }
      }
      w.finish(state)
      await s.backend.commit()
      this.written++
    } catch {
      // The backend failed: it refuses every write from now on, so stop trying. A start rebuilds from the log.
      this.stopped = true
    }
  }
}
