import { it } from 'node:test'
import assert from 'node:assert/strict'
import { clean, dir, join, split } from '../../../src/pkg/go-path.js'

it("follows Go's path.Clean, Join, Split and Dir", () => {
  const cleanCases: [string, string][] = [
    ['', '.'], ['/', '/'], ['//a//b/', '/a/b'], ['/../a', '/a'], ['a/../..', '..'], ['/a/./b/../c/', '/a/c'], ['abc/', 'abc'],
  ]
  for (const [p, want] of cleanCases) assert.equal(clean(p), want, p)
  assert.equal(join('/1', ''), '/1')
  assert.equal(join('/1', '/foo/'), '/1/foo')
  assert.equal(join('', ''), '')
  assert.equal(join('/2', '/users/../enabled'), '/2/enabled')
  assert.deepEqual(split('/1/a/b'), ['/1/a/', 'b'])
  assert.deepEqual(split('/1/a/'), ['/1/a/', ''])
  assert.equal(dir('/1/0/members/abc/attributes'), '/1/0/members/abc')
})
