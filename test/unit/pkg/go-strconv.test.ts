import { it } from 'node:test'
import assert from 'node:assert/strict'
import { parseGoBool, parseGoUint64 } from '../../../src/pkg/go-strconv.js'

it('parses booleans and uint64s as strconv.ParseBool and ParseUint(s, 10, 64)', () => {
  for (const t of ['1', 't', 'T', 'TRUE', 'true', 'True']) assert.equal(parseGoBool(t), true, t)
  for (const f of ['0', 'f', 'F', 'FALSE', 'false', 'False']) assert.equal(parseGoBool(f), false, f)
  for (const bad of ['', 'yes', 'tRUE', ' true']) assert.equal(parseGoBool(bad), undefined, bad)
  assert.equal(parseGoUint64('007'), 7n)
  assert.equal(parseGoUint64('18446744073709551615'), 18446744073709551615n)
  for (const bad of ['', '-1', '+1', '0x10', '1_0', '18446744073709551616', ' 1']) assert.equal(parseGoUint64(bad), undefined, bad)
})
