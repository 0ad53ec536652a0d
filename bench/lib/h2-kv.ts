// A KV client over bare node:http2 (`--client h2`): each request is a gRPC unary call written by hand
// (a POST to /etcdserverpb.KV/<Method>, one length-prefixed protobuf message, the status from the trailers),
// with requests encoded and responses decoded by hand for just the fields the bench's workloads use.
// It costs the load generator about half of what grpc-js does per request (bench/README.md), so a
// measurement shows more of the server and less of the client. Same wire as any gRPC client: etcd and
// etcdlite cannot tell the difference.
import * as http2 from 'node:http2'
import { Reader, WIRE_LEN, WIRE_VARINT, WireError, lenFieldSize, varintSize, writeBytesField, writeVarintField } from '../../src/pkg/proto-wire.js'
import type { KvTransport, TxnOp, TxnOutcome, TxnSpec } from './kv-transport.js'

/** A request that ended with a gRPC status other than OK (or never got one): `code` is that status. */
export class H2CallError extends Error {
  constructor(readonly code: number, message: string) {
    super(`${code} ${message}`)
    this.name = 'H2CallError'
  }
}

// ---------------------------------------------------------------------------------------------------
// Encoding: a message is a list of fields, each a byte string (nested messages encoded first) or a varint

type Field = readonly [field: number, value: Uint8Array | number]

const fieldSize = ([, v]: Field): number => (typeof v === 'number' ? 1 + varintSize(v) : lenFieldSize(v.length))

/** Encode `fields` in order (numbers < 16 take a one-byte tag; the compare's range_end, 64, is never sent). */
export function encodeMessage(fields: readonly Field[]): Uint8Array {
  let size = 0
  for (const f of fields) {
    if (f[0] >= 16) throw new Error(`h2-kv: field ${f[0]} needs a longer tag than this encoder writes`)
    size += fieldSize(f)
  }
  const out = Buffer.allocUnsafe(size)
  let pos = 0
  for (const [f, v] of fields) pos = typeof v === 'number' ? writeVarintField(out, pos, f, v) : writeBytesField(out, pos, f, v)
  return out
}

const COMPARE_VALUE = 3
const RESULT_EQUAL = 0

function encodeOp(op: TxnOp): Uint8Array {
  // RequestOp: request_range = 1, request_put = 2.
  return 'put' in op
    ? encodeMessage([[2, encodeMessage([[1, op.put.key], [2, op.put.value]])]])
    : encodeMessage([[1, encodeMessage([[1, op.range.key]])]])
}

/** TxnRequest: compare = 1 (result = 1, target = 2, key = 3, value = 7), success = 2, failure = 3. */
export function encodeTxn(spec: TxnSpec): Uint8Array {
  const fields: Field[] = []
  const cmp = spec.compareValue
  // value sits in a oneof: sent even when empty. result EQUAL is protobuf's default, sent all the same.
  if (cmp !== undefined) fields.push([1, encodeMessage([[1, RESULT_EQUAL], [2, COMPARE_VALUE], [3, cmp.key], [7, cmp.value]])])
  for (const op of spec.success) fields.push([2, encodeOp(op)])
  for (const op of spec.failure ?? []) fields.push([3, encodeOp(op)])
  return encodeMessage(fields)
}

/** RangeRequest: key = 1, range_end = 2, serializable = 7. */
export function encodeRange(key: Uint8Array, rangeEnd: Uint8Array | undefined, serializable: boolean): Uint8Array {
  const fields: Field[] = [[1, key]]
  if (rangeEnd !== undefined) fields.push([2, rangeEnd])
  if (serializable) fields.push([7, 1])
  return encodeMessage(fields)
}

/** One gRPC message on the wire: the uncompressed flag, a 4-byte big-endian length, the message. */
export function frameMessage(msg: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(5 + msg.length)
  out[0] = 0
  out.writeUInt32BE(msg.length, 1)
  out.set(msg, 5)
  return out
}

/** A PutRequest (key = 1, value = 2), framed: the hot path, written in one go. */
function framedPut(key: Uint8Array, value: Uint8Array): Buffer {
  const len = lenFieldSize(key.length) + lenFieldSize(value.length)
  const out = Buffer.allocUnsafe(5 + len)
  out[0] = 0
  out.writeUInt32BE(len, 1)
  writeBytesField(out, writeBytesField(out, 5, 1, key), 2, value)
  return out
}

// ---------------------------------------------------------------------------------------------------
// Decoding: only what the workloads check

/** Call `take` for each field of `msg`; it reads the value and returns true, or returns false to skip it. */
function eachField(msg: Uint8Array, take: (field: number, wireType: number, r: Reader) => boolean): void {
  const r = new Reader(msg)
  while (!r.done) {
    const tag = r.varint()
    if (!take(tag >>> 3, tag & 7, r)) r.skip(tag & 7)
  }
}

/** Each field of `msg` with number `field` and wire type LEN, in order. */
function lenFields(msg: Uint8Array, field: number): Uint8Array[] {
  const out: Uint8Array[] = []
  eachField(msg, (f, wt, r) => f === field && wt === WIRE_LEN && out.push(r.bytes()) > 0)
  return out
}

