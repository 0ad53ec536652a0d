// What connect() takes.
import type { BackoffOptions } from './backoff.js'

/** TLS for the connection (an https:// endpoint, or any endpoint when given). */
export interface ConnectTlsOptions {
  /** CA certificate(s) (PEM) to verify the server with; default: Node's root CAs. */
  readonly ca?: string | Uint8Array
  /** Client certificate and key (PEM), for a server that verifies clients (etcd's --client-cert-auth). */
  readonly cert?: string | Uint8Array
  readonly key?: string | Uint8Array
  /** The name the server's certificate must carry; default: the endpoint's host. */
  readonly serverName?: string
}

export interface ConnectOptions {
  /**
   * The cluster's client URLs: `host:port`, `http://host:port` or `https://host:port`. Calls go to one of
   * them at a time; one that fails hands over to the next, round-robin.
   */
  readonly endpoints: readonly string[]
  /** A token from Authenticate, sent with every call as it is (it cannot be renewed). */
  readonly token?: string
  /** A user to authenticate as (with `password`); its token is renewed whenever the server refuses it. */
  readonly user?: string
  readonly password?: string
  readonly tls?: ConnectTlsOptions
  /**
   * How long connect() tries to reach an endpoint, and how long a call retries over unreachable endpoints
   * before it fails (default 5000 ms). Watches and keep-alives retry until closed.
   */
  readonly dialTimeoutMs?: number
  /** Waits between attempts (default 50 ms doubling up to 5 s, full jitter). */
  readonly backoff?: Partial<BackoffOptions>
}

export const DEFAULT_DIAL_TIMEOUT_MS = 5000
