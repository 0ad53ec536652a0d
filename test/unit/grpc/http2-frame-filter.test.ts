// Http2FrameFilter: the client's frames on their way to nghttp2. Bytes pass unchanged however they are
// split, unless the connection's first header block carries a URL as :authority (then every header block
// is re-encoded with host:port) or an RST_STREAM is taken over; anything malformed passes as it came.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { encodeWithoutIndexing, HpackDecoder, type HeaderField } from '../../../src/grpc/hpack.js'
import {
  authorityOfUrl, CONNECTION_PREFACE, FRAME_HEADER_BYTES, frameHeader, FrameFlag, FrameType, Http2FrameFilter, MAX_FRAME_BYTES, type ResetHandler,
} from '../../../src/grpc/http2-frame-filter.js'

const SETTINGS = frameHeader(0, FrameType.SETTINGS, 0, 0)

function frame(type: number, flags: number, streamId: number, payload: Buffer): Buffer {
  return Buffer.concat([frameHeader(payload.length, type, flags, streamId), payload])
}
function rst(streamId: number, code = 8): Buffer {
  const p = Buffer.alloc(4)
  p.writeUInt32BE(code)
  return frame(FrameType.RST_STREAM, 0, streamId, p)
}
const data = (streamId: number, payload: Buffer): Buffer => frame(FrameType.DATA, 0, streamId, payload)

/** A literal-with-incremental-indexing :authority (name index 1), as Go's HPACK encoder sends it first. */
function indexedAuthority(value: string): Buffer {
  return Buffer.concat([Buffer.from([0x41, value.length]), Buffer.from(value, 'latin1')])
}
/** :method POST, :scheme http, :path /  (static entries 3, 6, 4). */
const REQUEST_START = Buffer.from([0x83, 0x86, 0x84])

/** Run chunks through a fresh filter; returns the output joined and the resets offered. */
function run(chunks: readonly Buffer[], onReset: ResetHandler = () => false): { out: Buffer; resets: [number, number][] } {
  const resets: [number, number][] = []
  const f = new Http2FrameFilter((id, code) => {
    resets.push([id, code])
    return onReset(id, code)
  })
  const out = chunks.flatMap((c) => f.push(c))
  return { out: Buffer.concat(out), resets }
}

/** Split into 1-byte chunks. */
const bytewise = (b: Buffer): Buffer[] => Array.from(b, (x) => Buffer.from([x]))

/** Parse frames (after the preface). */
function frames(b: Buffer): { type: number; flags: number; streamId: number; payload: Buffer }[] {
  assert.deepEqual(b.subarray(0, CONNECTION_PREFACE.length), CONNECTION_PREFACE)
  const out = []
  for (let pos = CONNECTION_PREFACE.length; pos < b.length;) {
    const len = b.readUIntBE(pos, 3)
    out.push({ type: b[pos + 3] as number, flags: b[pos + 4] as number, streamId: b.readUInt32BE(pos + 5), payload: b.subarray(pos + 9, pos + 9 + len) })
    pos += FRAME_HEADER_BYTES + len
  }
  return out
}

/** Decode the header blocks in `b`'s frames with one decoder, as nghttp2 would. */
function headerLists(b: Buffer): HeaderField[][] {
  const d = new HpackDecoder()
  const lists: HeaderField[][] = []
  let block: Buffer[] = []
  for (const f of frames(b)) {
    if (f.type !== FrameType.HEADERS && f.type !== FrameType.CONTINUATION) continue
    let p = f.payload
    if (f.type === FrameType.HEADERS && (f.flags & FrameFlag.PRIORITY) !== 0) p = p.subarray(5)
    block.push(p)
    if ((f.flags & FrameFlag.END_HEADERS) !== 0) {
      lists.push(d.decode(Buffer.concat(block)))
      block = []
    }
  }
  return lists
}

