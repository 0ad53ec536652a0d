// The server's part in every call its services take: refusing calls once it is closing, and counting those
// in flight, which close() waits for before it closes the stores (etcd's stopping channel and wait group).

export interface CallTracker {
  /** True once the server is closing. */
  readonly closed: boolean
  /** Throws STOPPED once the server is closing. */
  checkOpen(): void
  /** Run a call the server waits for when it closes (STOPPED once closing). */
  track<T>(fn: () => Promise<T>): Promise<T>
  /**
   * Resolve with `value` once `settles` resolves (reject with its error otherwise), counted as in flight
   * meanwhile: one promise on the commit, for calls answered without an async wrapper.
   */
  trackUntil<T>(settles: Promise<void>, value: T): Promise<T>
}
