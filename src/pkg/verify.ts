/**
 * invariant(): always-on checks of internal state; a failure is a bug, never a user error.
 * verify(): costly checks that run only when ETCDLITE_VERIFY is set (tests set it).
 */
export class InvariantError extends Error {
  override name = 'InvariantError'
}

export function invariant(cond: unknown, message: string): asserts cond {
  if (!cond) throw new InvariantError(message)
}

const VERIFY = process.env['ETCDLITE_VERIFY'] !== undefined && process.env['ETCDLITE_VERIFY'] !== ''

export function verify(check: () => void): void {
  if (VERIFY) check()
}
