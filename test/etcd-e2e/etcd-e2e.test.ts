// etcd 3.4.23's own e2e suite, run with etcdlite as the `etcd` binary and the real etcdctl: every test that
// starts one member and passes on the real etcd must pass here too, except the groups expected.ts names.
// ETCD_ETCD_VERSION makes etcdlite report 3.4.23 (the suite checks versions in /metrics and etcdctl
// output); the flags each test gives etcd reach etcdlite unchanged.
import { before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildSuite, runSuite, unavailable, type TestResult } from './suite.js'
import { MUST_PASS } from './expected.js'

const why = unavailable()

describe("etcd 3.4.23's e2e suite with etcdlite as etcd", { skip: why ?? false }, () => {
  let results: Map<string, TestResult>
  before(async () => {
    results = await runSuite(buildSuite(), { tests: MUST_PASS, env: { ETCD_ETCD_VERSION: '3.4.23' } })
  }, { timeout: 60 * 60 * 1000 })

  for (const name of MUST_PASS) {
    it(name, () => {
      const r = results.get(name)
      assert.ok(r !== undefined, `${name} did not run`)
      assert.equal(r.outcome, 'PASS', r.output)
    })
  }
})
