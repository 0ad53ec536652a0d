// The server's keep-alive enforcement policy, as grpc-go applies it for etcd (keepalive.EnforcementPolicy
// with MinTime = --grpc-keepalive-min-time and PermitWithoutStream = false): a client that pings more often
// than the policy allows gets GOAWAY(ENHANCE_YOUR_CALM, "too_many_pings") and its connection closed. grpc-go
// and grpc-js clients read that debug data and double their keep-alive interval before they reconnect.
//
// grpc-js has no such policy and node:http2 answers PINGs inside nghttp2 without telling JavaScript, so
// the HTTP/2 front sees the client's PINGs in its frame filter and the server's frames as they are written.
// Hand-written because it is grpc-go's exact rule (http2_server.go handlePing), which no library offers:
//
// - a ping while the connection has open streams strikes when it comes sooner than MinTime after the last;
// - a ping while it has none strikes when it comes sooner than two hours after the last (grpc-go's
//   defaultPingTimeout), since the policy does not permit pings without streams;
// - the first ping after the server sent headers or data never strikes, and clears the strikes: the
//   server's own traffic may be what made the client ping;
// - the third strike over maxPingStrikes (2) ends the connection.

/** grpc-go's maxPingStrikes: strikes tolerated before the connection is closed. */
export const MAX_PING_STRIKES = 2

/** grpc-go's defaultPingTimeout: the interval a client without streams must keep between pings. */
export const PING_WITHOUT_STREAMS_MS = 2 * 60 * 60 * 1000

/** etcd's --grpc-keepalive-min-time default. */
export const DEFAULT_KEEPALIVE_MIN_TIME_MS = 5000

/** The GOAWAY debug data grpc clients look for to back their keep-alive off. */
export const TOO_MANY_PINGS = 'too_many_pings'

/** HTTP/2 ENHANCE_YOUR_CALM. */
export const ENHANCE_YOUR_CALM = 0xb

/** One connection's ping bookkeeping. */
export class KeepaliveEnforcement {
  private strikes = 0
  /** When the last ping came; none yet counts as long ago (grpc-go's zero time). */
  private lastPingAt = Number.NEGATIVE_INFINITY
  private serverSent = false

  constructor(private readonly minTimeMs: number, private readonly now: () => number = () => performance.now()) {}

  /** The server wrote HEADERS or DATA. */
  sent(): void {
    this.serverSent = true
  }

  /** A PING (not an ACK) from the client, while `openStreams` streams are open; true: close the connection. */
  ping(openStreams: number): boolean {
    const now = this.now()
    const last = this.lastPingAt
    this.lastPingAt = now
    if (this.serverSent) {
      this.serverSent = false
      this.strikes = 0
      return false
    }
    const minInterval = openStreams < 1 ? PING_WITHOUT_STREAMS_MS : this.minTimeMs
    if (last + minInterval > now) this.strikes++
    return this.strikes > MAX_PING_STRIKES
  }
}
