// `npm run test:etcd-e2e [-- --etcd /usr/bin/etcd] [-- TestName ...]`: run etcd 3.4.23's whole e2e suite (or
// the named tests) with etcdlite, or the given binary, as `etcd`, and print each single-member test's outcome
// against what expected.ts says. Exits 1 when a test of MUST_PASS fails.
import { buildSuite, runSuite, unavailable } from './suite.js'
import { EXCLUDED, MUST_PASS } from './expected.js'

const args = process.argv.slice(2)
let etcd: string | undefined
const tests: string[] = []
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--etcd') etcd = args[++i]
  else tests.push(args[i] as string)
}
const why = unavailable()
if (why !== undefined) {
  process.stderr.write(`cannot run etcd's e2e suite: ${why}\n`)
  process.exit(2)
}
const excludedBy = new Map<string, string>()
for (const [group, names] of Object.entries(EXCLUDED)) for (const n of names) excludedBy.set(n, group)
const results = await runSuite(buildSuite(), {
  ...(tests.length > 0 ? { tests } : {}),
  ...(etcd === undefined ? { env: { ETCD_ETCD_VERSION: '3.4.23' } } : { etcd }),
  onLine: (l) => {
    if (/^--- (PASS|FAIL|SKIP)/.test(l)) process.stdout.write(`${l}\n`)
  },
})
let failed = 0
let passed = 0
for (const name of MUST_PASS) {
  const r = results.get(name)
  if (r === undefined) continue
  if (r.outcome === 'PASS') passed++
  else {
    failed++
    process.stdout.write(`\nMUST PASS but ${r.outcome}: ${name}\n${r.output}\n`)
  }
}
const excluded = [...results.keys()].filter((n) => excludedBy.has(n))
process.stdout.write(`\n${passed} of ${MUST_PASS.filter((n) => results.has(n)).length} required tests passed`)
process.stdout.write(`; ${excluded.filter((n) => results.get(n)?.outcome === 'PASS').length} of ${excluded.length} excluded ones passed anyway\n`)
process.exitCode = failed === 0 ? 0 : 1
