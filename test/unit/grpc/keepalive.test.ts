// Server keep-alive pings (etcd's --grpc-keepalive-interval / --grpc-keepalive-timeout): a client that stops
// answering the server's PINGs loses its connection; one that answers keeps it; without the option the
// server never pings, as with either flag 0.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { connect as netConnect, type Socket } from 'node:net'
import { connect as h2connect } from 'node:http2'
import { openEtcd, type Etcd } from '../../../src/embed/etcd.js'
import { until } from '../../helpers/until.js'

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n')
/** An empty SETTINGS frame: length 0, type 4, flags 0, stream 0. */
const SETTINGS = Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0])
const PING = 6

/** A raw HTTP/2 client that sends the preface and its SETTINGS, then reads frames and answers none. */
function silentClient(port: number): Promise<{ socket: Socket; pings: () => number; closed: () => boolean }> {
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host: '127.0.0.1', port }, () => {
      socket.write(Buffer.concat([PREFACE, SETTINGS]))
      resolve({ socket, pings: () => pings, closed: () => closed })
    })
    let pings = 0
    let closed = false
    let buf = Buffer.alloc(0)
    socket.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d])
      while (buf.length >= 9) {
        const len = buf.readUIntBE(0, 3)
        if (buf.length < 9 + len) break
        if (buf[3] === PING && ((buf[4] ?? 0) & 1) === 0) pings++
        buf = buf.subarray(9 + len)
      }
    })
    socket.on('error', () => undefined)
    socket.on('close', () => (closed = true))
    socket.once('error', reject)
  })
}

describe('listen({ keepAlive })', () => {
  let etcd: Etcd
  let pinging: number
  let quiet: number
  before(async () => {
    etcd = await openEtcd({ memory: true })
    pinging = (await etcd.listen({ port: 0, keepAlive: { intervalMs: 200, timeoutMs: 200 } })).port
    quiet = (await etcd.listen({ port: 0, keepAlive: { intervalMs: 0, timeoutMs: 200 } })).port
  })
  after(() => etcd.close())

  it('pings a connection and closes it when the pings go unanswered', async () => {
    const c = await silentClient(pinging)
    await until(() => c.pings() > 0, 'a PING from the server', 10_000)
    await until(() => c.closed(), 'the server to close the connection', 10_000)
  })

  it('keeps a connection whose client answers the pings, and it still serves', async () => {
    const session = h2connect(`http://127.0.0.1:${pinging}`)
    try {
      let pinged = 0
      session.on('ping', () => pinged++)
      await until(() => pinged >= 2, 'two answered PINGs', 10_000)
      assert.equal(session.closed || session.destroyed, false)
    } finally {
      session.destroy()
    }
  })

  it('does not ping when the interval is 0, as etcd with --grpc-keepalive-interval=0', async () => {
    const c = await silentClient(quiet)
    const answered = await new Promise<boolean>((resolve) => {
      const session = h2connect(`http://127.0.0.1:${quiet}`)
      session.on('ping', () => resolve(true))
      // A served request proves the connection works, and gives a pinging server time to ping.
      const req = session.request({ ':path': '/health' })
      req.on('response', () => undefined)
      req.resume()
      req.on('end', () => setTimeout(() => {
        session.destroy()
        resolve(false)
      }, 600))
      req.end()
    })
    assert.equal(answered, false)
    assert.equal(c.pings(), 0)
    assert.equal(c.closed(), false)
    c.socket.destroy()
  })
})
