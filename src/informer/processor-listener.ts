// One event handler of a shared informer with a queue of its own (client-go's processorListener), so a
// slow handler delays nobody else. Memory policy: the queue is a FIFO of every notification while it
// holds at most `maxBuffered`; past that it coalesces by key (one pending notification per key, from the
// state the handler last saw to the latest), so a handler that falls far behind costs at most one entry
// per key, and catches up to the current state rather than replaying every intermediate one.

export interface AddInfo {
  readonly key: string
  /** Part of the initial list (or of the cache as it was when the handler was added). */
  readonly initial: boolean
}

export interface UpdateInfo {
  readonly key: string
  /** A periodic resync re-delivering the cached object (old and new are the same object). */
  readonly resync: boolean
}

export interface DeleteInfo {
  readonly key: string
  /**
   * The deletion was inferred by a relist (the key was absent from it) rather than seen as an event:
   * client-go's DeletedFinalStateUnknown. The object is the last state the cache held.
   */
  readonly finalStateUnknown: boolean
}

/** Callbacks of one handler; each may be async (the next notification waits for it). */
export interface EventHandler<T> {
  onAdd?(object: T, info: AddInfo): void | Promise<void>
  onUpdate?(oldObject: T, newObject: T, info: UpdateInfo): void | Promise<void>
  onDelete?(object: T, info: DeleteInfo): void | Promise<void>
}

export type Notification<T> =
  | { readonly kind: 'add'; readonly key: string; readonly object: T; readonly initial: boolean }
  | { readonly kind: 'update'; readonly key: string; readonly old: T; readonly object: T; readonly resync: boolean }
  | { readonly kind: 'delete'; readonly key: string; readonly object: T; readonly finalStateUnknown: boolean }

/**
 * What the handler should see instead of `prev` followed by `next` on one key; undefined: nothing (an
 * add then a delete it never saw).
 */
export function coalesce<T>(prev: Notification<T>, next: Notification<T>): Notification<T> | undefined {
  const key = next.key
  switch (prev.kind) {
    case 'add':
      if (next.kind === 'delete') return undefined
      return { kind: 'add', key, object: next.object, initial: prev.initial }
    case 'update':
      if (next.kind === 'delete') return next
      return { kind: 'update', key, old: prev.old, object: next.object, resync: prev.resync && next.kind === 'update' && next.resync }
    case 'delete':
      // The handler last saw prev.object; a later add or update makes it a change from that state.
      if (next.kind === 'delete') return next
      return { kind: 'update', key, old: prev.object, object: next.object, resync: false }
  }
}

/** Sync handler calls run back to back before the listener yields to I/O and the other listeners. */
const SYNC_BATCH = 256

export class ProcessorListener<T> {
  readonly handler: EventHandler<T>
  readonly maxBuffered: number
  /** Notifications handed to the handler. */
  delivered = 0
  /** Times the queue overflowed and switched to coalescing by key. */
  overflows = 0
  /** The largest number of pending notifications seen. */
  peakPending = 0
  private fifo: Notification<T>[] = []
  private head = 0
  private byKey: Map<string, Notification<T>> | undefined
  private running = false
  private stopped = false
  private idleWaiters: (() => void)[] = []
  private readonly onError: (err: unknown, n: Notification<T>) => void

  constructor(handler: EventHandler<T>, maxBuffered: number, onError: (err: unknown, n: Notification<T>) => void) {
    this.handler = handler
    this.maxBuffered = maxBuffered
    this.onError = onError
  }

  /** Notifications waiting for the handler. */
  get pending(): number {
    return this.byKey?.size ?? this.fifo.length - this.head
  }

  /** Whether the queue is coalescing by key (it fell more than maxBuffered behind). */
  get coalescing(): boolean {
    return this.byKey !== undefined
  }

  add(n: Notification<T>): void {
    if (this.stopped) return
    if (this.byKey !== undefined) this.merge(this.byKey, n)
    else {
      this.fifo.push(n)
      if (this.fifo.length - this.head > this.maxBuffered) this.overflow()
    }
    this.peakPending = Math.max(this.peakPending, this.pending)
    if (!this.running) {
      this.running = true
      // Never inside the informer's own call: a handler runs after the change has been fully applied.
      queueMicrotask(() => void this.pump())
    }
  }

  /** Resolves once nothing is pending and the handler is not running. */
  idle(): Promise<void> {
    if (!this.running) return Promise.resolve()
    return new Promise((resolve) => this.idleWaiters.push(resolve))
  }

  /** Drop what is pending; resolves once the handler call in progress (if any) has returned. */
  stop(): Promise<void> {
    this.stopped = true
    this.fifo = []
    this.head = 0
    this.byKey = undefined
    return this.idle()
  }

  private overflow(): void {
    this.overflows++
    const m = new Map<string, Notification<T>>()
    for (let i = this.head; i < this.fifo.length; i++) this.merge(m, this.fifo[i] as Notification<T>)
    this.fifo = []
    this.head = 0
    this.byKey = m
  }

  private merge(m: Map<string, Notification<T>>, n: Notification<T>): void {
    const prev = m.get(n.key)
    if (prev === undefined) {
      m.set(n.key, n)
      return
    }
    const c = coalesce(prev, n)
    if (c === undefined) m.delete(n.key)
    else m.set(n.key, c)
  }

  private take(): Notification<T> | undefined {
    if (this.byKey !== undefined) {
      const first = this.byKey.entries().next()
      if (first.done === true) {
        this.byKey = undefined
        return undefined
      }
      this.byKey.delete(first.value[0])
      if (this.byKey.size === 0) this.byKey = undefined
      return first.value[1]
    }
    if (this.head === this.fifo.length) return undefined
    const n = this.fifo[this.head] as Notification<T>
    this.fifo[this.head] = undefined as unknown as Notification<T>
    this.head++
    if (this.head === this.fifo.length) {
      this.fifo = []
      this.head = 0
    } else if (this.head > 4096 && this.head * 2 > this.fifo.length) {
      this.fifo = this.fifo.slice(this.head)
      this.head = 0
    }
    return n
  }

  private async pump(): Promise<void> {
    let sync = 0
    for (let n = this.take(); n !== undefined && !this.stopped; n = this.take()) {
      try {
        const r = this.call(n)
        this.delivered++
        if (r !== undefined) {
          sync = 0
          await r
        } else if (++sync >= SYNC_BATCH) {
          sync = 0
          await new Promise<void>((resolve) => setImmediate(resolve))
        }
      } catch (err) {
        this.onError(err, n)
      }
    }
    this.running = false
    for (const w of this.idleWaiters.splice(0)) w()
  }

  private call(n: Notification<T>): void | Promise<void> {
    const h = this.handler
    switch (n.kind) {
      case 'add':
        return h.onAdd?.(n.object, { key: n.key, initial: n.initial })
      case 'update':
        return h.onUpdate?.(n.old, n.object, { key: n.key, resync: n.resync })
      case 'delete':
        return h.onDelete?.(n.object, { key: n.key, finalStateUnknown: n.finalStateUnknown })
    }
  }
}
