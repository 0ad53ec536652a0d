import { setTimeout as delay } from 'node:timers/promises'

/** Poll `probe` until it resolves truthy or `timeoutMs` passes (then throws with `what`). */
export async function waitFor(what: string, probe: () => Promise<boolean> | boolean, timeoutMs = 10000, everyMs = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  for (;;) {
    try {
      if (await probe()) return
    } catch (e) {
      last = e
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`)
    await delay(everyMs)
  }
}
