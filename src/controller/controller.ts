// A controller in client-go's shape: an informer's changes put keys on a rate-limited work queue, and
// workers reconcile one key at a time (never the same key on two workers at once). A failed reconcile
// is retried with the queue's rate limiter; a successful one resets the key's failures.
import type { Registry } from 'prom-client'
import { realClock, type Clock } from '../pkg/clock.js'
import type { HandlerRegistration } from '../informer/shared-informer.js'
import type { EventHandler } from '../informer/processor-listener.js'
import { RateLimitingQueue } from '../workqueue/rate-limiting-queue.js'
import type { RateLimiter } from '../workqueue/rate-limiters.js'
import { errorMessage } from '../pkg/as-error.js'

/** What reconcile asks for: nothing (done), to run again rate-limited, or to run again after a delay. */
export interface ReconcileResult {
  readonly requeue?: boolean
  readonly requeueAfterMs?: number
}

/** The part of a SharedInformer a controller uses. */
export interface ControllerInformer<T> {
  readonly synced: Promise<void>
  addEventHandler(handler: EventHandler<T>): HandlerRegistration
}

export interface ControllerOptions<T> {
  readonly informer: ControllerInformer<T>
  /**
   * Bring the world in line with the key's current state (read it from the informer's indexer; absent
   * means deleted). Throwing requeues the key rate-limited. `signal` aborts when the controller stops.
   */
  readonly reconcile: (key: string, signal: AbortSignal) => ReconcileResult | void | Promise<ReconcileResult | void>
  /** Concurrent reconciles (default 1). */
  readonly workers?: number
  /** Aborting stops the controller: no new keys are taken; reconciles in progress finish. */
  readonly signal: AbortSignal
  /** The queue's metric label (default "controller"). */
  readonly name?: string
  /** Default: client-go's defaultControllerRateLimiter(). */
  readonly rateLimiter?: RateLimiter<string>
  readonly clock?: Clock
  /** Record workqueue_* metrics here. */
  readonly registry?: Registry
  /** A reconcile threw (it is requeued). Default: process.emitWarning. */
  readonly onError?: (err: unknown, key: string) => void
  /** Called with the controller's queue once it exists (to inspect it, or add keys from elsewhere). */
  readonly onQueue?: (queue: RateLimitingQueue<string>) => void
}

function check<T>(o: ControllerOptions<T>): void {
  if (typeof o !== 'object' || o === null) throw new TypeError('runController: options must be an object')
  if (typeof o.informer?.addEventHandler !== 'function') throw new TypeError('runController: informer must be a SharedInformer')
  if (typeof o.reconcile !== 'function') throw new TypeError('runController: reconcile must be a function')
  if (!(o.signal instanceof AbortSignal)) throw new TypeError('runController: signal must be an AbortSignal')
  const w = o.workers
  if (w !== undefined && (!Number.isInteger(w) || w < 1)) throw new TypeError(`runController: workers must be a positive integer, got ${String(w)}`)
  for (const f of ['onError', 'onQueue'] as const) {
    if (o[f] !== undefined && typeof o[f] !== 'function') throw new TypeError(`runController: ${f} must be a function`)
  }
}

/**
 * Run a controller until `signal` aborts: wait for the informer's first list, then reconcile every key
 * it reports with `workers` workers. Resolves once stopped: the handler is removed, the queue shut down
 * and every reconcile in progress has returned.
 */
export async function runController<T>(o: ControllerOptions<T>): Promise<void> {
  check(o)
  const clock = o.clock ?? realClock
  const queue = new RateLimitingQueue<string>({
    name: o.name ?? 'controller',
    clock,
    ...(o.rateLimiter === undefined ? {} : { rateLimiter: o.rateLimiter }),
    ...(o.registry === undefined ? {} : { registry: o.registry }),
  })
  o.onQueue?.(queue)
  const report = o.onError ?? ((err: unknown, key: string) => process.emitWarning(`etcdlite controller: reconcile ${key}: ${errorMessage(err)}`))
  const enqueue = (_: T, info: { readonly key: string }): void => queue.add(info.key)
  const registration = o.informer.addEventHandler({
    onAdd: enqueue,
    onUpdate: (_old, obj, info) => enqueue(obj, info),
    onDelete: enqueue,
  })
  const signal = o.signal
  const aborted = new Promise<void>((resolve) => {
    if (signal.aborted) resolve()
    else signal.addEventListener('abort', () => resolve(), { once: true })
  })

  const worker = async (): Promise<void> => {
    while (!signal.aborted) {
      const key = await queue.get()
      if (key === undefined) return
      if (signal.aborted) {
        queue.done(key)
        return
      }
      try {
        const r = await o.reconcile(key, signal)
        if (r?.requeueAfterMs !== undefined && r.requeueAfterMs > 0) {
          queue.forget(key)
          queue.addAfter(key, r.requeueAfterMs)
        } else if (r?.requeue === true) queue.addRateLimited(key)
        else queue.forget(key)
      } catch (err) {
        report(err, key)
        queue.addRateLimited(key)
      } finally {
        queue.done(key)
      }
    }
  }

  try {
    await Promise.race([Promise.all([o.informer.synced, registration.synced]), aborted])
    if (signal.aborted) return
    const workers = Array.from({ length: o.workers ?? 1 }, () => worker())
    await aborted
    // Wake idle workers; those reconciling finish their key first.
    queue.shutDown()
    await Promise.all(workers)
  } finally {
    queue.shutDown()
    await registration.remove()
  }
}
