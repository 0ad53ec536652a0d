// A logger that holds its entries until released, then passes them and everything after straight on. The
// CLI opens the store (which logs) before it can log the lines etcd writes ahead of those, such as the
// member ID read from the store; holding keeps etcd's order.
import { callerHere, type Fields, type Logger } from './logger.js'

type Level = 'debug' | 'info' | 'warn' | 'error'

export class HeldLogger implements Logger {
  private held: Array<{ level: Level; msg: string; fields: Fields | undefined; caller: string | undefined }> | undefined = []

  constructor(private readonly target: Logger) {}

  /** Pass the held entries on, in order, and stop holding. */
  release(): void {
    const held = this.held ?? []
    this.held = undefined
    for (const e of held) this.target[e.level](e.msg, e.fields, e.caller)
  }

  private put(level: Level, msg: string, fields: Fields | undefined, caller: string | undefined): void {
    if (this.held === undefined) this.target[level](msg, fields, caller)
    // The call site is read now: on release the stack is the releaser's.
    else this.held.push({ level, msg, fields, caller: caller ?? callerHere() })
  }

  debug(msg: string, fields?: Fields, caller?: string): void {
    this.put('debug', msg, fields, caller)
  }

  info(msg: string, fields?: Fields, caller?: string): void {
    this.put('info', msg, fields, caller)
  }

  warn(msg: string, fields?: Fields, caller?: string): void {
    this.put('warn', msg, fields, caller)
  }

  error(msg: string, fields?: Fields, caller?: string): void {
    this.put('error', msg, fields, caller)
  }
}
