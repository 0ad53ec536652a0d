// Connections the client closes are closed by the server too: after etcdctl, python-etcd3 and raw HTTP/2
// clients come and go, the etcdlite CLI holds as many descriptors as before they came, and no socket is
// left in CLOSE-WAIT (the client's FIN seen, ours never sent), as with etcd. Read from /proc for the
// server's pid. And the server keeps serving when it runs short of descriptors.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { Agent, get as httpGet } from 'node:http'
import { Agent as HttpsAgent, get as httpsGet } from 'node:https'
import { connect as netConnect, type Socket } from 'node:net'
import { connect as tlsConnect } from 'node:tls'
import { promisify } from 'node:util'
import { createPki, type Pki } from '../helpers/certs.js'
import { etcdctl } from '../helpers/etcdctl.js'
import { ETCDLITE_BIN, etcdServing, haveEtcdctl, startEtcdliteProcess, type ServerProcess } from '../helpers/processes.js'
import { haveProcNet, socketStats, type SocketStats } from '../helpers/proc-sockets.js'
import { startEtcdliteTls } from '../helpers/tls-processes.js'
import { until } from '../helpers/until.js'

/** Debian's python3-etcd3, which the pyenv `python3` first on some PATHs does not have. */
const PYTHON = '/usr/bin/python3'
const havePythonEtcd3 = spawnSync(PYTHON, ['-c', 'import etcd3'], { stdio: 'ignore' }).status === 0
const haveOpenssl = spawnSync('openssl', ['version'], { stdio: 'ignore' }).status === 0
const skip = !haveProcNet() ? 'no /proc/<pid>/fd and /proc/net/tcp (not Linux)' : !haveEtcdctl() ? 'etcdctl is not on PATH' : false

const H2_PREFACE = 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'

/**
 * Wait until the server holds no socket in CLOSE-WAIT and no more descriptors than `baseline` (closing a
 * connection the client closed takes an event-loop turn or two); fail with what it still holds after 10 s.
 */
