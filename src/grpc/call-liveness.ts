// When the client of a long-lived server call (Watch) is gone, whatever grpc-js says.
//
// grpc-js reports a cancelled call only from its HTTP/2 stream's 'close' event, and node:http2 emits that
// only once the stream is destroyed. Two ways a dead client never gets there:
// - Its socket closes while one of our writes waits for HTTP/2 flow-control window (a client that stopped
//   reading, with large windows: grpc-go grows them to 16 MiB). node:http2 then marks the stream closed
//   and emits 'aborted', but ending the stream waits for that write, whose callback never comes: no
//   'close', so the call, its watchers and what they queued live on.
// - The client's FIN arrives on a connection accepted half-open (the front accepts every socket
//   allowHalfOpen, for HTTP/1 clients that half-close after their request). node:http2 does nothing on the
//   socket's 'end': the session, and every stream waiting for window, stays open in CLOSE-WAIT. An HTTP/2
//   client never half-closes its connection (it could no longer acknowledge settings and pings, nor open
//   window), so a FIN means it is gone; grpc-go (etcd) closes the transport on that EOF.
// So a long-lived call also watches its HTTP/2 stream ('aborted', 'close') and the session's socket
// ('end', 'close'); the first of these ends the call, and the socket's end the session.
//
// The HTTP/2 stream is grpc-js's, under the public call (`call.stream`, as stream-writer.ts uses it). A
// grpc-js without it gets grpc-js's own cancellation only.

/** The parts of a node:http2 stream, session and socket watched here (event emitters). */
interface Emitter {
  once(event: string, fn: () => void): unknown
  off(event: string, fn: () => void): unknown
}

interface Http2SessionLike {
  readonly socket?: unknown
  readonly destroyed?: boolean
  destroy?: () => void
}

interface Http2StreamLike extends Emitter {
  readonly destroyed: boolean
  readonly closed: boolean
  readonly session?: Http2SessionLike | undefined
  destroy(): void
}

/** How long a stream whose client is gone may take to be destroyed by node:http2 before it is destroyed here. */
const STREAM_DESTROY_GRACE_MS = 1000

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null
const isEmitter = (x: unknown): x is Emitter => isObject(x) && typeof x['once'] === 'function' && typeof x['off'] === 'function'

/** grpc-js's HTTP/2 stream under a server call, if it has one of the expected shape. */
function http2StreamOf(call: object): Http2StreamLike | undefined {
  const base = (call as { call?: unknown }).call
  if (!isObject(base)) return undefined
  const stream = base['stream']
  if (!isEmitter(stream)) return undefined
  const s = stream as unknown as Record<string, unknown>
  if (typeof s['destroy'] !== 'function' || typeof s['destroyed'] !== 'boolean' || typeof s['closed'] !== 'boolean') return undefined
  return stream as Http2StreamLike
}

/**
 * The calls waiting on each socket: one 'end' and one 'close' listener per socket, however many streams it
 * carries (thousands of Watch calls may share one connection).
 */
const waiting = new WeakMap<object, Set<() => void>>()

function watchSocket(socket: Emitter, session: Http2SessionLike, gone: () => void): () => void {
  let set = waiting.get(socket)
  if (set === undefined) {
    const calls = new Set<() => void>()
    set = calls
    waiting.set(socket, calls)
    // Not removed afterwards: the socket is node:http2's proxy, which throws on any use once the session
    // has let go of the socket (as it has by 'close'); each event comes once anyway.
    const fire = (): void => {
      waiting.delete(socket)
      for (const f of [...calls]) f()
      calls.clear()
      // The connection is of no use to anyone any more: without this, a socket that got the client's FIN
      // stays open in CLOSE-WAIT with its session (an fd and about 0.6 MiB each in the soak).
      if (session.destroyed !== true && typeof session.destroy === 'function') session.destroy()
    }
    socket.once('end', fire)
    socket.once('close', fire)
  }
  const calls = set
  calls.add(gone)
  return () => {
    calls.delete(gone)
  }
}

/**
 * Call `gone` once when the client of `call` is gone for good: its HTTP/2 stream was aborted or closed,
 * or its connection's socket ended or closed. Also destroys the HTTP/2 stream then, so node:http2 drops
 * the data queued for it and grpc-js reports the call cancelled; when the socket ended, the whole session
 * (the other calls on it included) is destroyed too, as grpc-go closes its transport on EOF. Returns a
 * function that stops watching (call it when the call ends normally).
 */
export function onClientGone(call: object, gone: () => void): () => void {
  const found = http2StreamOf(call)
  if (found === undefined) return () => undefined
  const stream: Http2StreamLike = found
  let done = false
  let unwatchSocket: () => void = () => undefined
  const stop = (): void => {
    stream.off('aborted', fire)
    stream.off('close', fire)
    unwatchSocket()
  }
  function fire(): void {
    if (done) return
    done = true
    stop()
    // Destroyed only if node:http2 has not done it by then. A stream closed in the ordinary way (the
    // server's RST_STREAM for a cancellation the HTTP/2 front took over, trailers sent) is destroyed by
    // node:http2 once nghttp2 has finished with it. Destroying such a stream at once made node:http2 count
    // invalid frames on the connection, and after about 1000 cancellations it tore the connection down
    // (ERR_HTTP2_TOO_MANY_INVALID_FRAMES, its maxSessionInvalidFrames); test/e2e/http2-resets.test.ts.
    const t = setTimeout(() => {
      if (!stream.destroyed) stream.destroy()
    }, STREAM_DESTROY_GRACE_MS)
    t.unref()
    gone()
  }
  stream.once('aborted', fire)
  stream.once('close', fire)
  try {
    const session = stream.session
    const socket = session?.socket
    if (session !== undefined && isEmitter(socket)) unwatchSocket = watchSocket(socket, session, fire)
  } catch {
    // The session has let go of its socket already (node:http2's proxy throws): the stream's own events
    // still come.
  }
  if (stream.closed || stream.destroyed || stream.session?.destroyed === true) queueMicrotask(fire)
  return () => {
    done = true
    stop()
  }
}
