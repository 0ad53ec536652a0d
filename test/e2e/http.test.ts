// HTTP beside gRPC, as etcd serves it: /health, /version and /metrics on the client port (the same port as
// gRPC), against etcdlite and the real etcd (both with --metrics extensive, so they show the handling-time
// histogram): status codes, content types, bodies, and the metrics both expose after
// the same calls. Then etcdlite alone: HTTP/1.1 and gRPC at once on one port, first bytes split across
// reads, the --listen-metrics-urls listener (embedded and CLI), and a shutdown that leaves nothing open.
// Last, etcd 3.5.11+'s /livez and /readyz (etcdlite alone: etcd 3.4.23 has neither): exact bodies and status
// codes for ok, ?verbose, ?exclude=, the per-check sub-paths, a CORRUPT alarm, unknown names, a stopped server.
//
// The client port is served by GrpcServer with embed/http.ts's handler, which is what Etcd.listen() wires.
// etcdlite answers /health as etcd 3.5 does ({"health":"true","reason":""}); etcd 3.4.23 leaves out "reason".
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { request, Agent } from 'node:http'
import { connect, type Socket } from 'node:net'
import * as grpc from '@grpc/grpc-js'
import { openEtcd, type Etcd } from '../../src/embed/etcd.js'
import { checkHealth } from '../../src/embed/health.js'
import { httpHandler } from '../../src/embed/http.js'
import { HttpListener } from '../../src/embed/http-listener.js'
import { GrpcServer } from '../../src/grpc/server.js'
import { loadEtcdProto } from '../../src/grpc/proto.js'
import { rawClient, unary } from '../helpers/grpc-client.js'
import { ETCDLITE_BIN, etcdServing, haveEtcd, startReferenceEtcd, type ServerProcess } from '../helpers/processes.js'
import { haveProcNet, listeningPorts } from '../helpers/proc-sockets.js'
import { rawWatchStream } from '../helpers/watch-stream.js'
import { until } from '../helpers/until.js'

interface HttpResult {
  readonly status: number
  readonly headers: Readonly<Record<string, string | string[] | undefined>>
  readonly body: string
}

