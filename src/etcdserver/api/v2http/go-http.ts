// Go's net/http request and response semantics over node:http, for handlers ported from etcd's v2http:
// a request's decoded path (a byte string), its form (Request.ParseForm, with Go's precedence, size limit and
// error texts), basic auth and verified TLS chains; a response whose headers are set before WriteHeader,
// whose status defaults to 200 on the first write, and which goes out with a Content-Length when the
// handler wrote at most 2048 bytes and chunked otherwise, as Go's server sends it. Hand-written: node:http
// has no form parsing, and its own defaults (no Content-Length on HEAD, headers as given) differ from Go's.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { TLSSocket, type DetailedPeerCertificate } from 'node:tls'
import { utf8ToBstr } from '../../../pkg/bstr.js'
import { parseQuery, type Values } from '../../../pkg/go-url.js'

/** Go's bufferBeforeChunkingSize: a response up to this size gets a Content-Length. */
const CHUNKING_THRESHOLD = 2048
/** Go's ParseForm limit on an urlencoded body (10 MB). */
const MAX_FORM_BYTES = 10 << 20

/** A request as Go's handlers see it. */
export class GoRequest {
  readonly raw: IncomingMessage
  readonly method: string
  /** The decoded path, a byte string. */
  readonly path: string
  readonly rawQuery: string
  private body: Promise<Buffer> | undefined
  private form: Promise<{ readonly values: Values; readonly error: string | undefined }> | undefined

  constructor(raw: IncomingMessage, path: string, rawQuery: string) {
    this.raw = raw
    this.method = raw.method ?? 'GET'
    this.path = path
    this.rawQuery = rawQuery
  }

  /** Header.Get: the first value, or "". */
  header(name: string): string {
    const v = this.raw.headers[name.toLowerCase()]
    return (Array.isArray(v) ? v[0] : v) ?? ''
  }

  /** The whole body (read once; later calls get the same bytes). */
  readBody(): Promise<Buffer> {
    this.body ??= new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = []
      this.raw.on('data', (c: Buffer) => chunks.push(c))
      this.raw.on('end', () => resolve(Buffer.concat(chunks)))
      this.raw.on('error', reject)
    })
    return this.body
  }

  /**
   * Request.ParseForm: for POST, PUT and PATCH with an urlencoded body, the body's values first, then the
   * query's. Resolves with the values and Go's first error text (the values parsed so far stay).
   */
  parseForm(): Promise<{ readonly values: Values; readonly error: string | undefined }> {
    this.form ??= (async () => {
      const values: Values = new Map()
      let error: string | undefined
      if (this.method === 'POST' || this.method === 'PUT' || this.method === 'PATCH') {
        const ct = parseMediaType(this.header('Content-Type') === '' ? 'application/octet-stream' : this.header('Content-Type'))
        error = ct.error
        if (ct.type === 'application/x-www-form-urlencoded') {
          const body = await this.readBody()
          if (body.length > MAX_FORM_BYTES) {
            error = 'http: POST too large'
          } else {
            const e = parseQuery(body.toString('latin1'), values)
            error ??= e
          }
        }
      }
      const fromQuery: Values = new Map()
      const e = parseQuery(this.rawQuery, fromQuery)
      error ??= e
      for (const [k, vs] of fromQuery) values.set(k, [...(values.get(k) ?? []), ...vs])
      return { values, error }
    })()
    return this.form
  }

  /** Request.BasicAuth: "Basic " (any case) and standard base64 of "user:password". */
  basicAuth(): { readonly username: string; readonly password: string } | undefined {
    const auth = this.header('Authorization')
    if (auth.length < 6 || auth.slice(0, 6).toLowerCase() !== 'basic ') return undefined
    const b64 = auth.slice(6).replace(/[\r\n]/g, '')
    if (b64.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) return undefined
    const cs = Buffer.from(b64, 'base64').toString('latin1')
    const i = cs.indexOf(':')
    if (i < 0) return undefined
    return { username: cs.slice(0, i), password: cs.slice(i + 1) }
  }

  /**
   * The common names along the verified client certificate chain, leaf first, when the connection's
   * certificate was verified for --client-cert-auth (the TLS front marks only such sockets authorized).
   */
  verifiedCommonNames(): string[] {
    const s = this.raw.socket
    if (!(s instanceof TLSSocket) || !s.authorized) return []
    const out: string[] = []
    let cert: DetailedPeerCertificate | undefined = s.getPeerCertificate(true)
    const seen = new Set<DetailedPeerCertificate>()
    while (cert !== undefined && Object.keys(cert).length > 0 && !seen.has(cert)) {
      seen.add(cert)
      const cn: unknown = (cert.subject as Record<string, unknown> | undefined)?.['CN']
      // Go's pkix.Name keeps the last CN attribute of a subject.
      const last = Array.isArray(cn) ? (cn[cn.length - 1] as unknown) : cn
      out.push(typeof last === 'string' ? utf8ToBstr(last) : '')
      cert = cert.issuerCertificate
    }
    return out
  }
}

