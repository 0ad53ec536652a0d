#!/usr/bin/env node
// Node's ESM loader fetches all of a module's imports at once, a file descriptor each. Loading the large
// subtrees one after another, before the command itself, keeps a plain start within a low descriptor limit
// (`ulimit -n 64` starts etcd, and so it starts etcdlite).
await import('../mvcc/kvstore.js')
await import('../etcdserver/etcd-server.js')
await import('../grpc/server.js')
const { main } = await import('../etcdmain/etcd-main.js')

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
