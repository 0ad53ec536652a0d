// The RPC ceiling's durable variant (rpc-ceiling-server.ts --commit-dir): each Put's record committed to
// classic-level the way src/backend/level-backend.ts commits it, and nothing else. Records added in one
// event-loop turn share one chained batch, written at the end of the turn (setImmediate); while a batch is
// in flight, new records form the next one, written as soon as it completes (group commit, at most one
// batch in flight). Each record's callback runs once its batch is written (or failed).
import type { AbstractChainedBatchWriteOptions } from 'abstract-level'
import type { ClassicLevel } from 'classic-level'

type Db = ClassicLevel<Uint8Array, Uint8Array>
type Done = (err: Error | null) => void

interface Batch {
  readonly chain: ReturnType<Db['batch']>
  readonly waiting: Done[]
}

export class GroupCommit {
  private cur: Batch | undefined
  private inflight = false
  private scheduled = false
  private readonly options: AbstractChainedBatchWriteOptions & { sync?: boolean }

  constructor(
    private readonly db: Db,
    sync: boolean,
  ) {
    // classic-level honours `sync`, as level-backend.ts relies on.
    this.options = { sync }
  }

  /** Add one record to the current batch; `done` runs once that batch is written. */
  put(key: Uint8Array, value: Uint8Array, done: Done): void {
    this.cur ??= { chain: this.db.batch(), waiting: [] }
    this.cur.chain.put(key, value)
    this.cur.waiting.push(done)
    if (!this.inflight && !this.scheduled) {
      this.scheduled = true
      setImmediate(() => {
        this.scheduled = false
        if (!this.inflight) this.flush()
      })
    }
  }

  private flush(): void {
    const b = this.cur
    if (b === undefined) return
    this.cur = undefined
    this.inflight = true
    b.chain.write(this.options).then(
      () => this.settle(b, null),
      (err: unknown) => this.settle(b, err instanceof Error ? err : new Error(String(err))),
    )
  }

  private settle(b: Batch, err: Error | null): void {
    this.inflight = false
    for (const done of b.waiting) done(err)
    if (this.cur !== undefined) this.flush()
  }
}