/** One HTTP/1.1 request (a fresh connection unless an agent is given). */
function http(endpoint: string, path: string, method = 'GET', agent?: Agent): Promise<HttpResult> {
  const [host, port] = [endpoint.slice(0, endpoint.lastIndexOf(':')), Number(endpoint.slice(endpoint.lastIndexOf(':') + 1))]
  return new Promise((resolve, reject) => {
    const req = request({ host, port, path, method, agent: agent ?? false }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (d: string) => (body += d))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

/** Prometheus text → value by series (`name{labels}` exactly as printed; Go and etcdlite both sort labels). */
function parseMetrics(text: string): Map<string, number> {
  const out = new Map<string, number>()
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const i = line.lastIndexOf(' ')
    out.set(line.slice(0, i), Number(line.slice(i + 1)))
  }
  return out
}

interface Target {
  readonly name: string
  readonly endpoint: string
  close(): Promise<void>
}

async function etcdliteTarget(etcdVersion?: string): Promise<Target & { readonly etcd: Etcd; readonly grpc: GrpcServer }> {
  const etcd = await openEtcd({ memory: true, metrics: 'extensive', ...(etcdVersion === undefined ? {} : { etcdVersion }) })
  const g = new GrpcServer(etcd.server, { maxRequestBytes: 1 << 20, report: (err) => assert.fail(String(err)), http: httpHandler(etcd.server, 'client') })
  const { port } = await g.bind('127.0.0.1', 0)
  return {
    name: 'etcdlite', etcd, grpc: g, endpoint: `127.0.0.1:${port}`,
    close: async () => {
      await g.shutdown()
      await etcd.close()
    },
  }
}

async function referenceTarget(): Promise<Target> {
  const p: ServerProcess = await startReferenceEtcd(['--metrics', 'extensive'])
  return { name: 'etcd', endpoint: p.endpoint, close: () => p.dispose() }
}

const TEXT = 'text/plain; charset=utf-8'

/** Requests answered alike by both servers (the /health body is compared on its "health" field). */
const requestCases = [
  { name: 'GET /health is healthy', method: 'GET', path: '/health', status: 200, type: TEXT, health: 'true' },
  { name: 'GET /health?serializable=true is healthy', method: 'GET', path: '/health?serializable=true', status: 200, type: TEXT, health: 'true' },
  { name: 'POST /health is not allowed', method: 'POST', path: '/health', status: 405, type: TEXT, body: 'Method Not Allowed\n', allow: 'GET' },
  { name: 'PUT /version is not allowed', method: 'PUT', path: '/version', status: 405, type: TEXT, body: 'Method Not Allowed\n', allow: 'GET' },
  { name: 'GET /metrics is Prometheus text', method: 'GET', path: '/metrics', status: 200, type: 'text/plain; version=0.0.4; charset=utf-8' },
  { name: 'an unknown path is 404', method: 'GET', path: '/nope', status: 404, type: TEXT, body: '404 page not found\n' },
] as const

/** Series both servers must show after: Put k, Range k, one Watch stream with one watcher. */
const PUT = 'grpc_method="Put",grpc_service="etcdserverpb.KV",grpc_type="unary"'
const WATCH = 'grpc_method="Watch",grpc_service="etcdserverpb.Watch",grpc_type="bidi_stream"'
const metricCases = [
  ['etcd_server_has_leader', 1],
  ['etcd_server_is_leader', 1],
  ['etcd_debugging_mvcc_current_revision', 2],
  ['etcd_debugging_mvcc_compact_revision', -1],
  ['etcd_debugging_mvcc_keys_total', 1],
  ['etcd_debugging_mvcc_watcher_total', 1],
  ['etcd_debugging_mvcc_watch_stream_total', 1],
  [`grpc_server_started_total{${PUT}}`, 1],
  [`grpc_server_handled_total{grpc_code="OK",${PUT}}`, 1],
  [`grpc_server_handled_total{grpc_code="InvalidArgument",${PUT}}`, 0],
  [`grpc_server_msg_received_total{${PUT}}`, 1],
  [`grpc_server_msg_sent_total{${PUT}}`, 1],
  [`grpc_server_handling_seconds_count{${PUT}}`, 1],
  [`grpc_server_handling_seconds_bucket{${PUT},le="+Inf"}`, 1],
  [`grpc_server_started_total{${WATCH}}`, 1],
  [`grpc_server_msg_received_total{${WATCH}}`, 1],
  ['grpc_server_handled_total{grpc_code="NotFound",grpc_method="Check",grpc_service="grpc.health.v1.Health",grpc_type="unary"}', 0],
] as const
/** Series both must show with some positive value. */
const positiveCases = ['etcd_mvcc_db_total_size_in_bytes', 'etcd_server_quota_backend_bytes', 'process_resident_memory_bytes', 'etcd_network_client_grpc_received_bytes_total']

const targetMakers = [
  { name: 'etcdlite', make: etcdliteTarget },
  ...(haveEtcd() ? [{ name: 'etcd', make: referenceTarget }] : []),
]

for (const tm of targetMakers) {
  describe(`HTTP on the client port of ${tm.name}`, () => {
    let t: Target
    before(async () => {
      t = await tm.make()
    })
    after(() => t.close())

    for (const c of requestCases) {
      it(c.name, async () => {
        const r = await http(t.endpoint, c.path, c.method)
        assert.equal(r.status, c.status)
        assert.equal(r.headers['content-type'], c.type)
        if ('body' in c) assert.equal(r.body, c.body)
        if ('allow' in c) assert.equal(r.headers['allow'], c.allow)
        if ('health' in c) assert.equal((JSON.parse(r.body) as { health: string }).health, c.health)
      })
    }

    it('GET /version: the server version and its x.y.0 cluster version, as JSON', async () => {
      const r = await http(t.endpoint, '/version')
      assert.equal(r.status, 200)
      assert.equal(r.headers['content-type'], 'application/json')
      const v = JSON.parse(r.body) as Record<string, string>
      assert.deepEqual(Object.keys(v).sort(), ['etcdcluster', 'etcdserver'])
      const m = /^(\d+)\.(\d+)\.\d+$/.exec(v['etcdserver'] ?? '')
      assert.ok(m !== null, r.body)
      assert.equal(v['etcdcluster'], `${m[1]}.${m[2]}.0`)
    })

    it('a raised NOSPACE alarm fails /health with 503 unless excluded', async () => {
      const kv = rawClient(t.endpoint)
      const mc = new (loadEtcdProto().etcdserverpb.Maintenance)(t.endpoint, grpc.credentials.createInsecure())
      const alarm = unary(mc, 'Alarm')
      try {
        const header = (await kv.kv.Range({ key: Buffer.from('x') }))['header'] as { member_id: string }
        await alarm({ action: 'ACTIVATE', memberID: header.member_id, alarm: 'NOSPACE' })
        try {
          const down = await http(t.endpoint, '/health')
          assert.equal(down.status, 503)
          assert.equal(down.headers['content-type'], TEXT)
          assert.ok(down.body.endsWith('}\n'), down.body)
          assert.equal((JSON.parse(down.body) as { health: string }).health, 'false')
          const excluded = await http(t.endpoint, '/health?exclude=NOSPACE')
          assert.equal(excluded.status, 200)
        } finally {
          await alarm({ action: 'DEACTIVATE', memberID: header.member_id, alarm: 'NOSPACE' })
        }
        assert.equal((await http(t.endpoint, '/health')).status, 200)
      } finally {
        kv.close()
        mc.close()
      }
    })

    it('/metrics after a Put, a Range and a Watch: the series etcd shows, with the same values', async () => {
      const kv = rawClient(t.endpoint)
      const wc = new (loadEtcdProto().etcdserverpb.Watch)(t.endpoint, grpc.credentials.createInsecure())
      const ws = rawWatchStream(wc)
      try {
        await kv.kv.Put({ key: Buffer.from('k'), value: Buffer.from('v') })
        await kv.kv.Range({ key: Buffer.from('k') })
        ws.send({ type: 'create', request: { key: Buffer.from('k') } })
        assert.equal((await ws.next()).created, true)
        const m = parseMetrics((await http(t.endpoint, '/metrics')).body)
        for (const [series, want] of metricCases) assert.equal(m.get(series), want, series)
        for (const series of positiveCases) assert.ok((m.get(series) ?? 0) > 0, series)
      } finally {
        ws.close()
        kv.close()
        wc.close()
      }
    })
  })
}

describe('etcdlite: HTTP/1.1 and gRPC on one port', () => {
  let t: Awaited<ReturnType<typeof etcdliteTarget>>
  before(async () => {
    t = await etcdliteTarget()
  })
  after(() => t.close())

  it('/health body is etcd 3.5\'s, with an empty reason', async () => {
    assert.equal((await http(t.endpoint, '/health')).body, '{"health":"true","reason":""}')
  })

  it('/health body is etcd 3.4\'s, without a reason, when etcdlite reports 3.4.23', async () => {
    const t34 = await etcdliteTarget('3.4.23')
    try {
      assert.equal((await http(t34.endpoint, '/health')).body, '{"health":"true"}')
      await t34.etcd.server.maintenance.alarm({ action: 'ACTIVATE', memberId: t34.etcd.server.memberId, alarm: 'NOSPACE' })
      const down = await http(t34.endpoint, '/health')
      assert.deepEqual([down.status, down.body], [503, '{"health":"false"}\n'])
      assert.equal((await http(t34.endpoint, '/health?exclude=NOSPACE')).body, '{"health":"true"}')
    } finally {
      await t34.close()
    }
  })

  it('serves gRPC calls and HTTP requests at the same time', async () => {
    const kv = rawClient(t.endpoint)
    const agent = new Agent({ keepAlive: true, maxSockets: 2 })
    try {
      const n = 20
      const [puts, gets] = await Promise.all([
        Promise.all(Array.from({ length: n }, (_, i) => kv.kv.Put({ key: Buffer.from(`c${i}`), value: Buffer.from('v') }))),
        Promise.all(Array.from({ length: n }, () => http(t.endpoint, '/health', 'GET', agent))),
      ])
      assert.equal(puts.length, n)
      assert.deepEqual(gets.map((g) => g.status), Array.from({ length: n }, () => 200))
    } finally {
      agent.destroy()
      kv.close()
    }
  })

  const splitCases = [
    { name: 'an HTTP/1 request whose first byte arrives alone', parts: ['P', 'OST /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'], want: 'HTTP/1.1 405' },
    { name: 'an HTTP/1 request starting like the HTTP/2 preface', parts: ['PR', 'OPFIND /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'], want: 'HTTP/1.1 405' },
    { name: 'an HTTP/1.0 request followed by a half-close (answered asynchronously)', parts: ['GET /metrics HTTP/1.0\r\n\r\n'], halfClose: true, want: 'HTTP/1.1 200' },
    // An HTTP/2 server's first frame is SETTINGS: 9-byte header, type 4 at offset 3.
    { name: 'an HTTP/2 preface split mid-way', parts: ['PRI * HT', 'TP/2.0\r\n\r\nSM\r\n\r\n', '\x00\x00\x00\x04\x00\x00\x00\x00\x00'], want: 'SETTINGS' },
  ] as const
  for (const c of splitCases) {
    it(`routes ${c.name}`, async () => {
      const s = connect(Number(t.endpoint.split(':')[1]), '127.0.0.1')
      s.setNoDelay(true)
      await once(s, 'connect')
      const chunks: Buffer[] = []
      s.on('data', (d: Buffer) => chunks.push(d))
      for (const p of c.parts) {
        await new Promise<void>((resolve) => s.write(Buffer.from(p, 'latin1'), () => resolve()))
        await new Promise((resolve) => setImmediate(resolve))
      }
      if ('halfClose' in c) s.end()
      const got = (): Buffer => Buffer.concat(chunks)
      if (c.want === 'SETTINGS') {
        await until(() => got().length >= 9, 'the server SETTINGS frame')
        assert.equal(got()[3], 4)
      } else {
        await until(() => got().toString('latin1').includes('\r\n\r\n'), 'the response head')
        assert.ok(got().toString('latin1').startsWith(c.want), got().toString('latin1'))
      }
      s.destroy()
    })
  }
})

describe('etcdlite: metrics listener and shutdown', () => {
  it('listenMetrics serves /metrics and /health, not /version, and close() closes it', async () => {
    const etcd = await openEtcd({ memory: true })
    let endpoint: string
    try {
      endpoint = (await etcd.listenMetrics({ port: 0 })).endpoint
      const cases = [['/metrics', 200], ['/health', 200], ['/version', 404]] as const
      for (const [path, status] of cases) assert.equal((await http(endpoint, path)).status, status, path)
      assert.match((await http(endpoint, '/metrics')).body, /^etcd_server_has_leader 1$/m)
    } finally {
      await etcd.close()
    }
    await assert.rejects(http(endpoint, '/health'), { code: 'ECONNREFUSED' })
  })

  it('the CLI serves --listen-metrics-urls and stops cleanly', { skip: haveProcNet() ? false : 'no /proc/net' }, async () => {
    const proc = spawn(process.execPath, [
      ETCDLITE_BIN, '--memory', '--listen-client-urls', 'http://127.0.0.1:0', '--listen-metrics-urls', 'http://127.0.0.1:0',
    ], { stdio: ['ignore', 'ignore', 'pipe'] })
    try {
      const client = await etcdServing(proc, 20_000)
      // etcd names a metrics listener by its flag URL (port 0 here): the bound port is the other one listening.
      const ports = (await listeningPorts(proc.pid ?? 0)).filter((p) => `127.0.0.1:${p}` !== client)
      assert.equal(ports.length, 1, `listening ports besides the client's: ${ports.join(', ')}`)
      const metrics = `127.0.0.1:${ports[0] ?? 0}`
      assert.equal((await http(metrics, '/health')).body, '{"health":"true","reason":""}')
      assert.match((await http(metrics, '/metrics')).body, /^etcd_server_is_leader 1$/m)
      proc.kill('SIGTERM')
      await until(() => proc.exitCode !== null || proc.signalCode !== null, 'the CLI to exit', 15_000)
      assert.deepEqual([proc.exitCode, proc.signalCode], [null, 'SIGTERM'], 'ended by the signal, re-raised as etcd does')
    } finally {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL')
    }
  })

  it('the configured etcd version shows in /version and etcd_server_version', async () => {
    const etcd = await openEtcd({ memory: true, etcdVersion: '3.4.23' })
    const g = new GrpcServer(etcd.server, { maxRequestBytes: 1 << 20, report: (err) => assert.fail(String(err)), http: httpHandler(etcd.server, 'client') })
    try {
      const endpoint = `127.0.0.1:${(await g.bind('127.0.0.1', 0)).port}`
      assert.equal((await http(endpoint, '/version')).body, '{"etcdserver":"3.4.23","etcdcluster":"3.4.0"}')
      const m = parseMetrics((await http(endpoint, '/metrics')).body)
      assert.equal(m.get('etcd_server_version{server_version="3.4.23"}'), 1)
      assert.equal(m.get('etcd_cluster_version{cluster_version="3.4"}'), 1)
    } finally {
      await g.shutdown()
      await etcd.close()
    }
  })

  it('a closed server is unhealthy: RANGE ERROR with etcd\'s message', async () => {
    const etcd = await openEtcd({ memory: true })
    await etcd.close()
    assert.deepEqual(checkHealth(etcd.server, new Set(), false), { health: 'false', reason: 'RANGE ERROR:etcdserver: server stopped' })
  })

  it('shutdown closes every connection (idle HTTP keep-alive, silent, gRPC with a watch) without waiting for its grace period', { timeout: 30_000 }, async () => {
    const t = await etcdliteTarget()
    const port = Number(t.endpoint.split(':')[1])
    const sockets: Socket[] = []
    const open = async (first?: string): Promise<Socket> => {
      const s = connect(port, '127.0.0.1')
      s.on('error', () => undefined)
      s.on('data', () => undefined)
      sockets.push(s)
      await once(s, 'connect')
      if (first !== undefined) s.write(first)
      return s
    }
    const wc = new (loadEtcdProto().etcdserverpb.Watch)(t.endpoint, grpc.credentials.createInsecure())
    try {
      const keepAlive = await open('GET /health HTTP/1.1\r\nHost: x\r\n\r\n')
      let answered = ''
      keepAlive.on('data', (d: Buffer) => (answered += d.toString()))
      await until(() => answered.includes('"health":"true"'), 'the keep-alive response')
      await open()
      const ws = rawWatchStream(wc)
      ws.send({ type: 'create', request: { key: Buffer.from('w') } })
      assert.equal((await ws.next()).created, true)
      // A grace period that would outlast the test's timeout: nothing may wait for it.
      await t.grpc.shutdown(10 * 60 * 1000)
      await until(() => sockets.every((s) => s.closed), 'every raw connection closed')
      await assert.rejects(http(t.endpoint, '/health'), { code: 'ECONNREFUSED' })
    } finally {
      wc.close()
      for (const s of sockets) s.destroy()
      await t.close()
    }
  })
})

describe('etcdlite: /livez and /readyz (etcd 3.5.11+)', () => {
  let t: Awaited<ReturnType<typeof etcdliteTarget>>
  before(async () => {
    t = await etcdliteTarget()
  })
  after(() => t.close())

  const ALL_READY = '[+]data_corruption ok\n[+]serializable_read ok\n[+]linearizable_read ok\n'
  const healthy = [
    ['/livez', 'ok\n'],
    ['/readyz', 'ok\n'],
    ['/livez?verbose', '[+]serializable_read ok\nok\n'],
    ['/livez?verbose=false', '[+]serializable_read ok\nok\n'],
    ['/readyz?verbose', `${ALL_READY}ok\n`],
    ['/readyz?verbose&exclude=linearizable_read', '[+]data_corruption ok\n[+]serializable_read ok\nok\n'],
    ['/readyz?verbose&exclude=data_corruption&exclude=serializable_read', '[+]linearizable_read ok\nok\n'],
    ['/readyz?verbose&exclude=no_such_check', `${ALL_READY}ok\n`],
    ['/readyz?verbose&exclude=', `${ALL_READY}ok\n`],
    ['/livez?verbose&exclude=serializable_read', 'ok\n'],
    ['/livez/serializable_read', 'ok\n'],
    ['/livez/serializable_read?verbose', '[+]serializable_read ok\nok\n'],
    ['/readyz/data_corruption?verbose', '[+]data_corruption ok\nok\n'],
    ['/readyz/serializable_read?verbose', '[+]serializable_read ok\nok\n'],
    ['/readyz/linearizable_read?verbose&exclude=linearizable_read', '[+]linearizable_read ok\nok\n'],
  ] as const
  for (const [path, body] of healthy) {
    it(`GET ${path} answers 200 ${JSON.stringify(body)}`, async () => {
      const r = await http(t.endpoint, path)
      assert.deepEqual([r.status, r.body], [200, body])
      assert.equal(r.headers['content-type'], TEXT)
      assert.equal(r.headers['x-content-type-options'], 'nosniff')
    })
  }

  for (const path of ['/livez/', '/readyz/', '/livez/no_such_check', '/livez/linearizable_read', '/livez/data_corruption', '/readyz/serializable_read/x', '/livezz']) {
    it(`GET ${path} is 404`, async () => {
      const r = await http(t.endpoint, path)
      assert.deepEqual([r.status, r.body], [404, '404 page not found\n'])
    })
  }

  for (const path of ['/livez', '/readyz/linearizable_read']) {
    it(`POST ${path} is not allowed`, async () => {
      const r = await http(t.endpoint, path, 'POST')
      assert.deepEqual([r.status, r.body, r.headers['allow']], [405, 'Method Not Allowed\n', 'GET'])
    })
  }

  it('a CORRUPT alarm fails /readyz and /readyz/data_corruption with 503 and every line, verbose or not; /livez stays ok', async () => {
    const kv = rawClient(t.endpoint)
    const mc = new (loadEtcdProto().etcdserverpb.Maintenance)(t.endpoint, grpc.credentials.createInsecure())
    const alarm = unary(mc, 'Alarm')
    try {
      const header = (await kv.kv.Range({ key: Buffer.from('x') }))['header'] as { member_id: string }
      await alarm({ action: 'ACTIVATE', memberID: header.member_id, alarm: 'CORRUPT' })
      try {
        const failed = '[-]data_corruption failed: alarm activated: CORRUPT\n[+]serializable_read ok\n[+]linearizable_read ok\n\n'
        const cases = [
          ['/readyz', 503, failed],
          ['/readyz?verbose', 503, failed],
          ['/readyz/data_corruption', 503, '[-]data_corruption failed: alarm activated: CORRUPT\n\n'],
          ['/readyz?exclude=data_corruption', 200, 'ok\n'],
          ['/readyz/serializable_read', 200, 'ok\n'],
          ['/livez', 200, 'ok\n'],
        ] as const
        for (const [path, status, body] of cases) {
          const r = await http(t.endpoint, path)
          assert.deepEqual([r.status, r.body], [status, body], path)
          assert.equal(r.headers['content-type'], TEXT, path)
          assert.equal(r.headers['x-content-type-options'], 'nosniff', path)
        }
        const m = parseMetrics((await http(t.endpoint, '/metrics')).body)
        assert.equal(m.get('etcd_server_healthcheck{name="data_corruption",type="readyz"}'), 0)
        assert.equal(m.get('etcd_server_healthcheck{name="serializable_read",type="livez"}'), 1)
        assert.ok((m.get('etcd_server_healthchecks_total{name="data_corruption",status="error",type="readyz"}') ?? 0) >= 3)
      } finally {
        await alarm({ action: 'DEACTIVATE', memberID: header.member_id, alarm: 'CORRUPT' })
      }
      assert.deepEqual((await http(t.endpoint, '/readyz')).body, 'ok\n')
      const m = parseMetrics((await http(t.endpoint, '/metrics')).body)
      assert.equal(m.get('etcd_server_healthcheck{name="data_corruption",type="readyz"}'), 1)
    } finally {
      kv.close()
      mc.close()
    }
  })

  it('a NOSPACE alarm fails /health but neither /livez nor /readyz (etcd checks only CORRUPT there)', async () => {
    const kv = rawClient(t.endpoint)
    const mc = new (loadEtcdProto().etcdserverpb.Maintenance)(t.endpoint, grpc.credentials.createInsecure())
    const alarm = unary(mc, 'Alarm')
    try {
      const header = (await kv.kv.Range({ key: Buffer.from('x') }))['header'] as { member_id: string }
      await alarm({ action: 'ACTIVATE', memberID: header.member_id, alarm: 'NOSPACE' })
      try {
        assert.equal((await http(t.endpoint, '/health')).status, 503)
        assert.deepEqual((await http(t.endpoint, '/readyz?verbose')).body, `${ALL_READY}ok\n`)
        assert.deepEqual((await http(t.endpoint, '/livez')).body, 'ok\n')
      } finally {
        await alarm({ action: 'DEACTIVATE', memberID: header.member_id, alarm: 'NOSPACE' })
      }
    } finally {
      kv.close()
      mc.close()
    }
  })

  it('with auth enabled the reads run as root: an anonymous /readyz is ok', async () => {
    const etcd = await openEtcd({ memory: true, bcryptCost: 4 })
    const l = await HttpListener.listen(httpHandler(etcd.server, 'metrics'), '127.0.0.1', 0)
    try {
      await etcd.userAdd({ name: 'root', password: 'rootpw' })
      await etcd.userGrantRole({ user: 'root', role: 'root' })
      await etcd.authEnable()
      const r = await http(`127.0.0.1:${l.port}`, '/readyz?verbose')
      assert.deepEqual([r.status, r.body], [200, `${ALL_READY}ok\n`])
    } finally {
      await l.close()
      await etcd.close()
    }
  })

  it('the metrics listener serves them too; a stopped server fails every read check with etcd\'s message', async () => {
    const etcd = await openEtcd({ memory: true })
    const l = await HttpListener.listen(httpHandler(etcd.server, 'metrics'), '127.0.0.1', 0)
    const endpoint = `127.0.0.1:${l.port}`
    try {
      assert.deepEqual((await http(endpoint, '/livez?verbose')).body, '[+]serializable_read ok\nok\n')
      await etcd.close()
      const cases = [
        ['/livez', '[-]serializable_read failed: etcdserver: server stopped\n\n'],
        ['/readyz', '[+]data_corruption ok\n[-]serializable_read failed: etcdserver: server stopped\n[-]linearizable_read failed: etcdserver: server stopped\n\n'],
        ['/readyz/data_corruption', 'ok\n'],
      ] as const
      for (const [path, body] of cases) {
        const r = await http(endpoint, path)
        assert.deepEqual([r.status, r.body], [body === 'ok\n' ? 200 : 503, body], path)
      }
    } finally {
      await l.close()
      await etcd.close()
    }
  })
})
