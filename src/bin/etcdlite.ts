#!/usr/bin/env node
import { main } from '../etcdmain/etcd-main.js'

main(process.argv.slice(2)).then(
  (exit) => {
    if (typeof exit === 'number') {
      process.exitCode = exit
      return
    }
    // Stopped by a signal: end by it, as etcd does (its handler was a once-listener, so the default applies).
    process.kill(process.pid, exit)
  },
  (err: unknown) => {
    process.stderr.write(`etcdlite: fatal: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
    process.exitCode = 1
  },
)
