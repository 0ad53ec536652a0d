import { it } from 'node:test'
import assert from 'node:assert/strict'
import { formatGoDuration, formatRfc3339Nano, msToNs } from '../../../src/pkg/go-time.js'

it("formats times as Go's RFC3339Nano (trailing zeros dropped) and durations as Duration.String()", () => {
  assert.equal(formatRfc3339Nano(1_764_102_430_429_755_762n), '2025-11-25T20:27:10.429755762Z')
  assert.equal(formatRfc3339Nano(1_764_102_430_500_000_000n), '2025-11-25T20:27:10.5Z')
  assert.equal(formatRfc3339Nano(1_764_102_430_000_000_000n), '2025-11-25T20:27:10Z')
  assert.equal(formatRfc3339Nano(-1n), '1969-12-31T23:59:59.999999999Z')
  const durations: [bigint, string][] = [
    [0n, '0s'], [1n, '1ns'], [1500n, '1.5µs'], [2_000_000n, '2ms'], [12_978_746_407n, '12.978746407s'], [60_000_000_000n, '1m0s'],
    [3_661_500_000_000n, '1h1m1.5s'], [-1_500_000_000n, '-1.5s'],
  ]
  for (const [ns, want] of durations) assert.equal(formatGoDuration(ns), want, String(ns))
  assert.equal(msToNs(1.5), 1_500_000n)
})
