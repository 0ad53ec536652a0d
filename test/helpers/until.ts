// Await a condition by polling, never a fixed sleep (too short on a slow machine, wasted time on a fast
// one); fails with `what` after the timeout.
import assert from 'node:assert/strict'

export async function until(cond: () => boolean, what: string, timeoutMs = 4000): Promise<void> {
  const t0 = Date.now()
  while (!cond()) {
    if (Date.now() - t0 > timeoutMs) assert.fail(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 1))
  }
}
