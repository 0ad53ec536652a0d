// The iterator face of an object that hands out what an AsyncQueue holds (a watch stream, a keep-alive):
// `for await` reads the queue, and leaving the loop early (return()) or `await using` stops the producer.
import { AsyncQueue } from './async-queue.js'

export abstract class QueueIterator<T> implements AsyncIterableIterator<T>, AsyncDisposable {
  protected readonly queue: AsyncQueue<T>

  /** A queue of `capacity` items (see AsyncQueue: the producer decides what a refusal means). */
  protected constructor(capacity: number) {
    this.queue = new AsyncQueue<T>({ capacity, onSpace: () => this.onSpace() })
  }

  /** Stop producing (idempotent); what is queued can still be read. */
  protected abstract stop(): void

  /** The consumer took an item from a queue that had refused one: there is room again. */
  protected onSpace(): void {}

  next(): Promise<IteratorResult<T, undefined>> {
    return this.queue.next()
  }

  return(): Promise<IteratorResult<T, undefined>> {
    this.stop()
    return this.queue.return()
  }

  [Symbol.asyncIterator](): this {
    return this
  }

  [Symbol.asyncDispose](): Promise<void> {
    this.stop()
    return Promise.resolve()
  }
}
