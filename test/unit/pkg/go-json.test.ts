import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { decodeRune, goJsonDecodeFirst, goJsonEncode, goJsonMarshal, GoJsonSyntaxError } from '../../../src/pkg/go-json.js'
import { utf8ToBstr } from '../../../src/pkg/bstr.js'

const bytes = (...b: number[]): string => String.fromCharCode(...b)

describe("Go's encoding/json output", () => {
  it('escapes <, >, &, U+2028, U+2029 and control bytes as Go does (\\u0008, not \\b)', () => {
    assert.equal(goJsonMarshal(utf8ToBstr('<a>&\u2028\u2029\b\f\n\r\t"\\\u0001\u007f')), '"\\u003ca\\u003e\\u0026\\u2028\\u2029\\u0008\\u000c\\n\\r\\t\\"\\\\\\u0001\u007f"')
  })

  it('decodes UTF-8 and turns every invalid byte into its own U+FFFD', () => {
    assert.equal(goJsonMarshal(utf8ToBstr('é€😀')), '"é€😀"')
    // A truncated 3-byte sequence is two invalid bytes in Go (one replacement each), then a valid 'a'.
    assert.equal(goJsonMarshal(bytes(0xe2, 0x82, 0x61, 0xff)), '"\\ufffd\\ufffda\\ufffd"')
    // Encoded surrogates and overlong forms are invalid too.
    assert.equal(goJsonMarshal(bytes(0xed, 0xa0, 0x80)), '"\\ufffd\\ufffd\\ufffd"')
    assert.equal(goJsonMarshal(bytes(0xc0, 0xaf)), '"\\ufffd\\ufffd"')
    assert.deepEqual(decodeRune(bytes(0xf0, 0x9f, 0x98, 0x80), 0), [0x1f600, 4])
  })

  it('writes objects in field order, leaving out undefined fields, and Encode adds a newline', () => {
    assert.equal(goJsonMarshal({ a: 1, b: undefined, c: null, d: [true, 'x'], e: {} }), '{"a":1,"c":null,"d":[true,"x"],"e":{}}')
    assert.equal(goJsonEncode({ k: 'v' }), '{"k":"v"}\n')
  })
})

describe("json.Decoder.Decode's first value", () => {
  it('ignores what follows the first value', () => {
    assert.deepEqual(goJsonDecodeFirst('  {"a":"}"} trailing {'), { a: '}' })
    assert.deepEqual(goJsonDecodeFirst('[1,[2]]x'), [1, [2]])
    assert.equal(goJsonDecodeFirst('true}'), true)
    assert.equal(goJsonDecodeFirst('"a\\"b" c'), 'a"b')
  })

  it('refuses an empty body and a malformed value', () => {
    assert.throws(() => goJsonDecodeFirst('  '), GoJsonSyntaxError)
    assert.throws(() => goJsonDecodeFirst('{"a":'), GoJsonSyntaxError)
    assert.throws(() => goJsonDecodeFirst('garbage'), GoJsonSyntaxError)
  })
})
