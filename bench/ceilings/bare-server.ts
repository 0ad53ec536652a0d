// What the ceiling servers (rpc-ceiling-server.ts, push-ceiling-server.ts) share: etcdlite's grpc-js server
// options, binding 127.0.0.1:0 and announcing `ready <port>` on stdout, and a clean stop on SIGTERM, SIGINT
// or (when started by launch.ts) the parent going away.
import { parseArgs } from 'node:util'
import * as grpc from '@grpc/grpc-js'
import { GRPC_OVERHEAD_BYTES, SERVER_DEFAULTS } from '../../src/etcdserver/etcd-server.js'
import type { ResponseHeader } from '../../src/etcdserver/types.js'

/** The options src/grpc/server.ts gives its grpc.Server, with etcdlite's default --max-request-bytes. */
export const CEILING_SERVER_OPTIONS: grpc.ServerOptions = {
  'grpc.max_receive_message_length': SERVER_DEFAULTS.maxRequestBytes + GRPC_OVERHEAD_BYTES,
  'grpc.max_send_message_length': 2 ** 31 - 1,
  'grpc.max_concurrent_streams': 2 ** 31 - 1,
  'grpc.enable_channelz': 0,
}

/**
 * A header as etcdlite sends it: random 64-bit cluster and member IDs (10-byte varints when the top bit is
 * set, as here), a revision in the millions, raft term 2.
 */
export const CANNED_HEADER: ResponseHeader = {
  clusterId: 0xcdf8_1819_4e3a_8c32n,
  memberId: 0x8e9e_05c5_2164_694dn,
  revision: 1_000_000,
  raftTerm: 2,
}

/** Command-line options every ceiling server takes. */
export interface CeilingServerArgs {
  readonly keySize: number
  readonly valueSize: number
  /** Push ceiling: events per pre-encoded WatchResponse. */
  readonly events: number
  /** Stop when stdin closes (the launcher's pipe: its process is gone). Off by default, so `node x.js &` keeps running. */
  readonly exitOnStdinClose: boolean
  /** RPC ceiling: commit each Put's record to a LevelDB in this (empty) directory before answering. */
  readonly commitDir: string | undefined
  /** With commitDir: sync each commit (etcdlite's durable default). */
  readonly commitSync: boolean
}

export function parseCeilingServerArgs(argv: readonly string[]): CeilingServerArgs {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      'key-size': { type: 'string', default: '16' },
      'value-size': { type: 'string', default: '64' },
      events: { type: 'string', default: '1' },
      'exit-on-stdin-close': { type: 'boolean', default: false },
      'commit-dir': { type: 'string' },
      'commit-sync': { type: 'boolean', default: false },
    },
    strict: true,
  })
  const int = (name: string, v: string, min: number): number => {
    const n = Number(v)
    if (!Number.isSafeInteger(n) || n < min) throw new Error(`--${name} must be an integer ≥ ${min}, got ${v}`)
    return n
  }
  return {
    keySize: int('key-size', values['key-size'], 1),
    valueSize: int('value-size', values['value-size'], 0),
    events: int('events', values.events, 1),
    exitOnStdinClose: values['exit-on-stdin-close'],
    commitDir: values['commit-dir'],
    commitSync: values['commit-sync'],
  }
}

/** A key of exactly `size` bytes, shaped as the load generators' keys (a letter, then zero-padded digits). */
export function cannedKey(prefix: string, size: number): Buffer {
  return Buffer.from((prefix + '0'.repeat(size)).slice(0, size), 'latin1')
}

/**
 * Bind `server` to 127.0.0.1:0, print `ready <port>` on stdout, and stop it cleanly on SIGTERM/SIGINT (and on
 * stdin closing with `exitOnStdinClose`): `beforeStop` ends long-lived calls, then tryShutdown lets unary
 * calls in flight finish, and forceShutdown cuts whatever is left after `graceMs`. Resolves when the server
 * has stopped; the process then exits on its own (nothing else keeps it alive).
 */
export async function serveUntilStopped(server: grpc.Server, args: CeilingServerArgs, beforeStop: () => void = () => undefined, graceMs = 2000): Promise<void> {
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err === null ? resolve(p) : reject(err)))
  })
  process.stdout.write(`ready ${port}\n`)
  await new Promise<void>((resolve) => {
    let stopping = false
    const stop = (): void => {
      if (stopping) return
      stopping = true
      beforeStop()
      const timer = setTimeout(() => server.forceShutdown(), graceMs)
      server.tryShutdown(() => {
        clearTimeout(timer)
        resolve()
      })
    }
    process.once('SIGTERM', stop)
    process.once('SIGINT', stop)
    if (args.exitOnStdinClose) {
      process.stdin.on('data', () => undefined)
      process.stdin.once('end', stop)
      process.stdin.once('error', stop)
    }
  })
  // Stdin (when read) would keep the process alive.
  process.stdin.destroy()
}

/** Run a server program's main: report a failure on stderr with exit code 1. */
export function runMain(name: string, main: () => Promise<void>): void {
  main().then(
    () => {
      process.exitCode = 0
    },
    (err: unknown) => {
      process.stderr.write(`${name}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
      process.exitCode = 1
    },
  )
}
