// Two details of the Watch stream, on the etcdlite CLI and on the real etcd (when on PATH), which must
// answer alike; each scenario also pins what etcd 3.4.23 answers, so etcdlite is checked without etcd too.
// - Half-close: a client that ends its sending side keeps its stream. etcd's recvLoop returns on EOF
//   without ending the call, and the watchers go on sending (grpc-gateway's watch half-closes once its
//   create is sent).
// - Watch IDs: a client may choose any int64 as watch_id (negative ones and -1 included) and gets it back
//   exactly, beyond 2^53 too; a duplicate is refused; cancel finds the watcher by the exact ID.
// The client reads int64 fields as decimal strings (proto-loader `longs: String`), so nothing is rounded.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import * as grpc from '@grpc/grpc-js'
import { loadEtcdProto } from '../../src/grpc/proto.js'
import { haveEtcd, startEtcdliteProcess, startReferenceEtcd, type ServerProcess } from '../helpers/processes.js'

interface PbWatchResponse {
  watch_id: string
  created: boolean
  canceled: boolean
  cancel_reason: string
  events: Array<{ kv: { value: Buffer } }>
}
type WatchCall = grpc.ClientDuplexStream<object, PbWatchResponse>
interface Clients {
  readonly watch: grpc.Client & { Watch(): WatchCall }
  readonly kv: grpc.Client & { Put(req: object, cb: (err: grpc.ServiceError | null) => void): void }
}

const TIMEOUT_MS = 10_000

function clients(endpoint: string): Clients {
  const proto = loadEtcdProto()
  return {
    watch: new proto.etcdserverpb.Watch(endpoint, grpc.credentials.createInsecure()) as unknown as Clients['watch'],
    kv: new proto.etcdserverpb.KV(endpoint, grpc.credentials.createInsecure()),
  }
}

const put = (c: Clients, key: string, value: string): Promise<void> =>
  new Promise((resolve, reject) => c.kv.Put({ key: Buffer.from(key), value: Buffer.from(value) }, (err) => (err === null ? resolve() : reject(err))))

/** A Watch call whose responses (and end) are collected as one-line summaries. */
class Transcript {
  readonly lines: string[] = []
  ended: string | undefined
  private waiter: (() => void) | undefined

  constructor(readonly call: WatchCall) {
    call.on('data', (r: PbWatchResponse) => {
      const kind = r.created ? (r.canceled ? `refused ${r.cancel_reason}` : 'created') : r.canceled ? 'canceled' : `events ${r.events.map((e) => e.kv.value.toString()).join(',')}`
      this.lines.push(`${r.watch_id} ${kind}`)
      this.waiter?.()
    })
    call.on('error', (e: grpc.ServiceError) => this.end(`error ${e.code} ${e.details}`))
    call.on('end', () => this.end('end'))
    call.on('status', (s: grpc.StatusObject) => this.end(`status ${s.code} ${s.details}`))
  }

  private end(how: string): void {
    this.ended ??= how
    this.waiter?.()
  }

  /** Resolves once `n` responses arrived (or the call ended: then the caller's assertion shows what came). */
  async count(n: number): Promise<void> {
    const t0 = Date.now()
    while (this.lines.length < n && this.ended === undefined && Date.now() - t0 < TIMEOUT_MS) {
      await new Promise<void>((resolve) => {
        this.waiter = resolve
        setTimeout(resolve, 100)
      })
    }
    this.waiter = undefined
  }
}

/** Create one watcher on `half/k`, half-close, then write twice: both events must come, the call stay open. */
async function halfClose(c: Clients): Promise<{ lines: string[]; ended: string | undefined }> {
  const t = new Transcript(c.watch.Watch())
  t.call.write({ create_request: { key: Buffer.from('half/k') } })
  await t.count(1)
  t.call.end()
  await put(c, 'half/k', 'v1')
  await t.count(2)
  await put(c, 'half/k', 'v2')
  await t.count(3)
  const ended = t.ended
  t.call.cancel()
  return { lines: t.lines, ended }
}

const BIG_IDS = ['9007199254740993', '9223372036854775807', '-5', '-1', '-9223372036854775808', '9007199254740992']

/** Create watchers with the IDs above on `ids/k`, a duplicate, two cancels by exact ID, then a write. */
async function watchIds(c: Clients): Promise<string[]> {
  const t = new Transcript(c.watch.Watch())
  for (const id of BIG_IDS) t.call.write({ create_request: { key: Buffer.from('ids/k'), watch_id: id } })
  await t.count(BIG_IDS.length)
  t.call.write({ create_request: { key: Buffer.from('ids/k'), watch_id: '9007199254740993' } })
  t.call.write({ cancel_request: { watch_id: '9007199254740993' } })
  t.call.write({ cancel_request: { watch_id: '-5' } })
  await t.count(BIG_IDS.length + 3)
  await put(c, 'ids/k', 'v')
  await t.count(BIG_IDS.length + 3 + BIG_IDS.length - 2)
  t.call.cancel()
  // The events of one revision reach the watchers in no fixed order (etcd's map order): sorted.
  const head = t.lines.slice(0, BIG_IDS.length + 3)
  return [...head, ...t.lines.slice(BIG_IDS.length + 3).sort()]
}

const EXPECTED_HALF_CLOSE = { lines: ['0 created', '0 events v1', '0 events v2'], ended: undefined }
const EXPECTED_IDS = [
  ...BIG_IDS.map((id) => `${id} created`),
  '-1 refused mvcc: duplicate watch ID provided on the WatchStream',
  '9007199254740993 canceled',
  '-5 canceled',
  ...['9223372036854775807', '-1', '-9223372036854775808', '9007199254740992'].map((id) => `${id} events v`).sort(),
]

for (const target of ['etcdlite', 'etcd'] as const) {
  const skip = target === 'etcd' && !haveEtcd() ? 'the reference `etcd` binary is not on PATH' : false
  describe(`Watch stream details (${target})`, { skip }, () => {
    let server: ServerProcess
    let c: Clients
    before(async () => {
      server = target === 'etcd' ? await startReferenceEtcd() : await startEtcdliteProcess({ memory: true })
      c = clients(server.endpoint)
    })
    after(async () => {
      c.watch.close()
      c.kv.close()
      await server.dispose()
    })

    it('a half-closed stream stays open and its watcher goes on sending events', async () => {
      assert.deepEqual(await halfClose(c), EXPECTED_HALF_CLOSE)
    })

    it('client-chosen watch IDs come back exactly, beyond 2^53 and negative ones too', async () => {
      assert.deepEqual(await watchIds(c), EXPECTED_IDS)
    })
  })
}
