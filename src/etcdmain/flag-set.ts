// Go's flag.FlagSet as etcd uses it (ContinueOnError): "-flag" and "--flag", "--flag=v" and "--flag v",
// bool flags only as "--flag" or "--flag=v", the last of repeated flags wins, parsing stops at the first
// argument that is not a flag (or after "--"), and Go's error texts. Hand-written: the texts, the exit
// codes and the repeat rule are what harnesses see, and Node's util.parseArgs differs on each.
import { goQuote } from '../pkg/go-quote.js'
import { FlagValueError, type FlagValue } from './flag-values.js'

export interface FlagDef {
  readonly name: string
  readonly value: FlagValue
}

/** A parse failure, with the message Go prints to stderr (before the usage) and the exit code 2. */
export class FlagParseError extends Error {
  override name = 'FlagParseError'
}

/** -h or -help (not defined as flags): Go prints the usage and returns flag.ErrHelp. */
export class HelpRequested extends Error {
  override name = 'HelpRequested'
}

export class FlagSet {
  private readonly formal = new Map<string, FlagValue>()
  /** Flags set on the command line or by Set(), by name (Go's fs.actual, what Visit and IsSet see). */
  readonly actual = new Set<string>()
  /** What is left after the flags (Go's fs.Args()). */
  args: string[] = []

  define(name: string, value: FlagValue): void {
    if (this.formal.has(name)) throw new Error(`flag redefined: ${name}`)
    this.formal.set(name, value)
  }

  lookup(name: string): FlagValue | undefined {
    return this.formal.get(name)
  }

  /** Every defined flag name, sorted (Go's VisitAll order). */
  names(): string[] {
    return [...this.formal.keys()].sort()
  }

  isSet(name: string): boolean {
    return this.actual.has(name)
  }

  /** FlagSet.Set: set a defined flag by name and mark it as set; throws FlagValueError as the value does. */
  set(name: string, value: string): void {
    const v = this.formal.get(name)
    if (v === undefined) throw new FlagValueError(`no such flag -${name}`)
    v.set(value)
    this.actual.add(name)
  }

  /** FlagSet.Parse. Throws FlagParseError (Go's message) or HelpRequested. */
  parse(argv: readonly string[]): void {
    let rest = [...argv]
    for (;;) {
      const s = rest[0]
      if (s === undefined || s.length < 2 || s[0] !== '-') break
      let minuses = 1
      if (s[1] === '-') {
        minuses++
        if (s.length === 2) {
          rest = rest.slice(1)
          break
        }
      }
      let name = s.slice(minuses)
      if (name.length === 0 || name[0] === '-' || name[0] === '=') throw new FlagParseError(`bad flag syntax: ${s}`)
      rest = rest.slice(1)
      let value: string | undefined
      const eq = name.indexOf('=', 1)
      if (eq !== -1) {
        value = name.slice(eq + 1)
        name = name.slice(0, eq)
      }
      const flag = this.formal.get(name)
      if (flag === undefined) {
        if (name === 'help' || name === 'h') throw new HelpRequested('flag: help requested')
        throw new FlagParseError(`flag provided but not defined: -${name}`)
      }
      if (flag.isBoolFlag) {
        try {
          flag.set(value ?? 'true')
        } catch (err) {
          if (!(err instanceof FlagValueError)) throw err
          throw new FlagParseError(value === undefined ? `invalid boolean flag ${name}: ${err.message}` : `invalid boolean value ${goQuote(value)} for -${name}: ${err.message}`)
        }
      } else {
        if (value === undefined) {
          const next = rest[0]
          if (next === undefined) throw new FlagParseError(`flag needs an argument: -${name}`)
          value = next
          rest = rest.slice(1)
        }
        try {
          flag.set(value)
        } catch (err) {
          if (!(err instanceof FlagValueError)) throw err
          throw new FlagParseError(`invalid value ${goQuote(value)} for flag -${name}: ${err.message}`)
        }
      }
      this.actual.add(name)
    }
    this.args = rest
  }
}