/** mime.ParseMediaType as parsePostForm uses it: the lower-cased type, and Go's error text if malformed. */
export function parseMediaType(v: string): { readonly type: string; readonly error: string | undefined } {
  const token = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+/
  const [head = '', ...params] = v.split(';')
  const s = head.trim()
  const t = token.exec(s)
  if (t === null) return { type: '', error: 'mime: no media type' }
  let rest = s.slice(t[0].length)
  let type = t[0]
  if (rest !== '') {
    if (!rest.startsWith('/')) return { type: '', error: 'mime: expected slash after first token' }
    const sub = token.exec(rest.slice(1))
    if (sub === null) return { type: '', error: 'mime: expected token after slash' }
    type += `/${sub[0]}`
    rest = rest.slice(1 + sub[0].length)
    if (rest !== '') return { type: '', error: 'mime: unexpected content after media subtype' }
  }
  let error: string | undefined
  for (const p of params) {
    if (p.trim() === '') continue
    if (!/^\s*[!#$%&'*+\-.^_`|~0-9A-Za-z]+\s*=\s*("([^"\\]|\\.)*"|[!#$%&'*+\-.^_`|~0-9A-Za-z]+)\s*$/.test(p)) error = 'mime: invalid media parameter'
  }
  return { type: type.toLowerCase(), error }
}

/** Go's canonical header names for the headers these handlers set. */
type HeaderName = 'Content-Type' | 'X-Etcd-Cluster-Id' | 'X-Etcd-Index' | 'X-Raft-Index' | 'X-Raft-Term' | 'Allow' | 'X-Content-Type-Options' | 'Location'

/** A ResponseWriter: headers, then a status, then a body; sent when the handler is done (or flushes). */
export class GoResponse {
  readonly raw: ServerResponse
  private readonly method: string
  private readonly headers = new Map<HeaderName, string[]>()
  private status: number | undefined
  private readonly chunks: Buffer[] = []
  private flushed = false

  constructor(raw: ServerResponse, method: string) {
    this.raw = raw
    this.method = method
  }

  setHeader(name: HeaderName, value: string): void {
    this.headers.set(name, [value])
  }

  addHeader(name: HeaderName, value: string): void {
    this.headers.set(name, [...(this.headers.get(name) ?? []), value])
  }

  /** WriteHeader: the first call wins. */
  writeHeader(code: number): void {
    this.status ??= code
  }

  /** Write text (UTF-16, sent as UTF-8) or bytes. */
  write(body: string | Buffer): void {
    this.writeHeader(200)
    const b = typeof body === 'string' ? Buffer.from(body, 'utf8') : body
    if (this.flushed) {
      if (this.method !== 'HEAD') this.raw.write(b)
    } else {
      this.chunks.push(b)
    }
  }

  /** http.Flusher: send the headers (and what is written) now; the rest goes chunked. */
  flush(): void {
    if (this.flushed) return
    this.writeHeader(200)
    this.flushed = true
    this.raw.writeHead(this.status ?? 200, this.headerObject(undefined))
    this.raw.flushHeaders()
    const body = Buffer.concat(this.chunks)
    if (body.length > 0 && this.method !== 'HEAD') this.raw.write(body)
  }

  /** True while what was written after a flush still waits in the socket's buffer. */
  get backedUp(): boolean {
    return this.raw.writableNeedDrain
  }

  /** The handler returned: send everything. */
  finish(): void {
    if (this.raw.writableEnded) return
    if (this.flushed) {
      this.raw.end()
      return
    }
    const status = this.status ?? 200
    const body = Buffer.concat(this.chunks)
    const bodyAllowed = !(status === 204 || status === 304 || (status >= 100 && status < 200))
    let length: number | undefined
    if (bodyAllowed && body.length <= CHUNKING_THRESHOLD && (this.method !== 'HEAD' || body.length > 0)) length = body.length
    if (bodyAllowed && !this.headers.has('Content-Type') && body.length > 0) this.headers.set('Content-Type', [sniff(body)])
    this.raw.writeHead(status, this.headerObject(length))
    this.raw.end(this.method === 'HEAD' || !bodyAllowed ? undefined : body)
  }

  private headerObject(length: number | undefined): Record<string, string | string[]> {
    const out: Record<string, string | string[]> = {}
    for (const [k, v] of this.headers) out[k] = v.length === 1 ? (v[0] ?? '') : v
    if (length !== undefined) out['Content-Length'] = String(length)
    return out
  }
}

/** http.DetectContentType for the bodies these handlers write without a type: text. */
function sniff(body: Buffer): string {
  return body.includes(0) ? 'application/octet-stream' : 'text/plain; charset=utf-8'
}

/** http.Error: the message and a newline, as text that must not be sniffed. */
export function httpError(w: GoResponse, msg: string, code: number): void {
  w.setHeader('Content-Type', 'text/plain; charset=utf-8')
  w.setHeader('X-Content-Type-Options', 'nosniff')
  w.writeHeader(code)
  w.write(`${msg}\n`)
}
