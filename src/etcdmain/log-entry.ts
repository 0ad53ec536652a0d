// A line etcd logs while it reads its configuration, kept for the caller to log: parsing stays pure and
// the lines still come out in etcd's order, through whichever logger the command has by then.

export interface LogEntry {
  readonly level: 'debug' | 'info' | 'warn' | 'error'
  readonly msg: string
  readonly fields?: Readonly<Record<string, unknown>>
  /** etcd's call site of the line (zap's short caller, "flags/flag.go:113"). */
  readonly caller?: string
}
