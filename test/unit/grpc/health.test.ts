// grpc.health.v1.Health: Check and Watch on the wire against etcdlite and the real etcd (same answers:
// "" SERVING, any other name NOT_FOUND "unknown service" / SERVICE_UNKNOWN), then what only etcdlite can
// show here: NOT_SERVING once the server shuts down, and open Watch calls not holding the shutdown up.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import * as grpc from '@grpc/grpc-js'
import { openEtcd, type Etcd } from '../../../src/embed/etcd.js'
import { loadEtcdProto } from '../../../src/grpc/proto.js'
import { GrpcServer } from '../../../src/grpc/server.js'
import { HealthService } from '../../../src/grpc/health.js'
import { unary } from '../../helpers/grpc-client.js'
import { haveEtcd, startReferenceEtcd, type ServerProcess } from '../../helpers/processes.js'
import { until } from '../../helpers/until.js'

interface HealthClient {
  readonly client: grpc.Client
  check(service: string): Promise<Record<string, unknown>>
  /** Open a Watch: the statuses received so far, and how the call ended (once it has). */
  watch(service: string): { readonly statuses: string[]; readonly ended: Promise<grpc.StatusObject>; cancel(): void }
}

function healthClient(endpoint: string): HealthClient {
  const client = new (loadEtcdProto().grpc.health.v1.Health)(endpoint, grpc.credentials.createInsecure())
  const check = unary(client, 'Check')
  const watchFn = (client as unknown as Record<string, (req: object) => grpc.ClientReadableStream<{ status: string }>>)['Watch']
  if (watchFn === undefined) throw new Error('no Watch method')
  return {
    client,
    check: (service) => check({ service }),
    watch(service) {
      const call = watchFn.call(client, { service })
      const statuses: string[] = []
      call.on('data', (r: { status: string }) => statuses.push(r.status))
      call.on('error', () => undefined)
      const ended = new Promise<grpc.StatusObject>((resolve) => call.on('status', resolve))
      return { statuses, ended, cancel: () => call.cancel() }
    },
  }
}

interface Target {
  readonly name: string
  readonly endpoint: () => string
}

const checkCases = [
  { name: 'the server as a whole ("") is SERVING', service: '', want: { status: 'SERVING' } },
  { name: 'an etcd service name is not registered', service: 'etcdserverpb.KV', want: { code: grpc.status.NOT_FOUND, details: 'unknown service' } },
  { name: 'the health service itself is not registered', service: 'grpc.health.v1.Health', want: { code: grpc.status.NOT_FOUND, details: 'unknown service' } },
] as const

const watchCases = [
  { name: 'Watch("") streams SERVING first', service: '', want: 'SERVING' },
  { name: 'Watch of an unknown name streams SERVICE_UNKNOWN (it does not fail)', service: 'nope.Nope', want: 'SERVICE_UNKNOWN' },
] as const

let etcd: Etcd
let etcdlite = ''
let reference: ServerProcess | undefined

before(async () => {
  etcd = await openEtcd({ memory: true })
  etcdlite = (await etcd.listen({ port: 0 })).endpoint
  if (haveEtcd()) reference = await startReferenceEtcd()
})
after(async () => {
  await etcd.close()
  await reference?.dispose()
})

const targets: Target[] = [
  { name: 'etcdlite', endpoint: () => etcdlite },
  ...(haveEtcd() ? [{ name: 'etcd', endpoint: () => reference?.endpoint ?? '' }] : []),
]

for (const t of targets) {
  describe(`grpc.health.v1.Health on ${t.name}`, () => {
    for (const c of checkCases) {
      it(`Check: ${c.name}`, async () => {
        const h = healthClient(t.endpoint())
        try {
          const want = c.want
          if ('status' in want) {
            assert.deepEqual(await h.check(c.service), want)
          } else {
            await assert.rejects(h.check(c.service), (err: grpc.ServiceError) => {
              assert.deepEqual({ code: err.code, details: err.details }, want)
              return true
            })
          }
        } finally {
          h.client.close()
        }
      })
    }
    for (const c of watchCases) {
      it(c.name, async () => {
        const h = healthClient(t.endpoint())
        const w = h.watch(c.service)
        try {
          await until(() => w.statuses.length > 0, 'the first status')
          assert.deepEqual(w.statuses, [c.want])
        } finally {
          w.cancel()
          await w.ended
          h.client.close()
        }
      })
    }
  })
}

describe('health on shutdown (etcdlite)', () => {
  it('open Watch calls hear NOT_SERVING, end with OK, and do not hold a graceful shutdown for its grace period', async () => {
    const e = await openEtcd({ memory: true })
    const g = new GrpcServer(e.server, { maxRequestBytes: 1 << 20, report: (err) => assert.fail(String(err)) })
    const { port } = await g.bind('127.0.0.1', 0)
    const h = healthClient(`127.0.0.1:${port}`)
    const watches = [h.watch(''), h.watch('nope.Nope')]
    try {
      await until(() => watches.every((w) => w.statuses.length === 1), 'both first statuses')
      // A grace period this test could never sit out: shutdown must not wait for the Watch calls.
      await g.shutdown(10 * 60 * 1000)
      const ends = await Promise.all(watches.map((w) => w.ended))
      assert.deepEqual(watches.map((w) => w.statuses), [['SERVING', 'NOT_SERVING'], ['SERVICE_UNKNOWN']])
      assert.deepEqual(ends.map((s) => s.code), [grpc.status.OK, grpc.status.OK])
    } finally {
      h.client.close()
      await g.shutdown()
      await e.close()
    }
  })

  const serviceCases = [
    { name: 'before shutdown', shutdown: false, down: false, want: ['SERVING', undefined] },
    { name: 'after shutdown (setServingStatus is then ignored)', shutdown: true, down: false, want: ['NOT_SERVING', undefined] },
    { name: 'while the EtcdServer is closed', shutdown: false, down: true, want: ['NOT_SERVING', undefined] },
  ] as const
  for (const c of serviceCases) {
    it(`HealthService.statusOf: "" and an unregistered name ${c.name}`, () => {
      const hs = new HealthService(() => c.down)
      if (c.shutdown) hs.shutdown()
      hs.setServingStatus('x', 'SERVING')
      assert.deepEqual([hs.statusOf(''), hs.statusOf('y')], c.want)
      assert.equal(hs.statusOf('x'), c.shutdown ? undefined : c.down ? 'NOT_SERVING' : 'SERVING')
    })
  }
})