/** The last varint field `field` of `msg` (protobuf's rule for a repeated scalar field), or 0. */
function varintField(msg: Uint8Array, field: number): number {
  let v = 0
  eachField(msg, (f, wt, r) => {
    if (f !== field || wt !== WIRE_VARINT) return false
    v = r.varint()
    return true
  })
  return v
}

/** RangeResponse: the value (5) of each KeyValue in kvs (2). */
export function decodeRangeValues(msg: Uint8Array): Uint8Array[] {
  return lenFields(msg, 2).map((kv) => lenFields(kv, 5).at(-1) ?? Buffer.alloc(0))
}

/** PutResponse: whether it has its header (1). */
export const putHasHeader = (msg: Uint8Array): boolean => lenFields(msg, 1).length !== 0

/** TxnResponse: succeeded (2), the responses (3), and the first one's first value if it is a range (ResponseOp 1). */
export function decodeTxn(msg: Uint8Array): TxnOutcome {
  const responses = lenFields(msg, 3)
  const first = responses[0]
  const range = first === undefined ? undefined : lenFields(first, 1).at(-1)
  return { succeeded: varintField(msg, 2) !== 0, responses: responses.length, firstRangeValue: range === undefined ? undefined : decodeRangeValues(range)[0] }
}

// ---------------------------------------------------------------------------------------------------
// The calls

/** The one message of a gRPC response body (several DATA chunks, joined). */
export function unframe(body: Buffer): Uint8Array {
  if (body.length < 5) throw new WireError(`a response of ${body.length} bytes, not one gRPC message`)
  if (body[0] !== 0) throw new WireError('a compressed response (none was asked for)')
  const len = body.readUInt32BE(1)
  if (body.length !== 5 + len) throw new WireError(`a response of ${body.length} bytes for a message of ${len}`)
  return body.subarray(5)
}

/** grpc-status and grpc-message of a header block; undefined when it has no status (the trailers follow). */
function statusOf(h: http2.IncomingHttpHeaders): { code: number; message: string } | undefined {
  const s = h['grpc-status']
  if (s === undefined) return undefined
  const m = h['grpc-message']
  return { code: Number(s), message: typeof m === 'string' ? decodeURIComponent(m) : '' }
}

class H2Kv implements KvTransport {
  private readonly headers: Record<string, string>

  constructor(private readonly session: http2.ClientHttp2Session, token: string | undefined) {
    this.headers = { 'content-type': 'application/grpc', te: 'trailers', ...(token === undefined ? {} : { token }) }
  }

  async put(key: Uint8Array, value: Uint8Array): Promise<void> {
    if (!putHasHeader(await this.call('Put', framedPut(key, value)))) throw new Error('put: response without header')
  }

  async range(key: Uint8Array, rangeEnd: Uint8Array | undefined, serializable: boolean): Promise<Uint8Array[]> {
    return decodeRangeValues(await this.call('Range', frameMessage(encodeRange(key, rangeEnd, serializable))))
  }

  async txn(spec: TxnSpec): Promise<TxnOutcome> {
    return decodeTxn(await this.call('Txn', frameMessage(encodeTxn(spec))))
  }

  close(): void {
    this.session.close()
  }

  /** One unary call: the response message, or H2CallError with the status it ended with. */
  private call(method: string, body: Buffer): Promise<Uint8Array> {
    return new Promise<Uint8Array>((resolve, reject) => {
      const chunks: Buffer[] = []
      let status: { code: number; message: string } | undefined
      const st = this.session.request({ ':method': 'POST', ':path': `/etcdserverpb.KV/${method}`, ...this.headers })
      // A trailers-only response (an error, usually) carries its status in the headers.
      st.on('response', (h) => {
        status ??= statusOf(h)
      })
      st.on('trailers', (h: http2.IncomingHttpHeaders) => {
        status ??= statusOf(h)
      })
      st.on('data', (c: Buffer) => chunks.push(c))
      st.on('error', () => {
        // Reported on 'close' as the reset it is.
      })
      st.on('close', () => {
        if (status === undefined) reject(new H2CallError(14, `stream closed without a gRPC status (HTTP/2 code ${st.rstCode})`))
        else if (status.code !== 0) reject(new H2CallError(status.code, status.message))
        else {
          try {
            resolve(unframe(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)))
          } catch (err) {
            reject(err instanceof Error ? err : new Error(String(err)))
          }
        }
      })
      st.end(body)
    })
  }
}

/** `n` HTTP/2 connections to `endpoint` (host:port, plaintext), each with its SETTINGS exchanged. */
export async function openH2Transports(endpoint: string, n: number, token: string | undefined): Promise<KvTransport[]> {
  const sessions: http2.ClientHttp2Session[] = []
  try {
    for (let i = 0; i < n; i++) {
      const s = http2.connect(`http://${endpoint}`)
      sessions.push(s)
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`h2: no connection to ${endpoint} within 10 s`)), 10_000)
        s.once('connect', () => {
          clearTimeout(timer)
          resolve()
        })
        s.once('error', (err: Error) => {
          clearTimeout(timer)
          reject(err)
        })
      })
    }
  } catch (err) {
    for (const s of sessions) s.destroy()
    throw err
  }
  return sessions.map((s) => {
    // A session error after the connect ends its streams, each with its own rejection.
    s.on('error', () => undefined)
    return new H2Kv(s, token)
  })
}
