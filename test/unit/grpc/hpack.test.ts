// HPACK: the examples of RFC 7541 Appendix C (single representations, requests with and without Huffman
// coding, responses with eviction from a 256-byte table), the decoder's refusals, and the encoder that
// never indexes.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { encodeWithoutIndexing, HpackDecoder, HpackError, huffmanDecode, type HeaderField } from '../../../src/grpc/hpack.js'

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex')
const fields = (...pairs: [string, string][]): HeaderField[] => pairs.map(([name, value]) => ({ name, value }))

describe('HPACK decoder: RFC 7541 Appendix C', () => {
  it('C.2: one representation of each kind', () => {
    assert.deepEqual(new HpackDecoder().decode(hex('400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572')), fields(['custom-key', 'custom-header']))
    assert.deepEqual(new HpackDecoder().decode(hex('040c 2f73 616d 706c 652f 7061 7468')), fields([':path', '/sample/path']))
    assert.deepEqual(new HpackDecoder().decode(hex('1008 7061 7373 776f 7264 0673 6563 7265 74')), fields(['password', 'secret']))
    assert.deepEqual(new HpackDecoder().decode(hex('82')), fields([':method', 'GET']))
  })

  const requests = [
    fields([':method', 'GET'], [':scheme', 'http'], [':path', '/'], [':authority', 'www.example.com']),
    fields([':method', 'GET'], [':scheme', 'http'], [':path', '/'], [':authority', 'www.example.com'], ['cache-control', 'no-cache']),
    fields([':method', 'GET'], [':scheme', 'https'], [':path', '/index.html'], [':authority', 'www.example.com'], ['custom-key', 'custom-value']),
  ]
  it('C.3: requests without Huffman coding, one decoder', () => {
    const d = new HpackDecoder()
    assert.deepEqual(d.decode(hex('8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d')), requests[0])
    assert.deepEqual(d.decode(hex('8286 84be 5808 6e6f 2d63 6163 6865')), requests[1])
    assert.deepEqual(d.decode(hex('8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65')), requests[2])
  })
  it('C.4: requests with Huffman coding, one decoder', () => {
    const d = new HpackDecoder()
    assert.deepEqual(d.decode(hex('8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff')), requests[0])
    assert.deepEqual(d.decode(hex('8286 84be 5886 a8eb 1064 9cbf')), requests[1])
    assert.deepEqual(d.decode(hex('8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf')), requests[2])
  })

  const responses = [
    fields([':status', '302'], ['cache-control', 'private'], ['date', 'Mon, 21 Oct 2013 20:13:21 GMT'], ['location', 'https://www.example.com']),
    fields([':status', '307'], ['cache-control', 'private'], ['date', 'Mon, 21 Oct 2013 20:13:21 GMT'], ['location', 'https://www.example.com']),
    fields(
      [':status', '200'], ['cache-control', 'private'], ['date', 'Mon, 21 Oct 2013 20:13:22 GMT'], ['location', 'https://www.example.com'],
      ['content-encoding', 'gzip'], ['set-cookie', 'foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1'],
    ),
  ]
  it('C.5: responses without Huffman coding, 256-byte table (entries evicted)', () => {
    const d = new HpackDecoder(256)
    assert.deepEqual(d.decode(hex(`4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32
      3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d`)), responses[0])
    assert.deepEqual(d.decode(hex('4803 3330 37c1 c0bf')), responses[1])
    assert.deepEqual(d.decode(hex(`88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d 54c0 5a04 677a 6970
      7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049 5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076
      6572 7369 6f6e 3d31`)), responses[2])
  })
  it('C.6: responses with Huffman coding, 256-byte table (entries evicted)', () => {
    const d = new HpackDecoder(256)
    assert.deepEqual(d.decode(hex(`4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad
      1718 63c7 8f0b 97c8 e9ae 82ae 43d3`)), responses[0])
    assert.deepEqual(d.decode(hex('4883 640e ffc1 c0bf')), responses[1])
    assert.deepEqual(d.decode(hex(`88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2
      e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07`)), responses[2])
  })
})

describe('HPACK decoder: refusals', () => {
  const refused: [string, string][] = [
    ['index 0', '80'],
    ['an index beyond both tables', 'be'],
    ['a truncated integer', '7f'],
    ['a truncated string', '0003 6162'],
    ['a table size update after a field', '82 3f e1 1f'],
    ['a table size update beyond the setting', '3f e2 1f'],
    ['an integer beyond 2^32', '7f ff ff ff ff ff 0f'],
    ['Huffman padding of 8 bits or more', '00 82 ff ff 00'],
    ['Huffman padding that is not all ones', '00 81 00 00'],
    ['a Huffman-coded EOS', '00 84 ff ff ff ff 00'],
  ]
  for (const [what, block] of refused) {
    it(what, () => assert.throws(() => new HpackDecoder().decode(hex(block)), HpackError))
  }

  it('a table size update at the start of a block empties the table', () => {
    const d = new HpackDecoder()
    d.decode(hex('400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572'))
    assert.deepEqual(d.decode(hex('be')), fields(['custom-key', 'custom-header']))
    d.decode(hex('20'))
    assert.throws(() => d.decode(hex('be')), HpackError)
  })

  it('Huffman: a 5-bit code and its padding; the empty string', () => {
    // "0" is 00000 (5 bits) padded with 111: one byte.
    assert.equal(huffmanDecode(hex('07')), '0')
    assert.equal(huffmanDecode(hex('')), '')
  })
})

describe('HPACK encoder without indexing', () => {
  it('decodes to the same fields, in any decoding context, and never adds to the table', () => {
    const long = 'x'.repeat(300)
    const f = fields(
      [':method', 'POST'], [':scheme', 'http'], [':path', '/etcdserverpb.KV/Range'], [':authority', '127.0.0.1:2379'],
      ['content-type', 'application/grpc'], ['te', 'trailers'], ['custom-bin', 'Zm9v'], [long, long], ['latin', '\u00e9\u00ff\u0000'],
    )
    const block = encodeWithoutIndexing(f)
    const d = new HpackDecoder()
    d.decode(hex('400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572'))
    assert.deepEqual(d.decode(block), f)
    assert.deepEqual(d.decode(block), f)
    // The table still holds only the one entry added above.
    assert.deepEqual(d.decode(hex('be')), fields(['custom-key', 'custom-header']))
    assert.throws(() => d.decode(hex('bf')), HpackError)
  })

  it('uses static-table entries: [:method GET] is one byte', () => {
    assert.deepEqual(encodeWithoutIndexing(fields([':method', 'GET'])), hex('82'))
    assert.deepEqual(encodeWithoutIndexing(fields([':authority', 'a:1'])), hex('01 03 61 3a 31'))
  })
})
