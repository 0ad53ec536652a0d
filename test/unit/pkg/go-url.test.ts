import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { escapePath, GoUrlError, hexEscapeNonAscii, parseQuery, parseRequestUri, type Values } from '../../../src/pkg/go-url.js'

const query = (q: string): [Values, string | undefined] => {
  const v: Values = new Map()
  return [v, parseQuery(q, v)]
}

describe("Go's net/url", () => {
  it('parses a query as url.ParseQuery: + is a space, repeated keys keep every value, bad pairs are skipped', () => {
    const [v, err] = query('a=1&b=x+y%2B&a=2&&c&d=%FF')
    assert.equal(err, undefined)
    assert.deepEqual([...v], [['a', ['1', '2']], ['b', ['x y+']], ['c', ['']], ['d', ['\u00ff']]])
    assert.deepEqual(query('a=1;b=2&c=3'), [new Map([['c', ['3']]]), 'invalid semicolon separator in query'])
    assert.deepEqual(query('a=%zz&b=%4&c=1'), [new Map([['c', ['1']]]), 'invalid URL escape "%zz"'])
  })

  it('parses a request target as the server does: the path decoded (but not cleaned), the query raw', () => {
    assert.deepEqual(parseRequestUri('/v2/keys/a%2Fb/../c+d?x=%20'), { path: '/v2/keys/a/b/../c+d', rawQuery: 'x=%20' })
    assert.deepEqual(parseRequestUri('http://h:1/p?q'), { path: '/p', rawQuery: 'q' })
    assert.throws(() => parseRequestUri('/v2/keys/%zz'), GoUrlError)
    assert.throws(() => parseRequestUri('/a\u0001'), /invalid control character/)
  })

  it('escapes a path for a redirect as url.URL.EscapedPath and the Location header', () => {
    // Paths are byte strings: é is the two bytes of its UTF-8.
    assert.equal(escapePath('/a b/c?d/\u00c3\u00a9:@$&+,;=~'), '/a%20b/c%3Fd/%C3%A9:@$&+,;=~')
    assert.equal(hexEscapeNonAscii('/x\u00e9'), '/x%e9')
  })
})
