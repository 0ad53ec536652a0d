// The Node HTTP/2 front ceiling: a gRPC server on bare node:http2 (no grpc-js, no storage) that answers
// the methods etcd's benchmark tool calls with valid, canned protobuf bytes in real gRPC framing (a 5-byte
// prefix per message, grpc-status in the trailers). Whatever it serves for a workload is the most any
// server written on Node's HTTP/2 can serve that workload on this machine: every request costs it the
// HTTP/2 stream, the framing and a few hundred bytes of encoding, and nothing else.
//
// What it keeps is what the answers must be consistent about: a revision that every write increments, the
// leases it granted (a keep-alive of another lease gets TTL 0, as from etcd), and single-key watchers, so
// a put (also one inside a txn) fans one event out to every watcher of its key, encoded once per put.
//
// Bare node:http2 has one cost no configuration removes: nghttp2 allows a connection 1,000 stream resets
// at once and 33 a second after, then closes it. The tool's lease keep-alive cancels the stream of every
// call, so there the client reconnects about once per thousand calls per connection, and the figure
// includes those reconnects, as it would for any server on bare node:http2 (etcdlite's own front takes the
// resets in JavaScript instead, at a cost on every chunk it reads).
//
// Started with `filtered`, every connection goes through etcdlite's own HTTP/2 front first
// (src/grpc/http2-front.ts: the frame filter, the reset takeover, etcd's keep-alive policy at its default
// minimum time, as the CLI runs it): the most a server behind that front can serve, so the cost of the
// front itself shows as the gap between the two.
import { createServer, type Http2Server, type ServerHttp2Session, type ServerHttp2Stream } from 'node:http2'
import { createServer as createNetServer, type AddressInfo, type Server, type Socket } from 'node:net'
import { frontConnection, type FrontConnection } from '../../src/grpc/http2-front.js'
import { DEFAULT_KEEPALIVE_MIN_TIME_MS } from '../../src/grpc/keepalive-enforcement.js'
import { bytes, bytesField, fields, intField, msg, uint, type Field } from './pb.js'

const CLUSTER_ID = 0x1c0ffee
const MEMBER_ID = 0xbe11
/** The value every range answers with: the size the range workloads put. */
const RANGE_VALUE = new Uint8Array(256).fill(0x61)

const GRPC_OK = { ':status': 200, 'content-type': 'application/grpc' } as const

/** `m` with gRPC's 5-byte prefix: not compressed, then the length big-endian. */
function frame(m: Uint8Array): Buffer {
  const b = Buffer.allocUnsafe(5 + m.length)
  b[0] = 0
  b.writeUInt32BE(m.length, 1)
  b.set(m, 5)
  return b
}

function failCall(stream: ServerHttp2Stream, code: number, message: string): void {
  if (!stream.headersSent) stream.respond({ ...GRPC_OK, 'grpc-status': String(code), 'grpc-message': encodeURIComponent(message) }, { endStream: true })
  else stream.close()
}

/**
 * Calls `onMessage` with each gRPC message as the stream's data arrives, whatever its chunking. A message
 * that cannot be read ends the call with INTERNAL, as grpc-go answers a request it cannot unmarshal.
 */
function onMessages(stream: ServerHttp2Stream, onMessage: (m: Buffer) => void): void {
  let pending: Buffer = Buffer.alloc(0)
  stream.on('data', (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
    try {
      while (pending.length >= 5) {
        const len = pending.readUInt32BE(1)
        if (pending.length < 5 + len) break
        if (pending[0] !== 0) throw new TypeError('compressed messages are not served')
        onMessage(pending.subarray(5, 5 + len))
        pending = pending.subarray(5 + len)
      }
    } catch (e) {
      failCall(stream, 13, `front: ${e instanceof Error ? e.message : String(e)}`)
    }
  })
}

/** Response headers now; grpc-status 0 once the call's writing side ends (for a stream: once the client's has). */
function openCall(stream: ServerHttp2Stream, streaming: boolean): void {
  stream.respond(GRPC_OK, { waitForTrailers: true })
  stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }))
  if (streaming) stream.once('end', () => stream.end())
}

/**
 * A Watch call. While its stream drains (write() said false), the events of each watcher are held and go
 * out as one response per watcher on 'drain': etcd's victim batching, which is what keeps a server ahead
 * of a client that reads slower than it writes.
 */
