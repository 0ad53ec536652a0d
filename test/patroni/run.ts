// `npm run test:patroni`: the Patroni scenario (scenario.ts) against etcdlite, or with `--etcd <binary>`
// against that etcd, or with `--endpoint host:port` against a server already running; `--nodes N` (default
// 3). Prints each phase's duration; exits non-zero, with Patroni's logs, when a phase fails.
import { parseArgs } from 'node:util'
import { startEtcdliteProcess, type ServerProcess } from '../helpers/processes.js'
import { startGatewayEtcd } from '../helpers/gateway-etcd.js'
import { runScenario } from './scenario.js'
import { errorMessage } from '../../src/pkg/as-error.js'

const { values } = parseArgs({
  options: {
    etcd: { type: 'string' },
    endpoint: { type: 'string' },
    nodes: { type: 'string', default: '3' },
  },
})
const size = Number(values.nodes)
if (!Number.isInteger(size) || size < 2) throw new TypeError(`--nodes must be an integer of at least 2, not ${values.nodes}`)

let server: ServerProcess | undefined
let endpoint = values.endpoint
if (endpoint === undefined) {
  server = values.etcd === undefined ? await startEtcdliteProcess({ memory: true }) : await startGatewayEtcd({ bin: values.etcd })
  endpoint = server.endpoint
}
const what = values.endpoint !== undefined ? `the server at ${endpoint}` : values.etcd !== undefined ? `${values.etcd} at ${endpoint}` : `etcdlite at ${endpoint}`
console.log(`Patroni, ${size} nodes, on ${what}`)
// Ctrl-C or a SIGTERM ends the scenario the way a failure does: every process stopped, the directory deleted.
const abort = new AbortController()
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => abort.abort(new Error(`interrupted by ${sig}`)))
try {
  await runScenario(endpoint, { size, log: (line) => console.log(`  ${line}`), signal: abort.signal })
} catch (e) {
  console.error(errorMessage(e))
  process.exitCode = 1
} finally {
  await server?.dispose()
}
