// StreamWriter (batches in flight one at a time, sealed before they go) against a fake output, then both
// outputs against a real grpc-js server: the framed path must be the one grpc-js's call allows (a grpc-js
// upgrade that changes the call's shape shows up here), and both must deliver the same messages in order.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import * as grpc from '@grpc/grpc-js'
import { batchOutOf, SendError, StreamWriter, WRITE_BYTES, type BatchOut, type WriteMode } from '../../../src/grpc/stream-writer.js'
import { until } from '../../helpers/until.js'

/** A fake output: records batches, taking at most `take` items each; each completes when the test says so. */
class FakeOut implements BatchOut<number> {
  readonly framed = true
  readonly batches: number[][] = []
  readonly dones: ((err: Error | undefined) => void)[] = []
  constructor(private readonly take = Number.POSITIVE_INFINITY) {}
  writeBatch(items: readonly number[], done: (err: Error | undefined) => void): number {
    const taken = items.slice(0, this.take)
    this.batches.push(taken)
    this.dones.push(done)
    return taken.length
  }
  complete(i: number, err?: Error): void {
    const d = this.dones[i]
    if (d === undefined) throw new Error(`no batch ${i}`)
    d(err)
  }
}

const tick = (): Promise<void> => new Promise((r) => process.nextTick(r))

function fixture(take?: number): { out: FakeOut; w: StreamWriter<number>; sent: (Error | undefined)[]; seals: number[] } {
  const out = new FakeOut(take)
  const sent: (Error | undefined)[] = []
  const seals: number[] = []
  const w: StreamWriter<number> = new StreamWriter(out, (err) => sent.push(err), () => seals.push(w.unsent))
  return { out, w, sent, seals }
}

describe('StreamWriter', () => {
  it('what is pushed in one tick goes out as one batch, on the next tick', async () => {
    const { out, w, seals } = fixture()
    w.push(1)
    w.push(2)
    w.push(3)
    assert.equal(out.batches.length, 0)
    assert.equal(w.unsent, 3)
    await tick()
    assert.deepEqual(out.batches, [[1, 2, 3]])
    assert.deepEqual(seals, [3], 'sealed once, before the batch was taken')
    assert.equal(w.unsent, 0)
    assert.equal(w.writing, true)
  })

  it('while a batch is in flight, pushes wait and go out together when it completes', async () => {
    const { out, w, sent } = fixture()
    w.push(1)
    await tick()
    w.push(2)
    w.push(3)
    await tick()
    assert.deepEqual(out.batches, [[1]], 'nothing more while the first is in flight')
    assert.equal(w.unsent, 2)
    out.complete(0)
    assert.deepEqual(out.batches, [[1], [2, 3]], 'the completion sends the next batch at once')
    assert.deepEqual(sent, [undefined])
    out.complete(1)
    assert.equal(w.writing, false)
    w.push(4)
    await tick()
    assert.deepEqual(out.batches, [[1], [2, 3], [4]])
  })

  it('flushNow writes what is queued even with a batch in flight; completions in any order', async () => {
    const { out, w } = fixture()
    w.push(1)
    await tick()
    w.push(2)
    w.flushNow()
    assert.deepEqual(out.batches, [[1], [2]])
    out.complete(0)
    assert.equal(w.writing, true, 'the second batch is still in flight')
    w.push(3)
    await tick()
    assert.deepEqual(out.batches.length, 2, 'waits for the batch in flight')
    out.complete(1)
    assert.deepEqual(out.batches, [[1], [2], [3]])
  })

  it('what a batch does not take waits, ahead of later pushes, and goes out when the batch completes', async () => {
    const { out, w, seals } = fixture(2)
    for (const i of [1, 2, 3, 4, 5]) w.push(i)
    await tick()
    assert.deepEqual(out.batches, [[1, 2]])
    assert.equal(w.unsent, 3, 'the rest is still queued, and counts toward full')
    w.push(6)
    out.complete(0)
    assert.deepEqual(out.batches, [[1, 2], [3, 4]])
    out.complete(1)
    out.complete(2)
    assert.deepEqual(out.batches, [[1, 2], [3, 4], [5, 6]])
    assert.deepEqual(seals, [5, 4, 2], 'each batch is sealed before it is taken')
    assert.equal(w.unsent, 0)
  })

  it('flushNow hands over everything queued, in as many batches as it takes', () => {
    const { out, w } = fixture(2)
    for (const i of [1, 2, 3, 4, 5]) w.push(i)
    w.flushNow()
    assert.deepEqual(out.batches, [[1, 2], [3, 4], [5]])
    assert.equal(w.unsent, 0)
  })

  it('a failed batch closes the writer: what is queued is dropped and later pushes are ignored', async () => {
    const { out, w, sent } = fixture()
    w.push(1)
    await tick()
    w.push(2)
    const boom = new Error('boom')
    out.complete(0, boom)
    assert.deepEqual(sent, [boom])
    assert.equal(w.unsent, 0)
    w.push(3)
    w.flushNow()
    await tick()
    assert.deepEqual(out.batches, [[1]])
  })

  it('close drops what is queued', async () => {
    const { out, w } = fixture()
    w.push(1)
    w.close()
    await tick()
    assert.deepEqual(out.batches, [])
  })
})