interface WatchCall {
  readonly stream: ServerHttp2Stream
  held: Map<number, Uint8Array[]> | undefined
}

interface Watcher {
  readonly call: WatchCall
  readonly id: number
}

/** A started front server; `close()` ends its sessions and stops listening. */
export interface FrontServer {
  /** host:port for gRPC clients. */
  readonly address: string
  close(): Promise<void>
}

export interface FrontServerOptions {
  readonly port?: number
  readonly host?: string
  /** Put each connection behind etcdlite's own HTTP/2 front (see the file comment). */
  readonly filtered?: boolean
}

export async function startFrontServer(opts: FrontServerOptions = {}): Promise<FrontServer> {
  const { port = 0, host = '127.0.0.1', filtered = false } = opts
  let revision = 1
  let lastLease = 0x694d71ddc9a3b000n
  const leases = new Map<bigint, bigint>()
  const watchers = new Map<string, Set<Watcher>>()

  const header = (): Uint8Array => bytes(1, msg(uint(1, CLUSTER_ID), uint(2, MEMBER_ID), uint(3, revision), uint(4, 2)))

  /** The write's event to every watcher of `key`: one write per watch stream, one message per watcher. */
  function notify(key: Uint8Array, value: Uint8Array): void {
    const set = watchers.get(Buffer.from(key).toString('latin1'))
    if (set === undefined || set.size === 0) return
    const head = header()
    const event = bytes(11, msg(bytes(2, msg(bytes(1, key), uint(2, revision), uint(3, revision), uint(4, 1), bytes(5, value)))))
    const perCall = new Map<WatchCall, Buffer[]>()
    for (const { call, id } of set) {
      const held = call.held?.get(id)
      if (held !== undefined) held.push(event)
      else if (call.held !== undefined) call.held.set(id, [event])
      else {
        const out = perCall.get(call) ?? []
        out.push(frame(msg(head, uint(2, id), event)))
        perCall.set(call, out)
      }
    }
    for (const [call, out] of perCall) send(call, out)
  }

  function send(call: WatchCall, out: readonly Buffer[]): void {
    if (!call.stream.writable) return
    // Written either way (node:http2 buffers it); once the buffer is over its mark, events wait.
    if (call.stream.write(Buffer.concat(out)) || call.held !== undefined) return
    call.held = new Map()
    call.stream.once('drain', () => {
      const held = call.held ?? new Map<number, Uint8Array[]>()
      call.held = undefined
      const head = header()
      send(call, [...held].map(([id, events]) => frame(msg(head, uint(2, id), ...events))))
    })
  }

  const put = (req: readonly Field[]): void => notify(bytesField(req, 1), bytesField(req, 2))

  const unary = new Map<string, (req: Field[]) => Uint8Array>([
    ['/etcdserverpb.KV/Range', (req) => msg(header(), bytes(2, msg(bytes(1, bytesField(req, 1)), uint(2, 1), uint(3, 1), uint(4, 1), bytes(5, RANGE_VALUE))), uint(4, 1))],
    ['/etcdserverpb.KV/Put', (req) => {
      revision++
      put(req)
      return msg(header())
    }],
    ['/etcdserverpb.KV/Txn', (req) => {
      // Compares are not evaluated: the success branch runs. Each op gets a response of its kind holding only
      // the header; a txn that writes takes one revision.
      const ops = req.flatMap((f) => (f.n === 2 && typeof f.v !== 'bigint' ? fields(f.v).slice(0, 1) : []))
      if (ops.some((op) => op.n !== 1)) revision++
      for (const op of ops) if (op.n === 2 && typeof op.v !== 'bigint') put(fields(op.v))
      return msg(header(), uint(2, true), ...ops.map((op) => bytes(3, bytes(op.n, msg(header())))))
    }],
    ['/etcdserverpb.Lease/LeaseGrant', (req) => {
      const ttl = intField(req, 1)
      const id = intField(req, 2) || ++lastLease
      leases.set(id, ttl)
      return msg(header(), uint(2, id), uint(3, ttl))
    }],
  ])

  function keepAlive(stream: ServerHttp2Stream): void {
    openCall(stream, true)
    onMessages(stream, (m) => {
      const id = intField(fields(m), 1)
      stream.write(frame(msg(header(), uint(2, id), uint(3, leases.get(id) ?? 0n))))
    })
  }

  function watch(stream: ServerHttp2Stream): void {
    openCall(stream, true)
    const call: WatchCall = { stream, held: undefined }
    const mine = new Map<number, Watcher & { key: string }>()
    let nextId = 0
    const forget = (id: number): void => {
      const w = mine.get(id)
      if (w !== undefined) watchers.get(w.key)?.delete(w)
      mine.delete(id)
      call.held?.delete(id)
    }
    const reply = (...f: Uint8Array[]): void => send(call, [frame(msg(header(), ...f))])
    onMessages(stream, (m) => {
      const [req] = fields(m)
      if (req === undefined || typeof req.v === 'bigint') return
      const body = fields(req.v)
      if (req.n === 1) {
        const id = nextId++
        if (bytesField(body, 2).length > 0) {
          reply(uint(2, id), uint(3, true), uint(4, true), bytes(6, Buffer.from('the front ceiling server watches single keys only')))
          return
        }
        const key = Buffer.from(bytesField(body, 1)).toString('latin1')
        const w = { call, id, key }
        watchers.set(key, (watchers.get(key) ?? new Set<Watcher>()).add(w))
        mine.set(id, w)
        reply(uint(2, id), uint(3, true))
      } else if (req.n === 2) {
        const id = Number(intField(body, 1))
        forget(id)
        reply(uint(2, id), uint(4, true))
      }
    })
    stream.once('close', () => {
      for (const id of [...mine.keys()]) forget(id)
    })
  }

  // As grpc-js configures every server (etcdlite's too): no cap on a session's outbound buffer. Under node:http2's
  // default of 10 MB, a watch fan-out that outruns its readers has new streams refused with ENHANCE_YOUR_CALM.
  const server: Http2Server = createServer({ maxSessionMemory: Number.MAX_SAFE_INTEGER })
  /** Set while a filtered connection is handed to node:http2, which makes its session synchronously. */
  let connecting: FrontConnection | undefined
  // As Go's net package and etcdlite's listener do: a response is not held back waiting for an ACK.
  const listener: Server | Http2Server = filtered ? createNetServer({ noDelay: true }, (socket) => {
    connecting = frontConnection(socket, { keepAliveMinTimeMs: DEFAULT_KEEPALIVE_MIN_TIME_MS })
    try {
      server.emit('connection', connecting.socket)
    } finally {
      connecting = undefined
    }
  }) : server
  if (!filtered) server.on('connection', (socket: Socket) => socket.setNoDelay(true))
  server.on('stream', (stream, headers) => {
    // A client's cancel resets the stream; that is the end of its call, not the server's problem.
    stream.on('error', () => undefined)
    // node:http2 announces a stream on the next tick: a reset that came with its HEADERS has closed it already.
    if (stream.destroyed || stream.closed) return
    const path = headers[':path'] ?? ''
    const answer = unary.get(path)
    if (answer !== undefined) {
      let reply: Uint8Array | undefined
      onMessages(stream, (m) => void (reply = answer(fields(m))))
      stream.once('end', () => {
        if (stream.headersSent) return // answered already: a malformed message failed the call
        if (reply === undefined) return failCall(stream, 13, 'front: a unary call without its request')
        openCall(stream, false)
        stream.end(frame(reply))
      })
    } else if (path === '/etcdserverpb.Lease/LeaseKeepAlive') keepAlive(stream)
    else if (path === '/etcdserverpb.Watch/Watch') watch(stream)
    else failCall(stream, 12, `unknown method ${path}`)
  })
  const sessions = new Set<ServerHttp2Session>()
  server.on('session', (s) => {
    connecting?.attach(s)
    sessions.add(s)
    s.once('close', () => sessions.delete(s))
  })
  listener.listen(port, host)
  await new Promise<void>((resolve, reject) => {
    listener.once('listening', resolve)
    listener.once('error', reject)
  })
  const { address, port: bound } = listener.address() as AddressInfo
  return {
    address: `${address}:${bound}`,
    close: () => new Promise<void>((resolve) => {
      for (const s of sessions) s.destroy()
      listener.close(() => resolve())
    }),
  }
}