describe('Http2FrameFilter', () => {
  it('authorityOfUrl: a URL gives its host:port, anything else stays', () => {
    assert.equal(authorityOfUrl('http://127.0.0.1:2379'), '127.0.0.1:2379')
    assert.equal(authorityOfUrl('https://[::1]:2379/'), '[::1]:2379')
    assert.equal(authorityOfUrl('unix://localhost:1234/x?y'), 'localhost:1234')
    assert.equal(authorityOfUrl('127.0.0.1:2379'), undefined)
    assert.equal(authorityOfUrl('localhost'), undefined)
  })

  it('a connection whose first :authority is host:port passes byte for byte, however split', () => {
    const wire = Buffer.concat([
      CONNECTION_PREFACE, SETTINGS,
      frame(FrameType.HEADERS, FrameFlag.END_HEADERS, 1, Buffer.concat([REQUEST_START, indexedAuthority('127.0.0.1:2379')])),
      data(1, Buffer.alloc(40000, 7)),
      // Later blocks are not decoded: even a URL one passes.
      frame(FrameType.HEADERS, FrameFlag.END_HEADERS | FrameFlag.END_STREAM, 3, Buffer.concat([REQUEST_START, Buffer.from([0x01, 4]), Buffer.from('a://')])),
    ])
    assert.deepEqual(run([wire]).out, wire)
    assert.deepEqual(run(bytewise(wire)).out, wire)
  })

  it('DATA passes as it arrives, before its frame is complete', () => {
    const f = new Http2FrameFilter(() => false)
    const head = Buffer.concat([CONNECTION_PREFACE, frameHeader(1000, FrameType.DATA, 0, 1), Buffer.alloc(10)])
    assert.deepEqual(Buffer.concat(f.push(head)), head)
  })

  it('a URL :authority becomes host:port in every header block, dynamic-table references included', () => {
    const wire = Buffer.concat([
      CONNECTION_PREFACE, SETTINGS,
      frame(FrameType.HEADERS, FrameFlag.END_HEADERS, 1, Buffer.concat([REQUEST_START, indexedAuthority('http://127.0.0.1:2379')])),
      data(1, Buffer.from('abc')),
      // Index 62: the :authority the first block added to the dynamic table. Padded, with priority, and
      // split into HEADERS and CONTINUATION.
      frame(FrameType.HEADERS, FrameFlag.PADDED | FrameFlag.PRIORITY | FrameFlag.END_STREAM, 3, Buffer.concat([Buffer.from([2]), Buffer.from([0, 0, 0, 1, 15]), REQUEST_START.subarray(0, 2), Buffer.alloc(2)])),
      frame(FrameType.CONTINUATION, FrameFlag.END_HEADERS, 3, Buffer.from([REQUEST_START[2] as number, 0xbe])),
    ])
    for (const chunks of [[wire], bytewise(wire)]) {
      const { out } = run(chunks)
      const fs = frames(out)
      assert.deepEqual(fs.map((f) => [f.type, f.streamId]), [[FrameType.SETTINGS, 0], [FrameType.HEADERS, 1], [FrameType.DATA, 1], [FrameType.HEADERS, 3]])
      const want = [{ name: ':method', value: 'POST' }, { name: ':scheme', value: 'http' }, { name: ':path', value: '/' }, { name: ':authority', value: '127.0.0.1:2379' }]
      assert.deepEqual(headerLists(out), [want, want])
      const h3 = fs[3]
      assert.equal(h3?.flags, FrameFlag.PRIORITY | FrameFlag.END_STREAM | FrameFlag.END_HEADERS)
      assert.deepEqual(h3?.payload.subarray(0, 5), Buffer.from([0, 0, 0, 1, 15]))
      assert.deepEqual(fs[2]?.payload, Buffer.from('abc'))
    }
  })

  it('a re-encoded block larger than a frame is cut into HEADERS and CONTINUATIONs', () => {
    const big = 'v'.repeat(MAX_FRAME_BYTES + 100)
    const block = Buffer.concat([REQUEST_START, indexedAuthority('http://h:1'), encodeWithoutIndexing([{ name: 'x-big', value: big }])])
    const wire = Buffer.concat([
      CONNECTION_PREFACE,
      frame(FrameType.HEADERS, 0, 1, block.subarray(0, 10000)),
      frame(FrameType.CONTINUATION, 0, 1, block.subarray(10000, 20000)),
      frame(FrameType.CONTINUATION, FrameFlag.END_HEADERS, 1, block.subarray(20000)),
    ])
    const { out } = run([wire])
    const fs = frames(out)
    assert.deepEqual(fs.map((f) => f.type), [FrameType.HEADERS, FrameType.CONTINUATION])
    assert.ok(fs.every((f) => f.payload.length <= MAX_FRAME_BYTES))
    assert.deepEqual(headerLists(out)[0]?.find((f) => f.name === ':authority')?.value, 'h:1')
    assert.deepEqual(headerLists(out)[0]?.find((f) => f.name === 'x-big')?.value, big)
  })

  it('RST_STREAM is offered to the handler: dropped when taken over, passed when not', () => {
    const wire = Buffer.concat([CONNECTION_PREFACE, rst(1, 8), rst(3, 0), rst(5, 2)])
    const { out, resets } = run(bytewise(wire), (id) => id !== 3)
    assert.deepEqual(resets, [[1, 8], [3, 0], [5, 2]])
    assert.deepEqual(out, Buffer.concat([CONNECTION_PREFACE, rst(3, 0)]))
  })

  it('malformed RST_STREAM (stream 0, wrong length) and one inside a header block go to nghttp2 unoffered', () => {
    const bad = frame(FrameType.RST_STREAM, 0, 1, Buffer.alloc(5))
    const inBlock = Buffer.concat([frame(FrameType.HEADERS, 0, 1, Buffer.concat([REQUEST_START, indexedAuthority('h:1')])), rst(1)])
    const wire = Buffer.concat([CONNECTION_PREFACE, rst(0), bad, inBlock])
    const { out, resets } = run([wire], () => true)
    assert.deepEqual(resets, [])
    assert.deepEqual(out, wire)
  })

  it('an undecodable first header block, a frame inside a block, or an oversized frame: the rest passes untouched', () => {
    const cases = [
      Buffer.concat([frame(FrameType.HEADERS, FrameFlag.END_HEADERS, 1, Buffer.from([0xbe])), rst(1)]),
      Buffer.concat([frame(FrameType.HEADERS, 0, 1, Buffer.concat([REQUEST_START, indexedAuthority('http://h:1')])), data(1, Buffer.from('x')), rst(1)]),
      Buffer.concat([frame(FrameType.HEADERS, FrameFlag.END_HEADERS, 1, Buffer.alloc(MAX_FRAME_BYTES + 1)), rst(1)]),
      Buffer.concat([frame(FrameType.CONTINUATION, FrameFlag.END_HEADERS, 1, REQUEST_START), rst(1)]),
    ]
    for (const c of cases) {
      const wire = Buffer.concat([CONNECTION_PREFACE, c])
      const { out, resets } = run(bytewise(wire), () => true)
      assert.deepEqual(resets, [])
      assert.deepEqual(out, wire)
    }
  })
})

describe('Http2FrameFilter output', () => {
  it('what passes unchanged leaves as one buffer per read', () => {
    const f = new Http2FrameFilter(() => true)
    const first = Buffer.concat([CONNECTION_PREFACE, SETTINGS, frame(FrameType.HEADERS, FrameFlag.END_HEADERS, 1, Buffer.concat([REQUEST_START, indexedAuthority('h:1')]))])
    assert.equal(f.push(first).length, 1)
    const read = Buffer.concat([data(1, Buffer.from('abc')), frame(FrameType.HEADERS, FrameFlag.END_HEADERS, 3, REQUEST_START), data(3, Buffer.from('de'))])
    const out = f.push(read)
    assert.equal(out.length, 1)
    assert.deepEqual(out[0], read)
    // A reset taken over splits the read around it.
    assert.deepEqual(f.push(Buffer.concat([data(1, Buffer.from('x')), rst(1), data(3, Buffer.from('y'))])), [data(1, Buffer.from('x')), data(3, Buffer.from('y'))])
  })
})
