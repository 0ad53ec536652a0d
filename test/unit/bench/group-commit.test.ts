import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ClassicLevel } from 'classic-level'
import { GroupCommit } from '../../../bench/ceilings/group-commit.js'

type Db = ClassicLevel<Uint8Array, Uint8Array>

/** A fresh database whose batch() calls are counted. */
async function openCounted(): Promise<{ db: Db; batches: () => number; dispose: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'etcdlite-group-commit-'))
  const db: Db = new ClassicLevel<Uint8Array, Uint8Array>(dir, { keyEncoding: 'view', valueEncoding: 'view' })
  await db.open()
  let n = 0
  const real = db.batch.bind(db) as () => ReturnType<Db['batch']>
  Object.defineProperty(db, 'batch', { value: () => { n++; return real() } })
  return { db, batches: () => n, dispose: async () => { await db.close(); rmSync(dir, { recursive: true, force: true }) } }
}

const b = (s: string): Buffer => Buffer.from(s)

describe('bench commit ceiling: group commit', () => {
  it("writes the puts of one event-loop turn in one batch, and the puts made while it is in flight in the next", async () => {
    const { db, batches, dispose } = await openCounted()
    try {
      const gc = new GroupCommit(db, true)
      const order: string[] = []
      const put = (k: string): Promise<void> => new Promise((resolve, reject) => {
        gc.put(b(k), b(`v-${k}`), (err) => {
          if (err !== null) reject(err)
          else {
            order.push(k)
            resolve()
          }
        })
      })
      const first = ['a', 'b', 'c'].map(put)
      assert.equal(batches(), 1, 'one batch for the whole turn')
      // The first batch is written at the end of this turn; these arrive while it is in flight.
      await new Promise((r) => setImmediate(r))
      const second = ['d', 'e'].map(put)
      await Promise.all([...first, ...second])
      assert.equal(batches(), 2)
      assert.deepEqual(order, ['a', 'b', 'c', 'd', 'e'], 'the second batch completes after the first')
      for (const k of ['a', 'b', 'c', 'd', 'e']) assert.equal(Buffer.from(db.getSync(b(k)) ?? []).toString(), `v-${k}`)
      // Nothing queued: the next put starts a new batch of its own.
      await put('f')
      assert.equal(batches(), 3)
    } finally {
      await dispose()
    }
  })

  it("passes a failed write's error to every put of its batch", async () => {
    const { db, dispose } = await openCounted()
    try {
      const gc = new GroupCommit(db, false)
      const errs: Array<Error | null> = []
      // The database closes before the end of the turn: the batch's write rejects.
      await new Promise<void>((resolve) => {
        let left = 2
        const done = (err: Error | null): void => {
          errs.push(err)
          if (--left === 0) resolve()
        }
        gc.put(b('x'), b('1'), done)
        gc.put(b('y'), b('2'), done)
        void db.close()
      })
      assert.equal(errs.length, 2)
      for (const e of errs) assert.ok(e instanceof Error)
    } finally {
      await dispose()
    }
  })
})
