// The front ceiling server (front-server.ts) in a process of its own, as the servers under test run:
//   node build/bench/ceiling/front.js [--port 0] [--filtered]
// Once it listens it logs etcd's "serving client traffic" line with its address, so the bench starts and
// finds it exactly as it starts the etcdlite CLI and etcd; SIGTERM or SIGINT stops it.
import { parseArgs } from 'node:util'
import { numberArg } from '../../test/helpers/args.js'
import { startFrontServer } from './front-server.js'

const { values } = parseArgs({ options: { port: { type: 'string', default: '0' }, filtered: { type: 'boolean', default: false } } })
const front = await startFrontServer({ port: Math.floor(numberArg('--port', values.port, 0)), filtered: values.filtered })
process.stderr.write(`${JSON.stringify({ level: 'info', msg: 'serving client traffic insecurely; this is strongly discouraged!', address: front.address })}\n`)
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void front.close().then(() => process.exit(0)))