async function backToBaseline(pid: number, baseline: SocketStats, what: string): Promise<void> {
  const t0 = Date.now()
  let now = await socketStats(pid)
  while (now.closeWait > 0 || now.fds > baseline.fds) {
    if (Date.now() - t0 > 10_000) {
      assert.fail(`${what}: after 10 s the server holds ${now.fds} descriptors (${baseline.fds} before) and ${now.closeWait} sockets in CLOSE-WAIT; TCP: ${JSON.stringify(now.tcp)}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
    now = await socketStats(pid)
  }
}

/** Run `tasks` with at most `width` at a time. */
async function pool<T>(width: number, tasks: readonly (() => Promise<T>)[]): Promise<T[]> {
  const out: T[] = []
  let next = 0
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < tasks.length) {
      const i = next++
      out[i] = await (tasks[i] as () => Promise<T>)()
    }
  }))
  return out
}

/**
 * Open a connection, send the HTTP/2 client preface, half-close, and resolve true once the server has
 * closed its side too (false if it has not after `timeoutMs`; the socket is destroyed either way).
 */
function prefaceThenClose(open: () => Socket, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = open()
    const timer = setTimeout(() => {
      s.destroy()
      resolve(false)
    }, timeoutMs)
    s.on('error', () => undefined)
    s.resume()
    s.once('end', () => {
      clearTimeout(timer)
      s.destroy()
      resolve(true)
    })
    s.once('close', () => {
      clearTimeout(timer)
      resolve(true)
    })
  })
}

/** `n` etcdctl calls (puts, gets, deletes, a txn, a lease grant), 4 at a time; each must succeed. */
async function etcdctlCalls(endpoint: string, n: number, extra: readonly string[] = []): Promise<void> {
  const kinds: readonly (readonly string[])[] = [
    ['put', 'conn/k', 'v'],
    ['get', 'conn/', '--prefix'],
    ['del', 'conn/none'],
    ['lease', 'grant', '60'],
    ['endpoint', 'status'],
  ]
  const results = await pool(4, Array.from({ length: n }, (_, i) => () => etcdctl(endpoint, [...extra, ...(kinds[i % kinds.length] ?? [])])))
  for (const r of results) assert.equal(r.code, 0, `etcdctl failed: ${r.stderr}`)
}

describe('etcdlite: sockets of connections the client closed', { skip }, () => {
  let s: ServerProcess
  let baseline: SocketStats
  before(async () => {
    s = await startEtcdliteProcess({ memory: true })
    baseline = await socketStats(s.proc.pid ?? 0)
  })
  after(() => s.dispose())

  it('30 etcdctl calls leave no socket in CLOSE-WAIT and no extra descriptor', async () => {
    await etcdctlCalls(s.endpoint, 30)
    await backToBaseline(s.proc.pid ?? 0, baseline, '30 etcdctl calls')
  })

  it('30 python-etcd3 clients leave no socket in CLOSE-WAIT and no extra descriptor', { skip: havePythonEtcd3 ? false : `${PYTHON} has no etcd3 module (Debian package python3-etcd3)` }, async () => {
    const [host, port] = s.endpoint.split(':')
    // Half the clients close their channel, half are left to the interpreter's exit.
    const script = [
      'import etcd3, sys',
      'keep = []',
      'for i in range(30):',
      `    c = etcd3.client(host='${host ?? ''}', port=${port ?? ''})`,
      "    c.put('py/%d' % i, 'v')",
      "    assert c.get('py/%d' % i)[0] == b'v'",
      '    if i % 2: c.close()',
      '    else: keep.append(c)',
    ].join('\n')
    await promisify(execFile)(PYTHON, ['-c', script], { timeout: 60_000 })
    await backToBaseline(s.proc.pid ?? 0, baseline, '30 python-etcd3 clients')
  })

  it('HTTP/1.x clients (keep-alive connections closed while idle, a request then a half-close) leave nothing behind', async () => {
    const [host, port] = s.endpoint.split(':')
    const agent = new Agent({ keepAlive: true, maxSockets: 5 })
    try {
      const statuses = await Promise.all(Array.from({ length: 20 }, () => new Promise<number>((resolve, reject) => {
        httpGet({ host, port: Number(port), path: '/health', agent }, (res) => {
          res.resume()
          res.on('end', () => resolve(res.statusCode ?? 0))
        }).on('error', reject)
      })))
      assert.deepEqual(statuses, Array.from({ length: 20 }, () => 200))
    } finally {
      agent.destroy()
    }
    const answers = await pool(10, Array.from({ length: 20 }, () => () => new Promise<string>((resolve) => {
      const c = netConnect(Number(port), host, () => c.end('GET /version HTTP/1.0\r\n\r\n'))
      let got = ''
      c.on('data', (d: Buffer) => (got += d.toString('latin1')))
      c.on('error', () => undefined)
      c.on('close', () => resolve(got.split('\r\n')[0] ?? ''))
    })))
    assert.deepEqual(answers, Array.from({ length: 20 }, () => 'HTTP/1.1 200 OK'), 'a request followed by a half-close is answered')
    await backToBaseline(s.proc.pid ?? 0, baseline, 'HTTP/1.x clients')
  })

  it('500 connections that send only the HTTP/2 preface and close are all closed by the server', async () => {
    const [host, port] = s.endpoint.split(':')
    const open = (): Socket => netConnect(Number(port), host, function (this: Socket) {
      this.end(H2_PREFACE)
    })
    const closed = await pool(100, Array.from({ length: 500 }, () => () => prefaceThenClose(open, 10_000)))
    assert.equal(closed.filter((c) => !c).length, 0, 'connections the server did not close within 10 s')
    await backToBaseline(s.proc.pid ?? 0, baseline, '500 preface-only connections')
  })

  it('a connection closed while its first bytes are still incomplete is closed by the server', async () => {
    const [host, port] = s.endpoint.split(':')
    const open = (): Socket => netConnect(Number(port), host, function (this: Socket) {
      this.end(H2_PREFACE.slice(0, 10))
    })
    const closed = await pool(20, Array.from({ length: 20 }, () => () => prefaceThenClose(open, 10_000)))
    assert.equal(closed.filter((c) => !c).length, 0, 'connections the server did not close within 10 s')
    await backToBaseline(s.proc.pid ?? 0, baseline, 'connections with part of the preface')
  })

  it('a preface that arrives in two parts, the FIN with the second, is closed by the server', async () => {
    const [host, port] = s.endpoint.split(':')
    const open = (): Socket => netConnect(Number(port), host, function (this: Socket) {
      this.setNoDelay(true)
      this.write(H2_PREFACE.slice(0, 10))
      setTimeout(() => this.end(H2_PREFACE.slice(10)), 20)
    })
    const closed = await pool(20, Array.from({ length: 20 }, () => () => prefaceThenClose(open, 10_000)))
    assert.equal(closed.filter((c) => !c).length, 0, 'connections the server did not close within 10 s')
    await backToBaseline(s.proc.pid ?? 0, baseline, 'connections with the preface in two parts')
  })
})

describe('etcdlite: sockets of TLS connections the client closed', { skip: skip === false && !haveOpenssl ? 'openssl is not on PATH' : skip }, () => {
  let pki: Pki
  let s: ServerProcess
  let baseline: SocketStats
  before(async () => {
    pki = await createPki()
    s = await startEtcdliteTls({ certFile: pki.server.certFile, keyFile: pki.server.keyFile })
    baseline = await socketStats(s.proc.pid ?? 0)
  })
  after(async () => {
    await s.dispose()
    await pki.remove()
  })

  it('20 etcdctl calls over TLS leave no socket in CLOSE-WAIT and no extra descriptor', async () => {
    await etcdctlCalls(s.endpoint, 20, ['--cacert', pki.caFile])
    await backToBaseline(s.proc.pid ?? 0, baseline, '20 etcdctl calls over TLS')
  })

  it('20 HTTPS /health requests on keep-alive connections then closed leave nothing behind', async () => {
    const [host, port] = s.endpoint.split(':')
    const agent = new HttpsAgent({ keepAlive: true, maxSockets: 5, ca: pki.ca, servername: 'localhost' })
    try {
      const statuses = await Promise.all(Array.from({ length: 20 }, () => new Promise<number>((resolve, reject) => {
        httpsGet({ host, port: Number(port), path: '/health', agent }, (res) => {
          res.resume()
          res.on('end', () => resolve(res.statusCode ?? 0))
        }).on('error', reject)
      })))
      assert.deepEqual(statuses, Array.from({ length: 20 }, () => 200))
    } finally {
      agent.destroy()
    }
    await backToBaseline(s.proc.pid ?? 0, baseline, 'HTTPS clients')
  })

  it('100 TLS connections that send only the HTTP/2 preface and close are all closed by the server', async () => {
    const [host, port] = s.endpoint.split(':')
    const open = (): Socket => tlsConnect({ host, port: Number(port), ca: pki.ca, ALPNProtocols: ['h2'], servername: 'localhost' }, function (this: Socket) {
      this.end(H2_PREFACE)
    })
    const closed = await pool(50, Array.from({ length: 100 }, () => () => prefaceThenClose(open, 10_000)))
    assert.equal(closed.filter((c) => !c).length, 0, 'connections the server did not close within 10 s')
    await backToBaseline(s.proc.pid ?? 0, baseline, '100 preface-only TLS connections')
  })
})

describe('etcdlite: with few descriptors', { skip }, () => {
  /** The descriptor limit the server runs under: Node and the idle server take about 20 of them. */
  const LIMIT = 64
  let proc: ChildProcess
  let endpoint: string
  before(async () => {
    proc = spawn('bash', ['-c', `ulimit -n ${LIMIT} && exec "$0" "$@"`, process.execPath, ETCDLITE_BIN, '--listen-client-urls', 'http://127.0.0.1:0', '--memory'], { stdio: ['ignore', 'ignore', 'pipe'] })
    endpoint = await etcdServing(proc, 20_000)
  })
  after(async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGKILL')
      await once(proc, 'exit')
    }
  })

  it(`${3 * LIMIT} etcdctl puts in a row under ulimit -n ${LIMIT} all succeed`, async () => {
    for (let i = 0; i < 3 * LIMIT; i++) {
      const r = await etcdctl(endpoint, ['put', `few/${i}`, 'v'])
      assert.equal(r.code, 0, `put ${i} failed: ${r.stderr}`)
    }
  })

  it('keeps accepting connections after running out of descriptors', async () => {
    const [host, port] = endpoint.split(':')
    // Idle connections (no byte sent) until the server cannot take more: it refuses or closes the rest.
    const idle: Socket[] = []
    await Promise.all(Array.from({ length: 2 * LIMIT }, async () => {
      const c = netConnect(Number(port), host)
      c.on('error', () => undefined)
      c.resume()
      idle.push(c)
      await Promise.race([once(c, 'connect'), once(c, 'close')])
    }))
    // Node (libuv) accepts and at once closes what it cannot keep (etcd leaves them in the backlog).
    await until(() => idle.some((c) => c.readableEnded || c.destroyed), 'the server to run out of descriptors', 10_000)
    for (const c of idle) c.destroy()
    const r = await etcdctl(endpoint, ['put', 'few/after', 'v'])
    assert.equal(r.code, 0, `put after the descriptors ran out failed: ${r.stderr}`)
    assert.equal(proc.exitCode, null, 'the server is still running')
  })
})