// A bidi method whose messages are UTF-8 strings: each request "n" makes the handler push n responses
// "r<k>" through a StreamWriter over batchOutOf(call, mode); "wide n" pushes n responses "r<k>:" padded to
// 10 KiB (more than one write's worth: WRITE_BYTES); "huge" pushes one larger than a write; "big" pushes
// one too large to send.
const METHOD: grpc.MethodDefinition<string, string> = {
  path: '/test.Writer/Chat',
  requestStream: true,
  responseStream: true,
  requestSerialize: (s: string) => Buffer.from(s),
  requestDeserialize: (b: Buffer) => b.toString(),
  responseSerialize: (s: string) => Buffer.from(s),
  responseDeserialize: (b: Buffer) => b.toString(),
}
const MAX_SEND = 2 * WRITE_BYTES
const pad = (s: string, n: number): string => s + ':'.repeat(n - s.length)

describe('batchOutOf on a grpc-js server', () => {
  let server: grpc.Server
  let endpoint = ''
  const framedSeen: boolean[] = []
  const errors: Error[] = []
  let client: grpc.Client

  before(async () => {
    server = new grpc.Server({ 'grpc.max_send_message_length': MAX_SEND })
    server.addService({ Chat: METHOD }, {
      Chat: (call: grpc.ServerDuplexStream<string, string>) => {
        const mode = call.metadata.get('mode')[0] as WriteMode
        const out = batchOutOf(call, mode)
        framedSeen.push(out.framed)
        let k = 0
        const w = new StreamWriter<string>(out, (err) => {
          if (err !== undefined) {
            errors.push(err)
            if (err instanceof SendError) call.emit('error', { code: err.code, details: err.message })
          }
        }, () => undefined)
        call.on('data', (req: string) => {
          const [what = '', n = '0'] = req.split(' ')
          if (what === 'big') w.push('x'.repeat(MAX_SEND + 1))
          else if (what === 'huge') w.push(pad(`r${k++}`, WRITE_BYTES + 10))
          else if (what === 'wide') for (let i = 0; i < Number(n); i++) w.push(pad(`r${k++}`, 10 * 1024))
          else for (let i = 0; i < Number(what); i++) w.push(`r${k++}`)
        })
        call.on('end', () => {
          w.flushNow()
          call.end()
        })
      },
    })
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err === null ? resolve(p) : reject(err))))
    endpoint = `127.0.0.1:${port}`
    client = new grpc.Client(endpoint, grpc.credentials.createInsecure())
  })
  after(() => {
    client.close()
    server.forceShutdown()
  })

  const chat = (mode: WriteMode, requests: readonly string[]): Promise<{ got: string[]; status: grpc.StatusObject }> => {
    const md = new grpc.Metadata()
    md.set('mode', mode)
    const call = client.makeBidiStreamRequest(METHOD.path, METHOD.requestSerialize, METHOD.responseDeserialize, md)
    const got: string[] = []
    call.on('data', (s: string) => got.push(s))
    call.on('error', () => undefined)
    const status = new Promise<grpc.StatusObject>((resolve) => call.on('status', resolve))
    for (const r of requests) call.write(r)
    call.end()
    return status.then((st) => ({ got, status: st }))
  }

  for (const mode of ['framed', 'per-message'] as const) {
    it(`${mode}: every message, in order, then OK`, async () => {
      const before = framedSeen.length
      const { got, status } = await chat(mode, ['3', '0', '200', '1'])
      assert.equal(framedSeen[before], mode === 'framed', 'grpc-js\'s call has the shape the framed path needs')
      assert.equal(status.code, grpc.status.OK)
      assert.deepEqual(got, Array.from({ length: 204 }, (_, i) => `r${i}`))
    })
  }

  for (const mode of ['framed', 'per-message'] as const) {
    it(`${mode}: batches over one write's worth, and a message larger than a write, in order`, async () => {
      const { got, status } = await chat(mode, ['wide 30', '2', 'huge', 'wide 13', '1'])
      assert.equal(status.code, grpc.status.OK)
      const sizes = [...Array<number>(30).fill(10 * 1024), 2, 2, WRITE_BYTES + 10, ...Array<number>(13).fill(10 * 1024), 1]
      assert.deepEqual(got.map((m) => m.split(':')[0]), sizes.map((_, i) => `r${i}`))
      assert.deepEqual(got.map((m) => m.length), sizes.map((n, i) => (n < 10 ? `r${i}`.length : n)))
    })
  }

  it("framed: a message over the max send size fails the call with grpc-js's status and text, after what came before it", async () => {
    const { got, status } = await chat('framed', ['2', 'big'])
    await until(() => errors.length > 0, 'the send error')
    assert.ok(errors[0] instanceof SendError)
    assert.equal(status.code, grpc.status.RESOURCE_EXHAUSTED)
    assert.equal(status.details, `Sent message larger than max (${MAX_SEND + 1 + 5} vs. ${MAX_SEND})`)
    assert.deepEqual(got, ['r0', 'r1'], 'what came before it was sent')
  })
})
