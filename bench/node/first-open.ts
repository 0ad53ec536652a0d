// Run in a fresh node process by bench/run.ts: how long importing etcdlite takes, then the first
// openEtcd({ memory: true }), the start-up cost an application or a test suite pays for an in-process etcd.
// It imports the package by its name, so what it loads is what ships (the bundle package.json's exports
// names), not tsc's output. Prints one JSON line, a FirstOpenRecord (bench/lib/records.ts).
import type { FirstOpenRecord } from '../lib/records.js'

const t0 = performance.now()
const { openEtcd } = await import('etcdlite')
const t1 = performance.now()
const etcd = await openEtcd({ memory: true })
const t2 = performance.now()
await etcd.close()
const rec: FirstOpenRecord = { type: 'first-open', round: 1, importMs: t1 - t0, openMs: t2 - t1 }
process.stdout.write(`${JSON.stringify(rec)}\n`)
