// Raw HTTP/1.1 requests for the v2 API tests, and their answers reduced to what must match between etcdlite
// and etcd: status, the headers a v2 client reads, and the body with what differs by nature (member and
// cluster IDs, times, ports, TTL seconds) replaced; raft indexes become the step from the previous answer
// that carried one (etcd starts from its own count of entries).
import { request, type Agent, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import assert from 'node:assert/strict'

export interface V2Request {
  readonly method: string
  /** Sent exactly as written (percent-encoding, dot segments and all). */
  readonly path: string
  readonly body?: string
  readonly headers?: Readonly<Record<string, string>>
  /** Basic auth. */
  readonly user?: readonly [string, string]
}

export interface RawResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string | string[] | undefined>>
  readonly body: string
}

/** TLS material for https endpoints. */
export interface ClientTls {
  readonly ca: string
  readonly cert?: string
  readonly key?: string
}

/** Send one request on a fresh connection; urlencoded when the body does not look like JSON. */
export function send(endpoint: string, r: V2Request, tls?: ClientTls, agent?: Agent): Promise<RawResponse> {
  const i = endpoint.lastIndexOf(':')
  const host = endpoint.slice(0, i)
  const port = Number(endpoint.slice(i + 1))
  const headers: Record<string, string> = {}
  if (r.body !== undefined) {
    // node:http sends a DELETE's body with neither a length nor chunking unless told its length.
    headers['Content-Length'] = String(Buffer.byteLength(r.body))
    if (!r.body.startsWith('{')) headers['Content-Type'] = 'application/x-www-form-urlencoded'
  }
  if (r.user !== undefined) headers['Authorization'] = `Basic ${Buffer.from(`${r.user[0]}:${r.user[1]}`).toString('base64')}`
  Object.assign(headers, r.headers ?? {})
  const opts = { host, port, method: r.method, path: r.path, headers, agent: agent ?? false }
  return new Promise((resolve, reject) => {
    const onResponse = (res: IncomingMessage): void => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }))
      res.on('error', reject)
    }
    const req = tls === undefined ? request(opts, onResponse) : httpsRequest({ ...opts, ca: tls.ca, ...(tls.cert === undefined ? {} : { cert: tls.cert, key: tls.key }) }, onResponse)
    req.on('error', reject)
    req.end(r.body)
  })
}

/** What is compared of an answer. */
export interface Outcome {
  readonly status: number
  readonly type?: string
  readonly etcdIndex?: string
  readonly raftStep?: number | 'first'
  readonly allow?: string
  readonly location?: string
  readonly clusterId?: boolean
  readonly body: string
}

/** Replaces what differs by nature between two servers. */
export function normalizeBody(body: string): string {
  return body
    .replace(/\b[0-9a-f]{16}\b/g, 'ID')
    .replace(/"(expiration|startTime)":"[^"]*"/g, '"$1":"T"')
    .replace(/"uptime":"[^"]*"/g, '"uptime":"T"')
    .replace(/"ttl":\d+/g, '"ttl":"N"')
    .replace(/127\.0\.0\.1:\d+/g, 'HOST')
}

/** Sort every "nodes" list by key (an unsorted listing is in map order, which etcd randomizes). */
export function sortListing(body: string): string {
  const sortNodes = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sortNodes)
    if (typeof v !== 'object' || v === null) return v
    const out: Record<string, unknown> = {}
    for (const [k, x] of Object.entries(v)) out[k] = sortNodes(x)
    const nodes = out['nodes']
    if (Array.isArray(nodes)) nodes.sort((a: { key?: string }, b: { key?: string }) => ((a.key ?? '') < (b.key ?? '') ? -1 : 1))
    return out
  }
  return `${JSON.stringify(sortNodes(JSON.parse(body)))}\n`
}

/** Reduces a run's answers, tracking the raft index across them. */
export class OutcomeReducer {
  private lastRaft: number | undefined

  reduce(r: RawResponse, unordered = false): Outcome {
    const h = (name: string): string | undefined => {
      const v = r.headers[name]
      return Array.isArray(v) ? v.join(',') : v
    }
    const raw = h('x-raft-index')
    let raftStep: number | 'first' | undefined
    if (raw !== undefined) {
      const n = Number(raw)
      raftStep = this.lastRaft === undefined ? 'first' : n - this.lastRaft
      this.lastRaft = n
    }
    const body = unordered && r.body.startsWith('{') ? sortListing(r.body) : r.body
    const type = h('content-type')
    const etcdIndex = h('x-etcd-index')
    const allow = h('allow')
    const location = h('location')
    return {
      status: r.status,
      ...(type === undefined ? {} : { type }),
      ...(etcdIndex === undefined ? {} : { etcdIndex }),
      ...(raftStep === undefined ? {} : { raftStep }),
      ...(allow === undefined ? {} : { allow }),
      ...(location === undefined ? {} : { location }),
      ...(h('x-etcd-cluster-id') === undefined ? {} : { clusterId: true }),
      body: normalizeBody(body),
    }
  }
}

/**
 * etcd serves before its leader has written the cluster version into the v2 store (index 3, which a fresh
 * etcdlite starts at): wait for it, polling /version, whose etcdcluster is "not_decided" until then.
 */
export async function clusterVersionDecided(endpoint: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const v = JSON.parse((await send(endpoint, { method: 'GET', path: '/version' })).body) as { etcdcluster?: string }
    if (v.etcdcluster !== 'not_decided') return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  assert.fail('etcd never decided its cluster version')
}
