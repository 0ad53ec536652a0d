// How etcd's start-up ends when something is wrong, each with its own output and exit code, so the
// command reports every failure exactly as etcd does.
/**
 * The configuration is refused (etcd's cfg.parse returned an error): etcd logs "Running: " and then
 * "failed to verify flags" with this message at warn level, and exits 1.
 */
export class VerifyFlagsError extends Error {
  override name = 'VerifyFlagsError'
}

/**
 * embed.StartEtcd failed: etcd logs "failed to start etcd" (warn) and "discovery failed" (fatal) with this
 * message, and exits 1.
 */
export class StartError extends Error {
  override name = 'StartError'
}

/** etcd logs a fatal line (lg.Fatal: this message and fields) and exits 1. */
export class FatalError extends Error {
  override name = 'FatalError'
  readonly fields: Readonly<Record<string, unknown>>
  /** etcd's call site of the fatal line. */
  readonly caller: string | undefined
  constructor(msg: string, fields: Readonly<Record<string, unknown>> = {}, caller?: string) {
    super(msg)
    this.fields = fields
    this.caller = caller
  }
}

/** etcd prints this text to stderr as it is (fmt.Fprintf or the standard log) and exits 1. */
export class ExitError extends Error {
  override name = 'ExitError'
}

/** etcd panics: Go prints "panic: <message>" and a stack trace to stderr and exits 2. */
export class PanicError extends Error {
  override name = 'PanicError'
}
