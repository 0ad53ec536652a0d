// The endpoints a client talks to: one gRPC channel per endpoint, one endpoint in use at a time, and the
// next one (round-robin) once it fails. A failed endpoint's channel is closed and made afresh at its next
// use, so the moment of the next connection attempt is the caller's backoff's to choose, not grpc-js's own
// (which waits a second and more after a failure).
import * as grpc from '@grpc/grpc-js'
import type { ConnectTlsOptions } from './options.js'

/** One parsed endpoint. */
export interface Endpoint {
  /** host:port as grpc-js dials it. */
  readonly target: string
  readonly secure: boolean
}

/** `host:port`, `http://host:port` or `https://host:port` (a bare host:port uses TLS only when `tls` is given). */
export function parseEndpoint(s: string, tls: boolean): Endpoint {
  const m = /^(https?):\/\/([^/]+)\/?$/.exec(s)
  const target = m?.[2] ?? s
  if (target === '' || target.includes('/') || !/:\d+$/.test(target)) {
    throw new TypeError(`etcdlite: connect: endpoint must be host:port or http(s)://host:port, got '${s}'`)
  }
  return { target, secure: m === null ? tls : m[1] === 'https' }
}

const pem = (v: string | Uint8Array | undefined): Buffer | null => (v === undefined ? null : Buffer.from(v))

function credentials(e: Endpoint, tls: ConnectTlsOptions | undefined): grpc.ChannelCredentials {
  if (!e.secure) return grpc.credentials.createInsecure()
  return grpc.credentials.createSsl(pem(tls?.ca), pem(tls?.key), pem(tls?.cert))
}

/** What each channel is opened with. */
const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  // etcd's own client takes responses of any size the server sends (clientv3's MaxCallRecvMsgSize).
  'grpc.max_receive_message_length': -1,
  // A connection that stops answering pings is given up on; 30 s stays clear of etcd's 5 s ping policy.
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
}

/** A channel and the generation it belongs to (see failed()). */
export interface PickedChannel {
  readonly client: grpc.Client
  readonly index: number
  readonly generation: number
}

export class Endpoints {
  private readonly clients: (grpc.Client | undefined)[]
  private readonly generations: number[]
  private current = 0
  private closed = false

  constructor(
    private readonly list: readonly Endpoint[],
    private readonly tls: ConnectTlsOptions | undefined,
  ) {
    this.clients = list.map(() => undefined)
    this.generations = list.map(() => 0)
  }

  get size(): number {
    return this.list.length
  }

  /** The channel of the endpoint in use (opened now if it is not open). */
  pick(): PickedChannel {
    if (this.closed) throw new Error('etcdlite: the client is closed')
    const index = this.current
    let client = this.clients[index]
    if (client === undefined) {
      const e = this.list[index] as Endpoint
      const serverName = this.tls?.serverName
      const opts = serverName === undefined ? CHANNEL_OPTIONS : { ...CHANNEL_OPTIONS, 'grpc.ssl_target_name_override': serverName }
      client = new grpc.Client(e.target, credentials(e, this.tls), opts)
      this.clients[index] = client
    }
    return { client, index, generation: this.generations[index] as number }
  }

  /**
   * The endpoint of `lease` failed: close its channel and move on to the next endpoint. A later report about
   * the same channel (other calls that failed with it) changes nothing.
   */
  failed(lease: PickedChannel): void {
    if (this.generations[lease.index] !== lease.generation) return
    this.generations[lease.index] = lease.generation + 1
    this.clients[lease.index]?.close()
    this.clients[lease.index] = undefined
    if (this.current === lease.index) this.current = (lease.index + 1) % this.list.length
  }

  close(): void {
    this.closed = true
    for (const c of this.clients) c?.close()
    this.clients.fill(undefined)
  }
}
