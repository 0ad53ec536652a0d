// How the v2 auth API fails: an AuthError answers with its HTTP status and etcd's message; an AuthPanic is
// where etcd's handler panics, and the connection is dropped unanswered.
/** A v2auth error: an HTTP status and "auth: ..." message (etcd's v2auth.Error). */
export class AuthError extends Error {
  override name = 'AuthError'
  readonly status: number

  constructor(status: number, message: string) {
    super(`auth: ${message}`)
    this.status = status
  }
}

/** What makes etcd's handler panic (a directory read as a user, an empty pattern): the connection is dropped. */
export class AuthPanic extends Error {
  override name = 'AuthPanic'
}
