// gRPC server reflection as grpcurl uses it, without .proto files: a client speaking grpc.reflection.v1alpha
// and v1 ServerReflectionInfo lists the services, fetches descriptors the way grpcurl does (the file holding
// a symbol, then every import by file name), links them strictly (a type must be declared in the file or one
// it imports, as Go's protodesc requires), describes a service and a message, and calls KV Put and Range
// with JSON bodies (bytes as base64, as grpcurl -d takes them) through messages built from the descriptors.
// Put and Range use etcdlite's hand-written codec, so this also shows that reflection describes what that
// codec speaks. (etcd 3.4 serves no reflection, so there is no reference run.)
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import * as grpc from '@grpc/grpc-js'
import * as protoLoader from '@grpc/proto-loader'
import descriptor from 'protobufjs/ext/descriptor/index.js'
import { openEtcd, type Etcd } from '../../../src/embed/etcd.js'
import { loadReflectionPackageDefinition } from '../../../src/grpc/proto.js'

/** The parts of a decoded FileDescriptorProto this client reads (protobufjs camelCase fields). */
interface FieldDesc { readonly name: string; readonly number: number; readonly typeName: string }
interface MessageDesc { readonly name: string; readonly field: readonly FieldDesc[]; readonly nestedType: readonly MessageDesc[]; readonly enumType: readonly { readonly name: string }[] }
interface MethodDesc { readonly name: string; readonly inputType: string; readonly outputType: string; readonly clientStreaming: boolean; readonly serverStreaming: boolean }
interface FileDesc {
  readonly name: string
  readonly package: string
  readonly dependency: readonly string[]
  readonly messageType: readonly MessageDesc[]
  readonly enumType: readonly { readonly name: string }[]
  readonly service: readonly { readonly name: string; readonly method: readonly MethodDesc[] }[]
}

interface ReflectionResponse {
  readonly list_services_response?: { readonly service: readonly { readonly name: string }[] }
  readonly file_descriptor_response?: { readonly file_descriptor_proto: readonly Buffer[] }
  readonly error_response?: { readonly error_code: number; readonly error_message: string }
}

type ReflectionVersion = 'v1alpha' | 'v1'

/** One ServerReflectionInfo stream; ask() sends a request and resolves with its response (in order). */
class ReflectionClient {
  private readonly client: grpc.Client
  private readonly call: grpc.ClientDuplexStream<object, ReflectionResponse>
  private readonly waiting: ((r: ReflectionResponse) => void)[] = []
  /** Raw descriptors by file name, as received. */
  readonly files = new Map<string, Buffer>()

  constructor(endpoint: string, version: ReflectionVersion) {
    const pkg = grpc.loadPackageDefinition(loadReflectionPackageDefinition()) as unknown as {
      grpc: { reflection: Record<ReflectionVersion, { ServerReflection: grpc.ServiceClientConstructor }> }
    }
    this.client = new pkg.grpc.reflection[version].ServerReflection(endpoint, grpc.credentials.createInsecure())
    const open = (this.client as unknown as Record<string, () => grpc.ClientDuplexStream<object, ReflectionResponse>>)['ServerReflectionInfo']
    if (open === undefined) throw new Error('no ServerReflectionInfo')
    this.call = open.call(this.client)
    this.call.on('data', (r: ReflectionResponse) => this.waiting.shift()?.(r))
    this.call.on('error', () => undefined)
  }

  ask(req: object): Promise<ReflectionResponse> {
    return new Promise((resolve) => {
      this.waiting.push(resolve)
      this.call.write(req)
    })
  }

  async listServices(): Promise<string[]> {
    const r = await this.ask({ list_services: '*' })
    return (r.list_services_response?.service ?? []).map((s) => s.name)
  }

  private keep(r: ReflectionResponse): FileDesc[] {
    if (r.error_response !== undefined) throw new Error(`reflection error ${r.error_response.error_code}: ${r.error_response.error_message}`)
    return (r.file_descriptor_response?.file_descriptor_proto ?? []).map((b) => {
      const f = descriptor.FileDescriptorProto.decode(b) as unknown as FileDesc
      this.files.set(f.name, b)
      return f
    })
  }

  /** grpcurl's way: the file declaring `symbol`, then (by name) every import not yet seen, transitively. */
  async resolve(symbol: string): Promise<Map<string, FileDesc>> {
    const seen = new Map<string, FileDesc>()
    const queue = this.keep(await this.ask({ file_containing_symbol: symbol }))
    while (queue.length > 0) {
      const f = queue.shift()
      if (f === undefined || seen.has(f.name)) continue
      seen.set(f.name, f)
      for (const dep of f.dependency) {
        if (!seen.has(dep)) queue.push(...this.keep(await this.ask({ file_by_filename: dep })))
      }
    }
    return seen
  }

  close(): void {
    this.call.end()
    this.client.close()
  }
}

/** Every fully qualified name (".pkg.Msg") a file declares. */
function declared(f: FileDesc): Set<string> {
  const out = new Set<string>()
  const msg = (m: MessageDesc, scope: string): void => {
    const full = `${scope}.${m.name}`
    out.add(full)
    for (const n of m.nestedType) msg(n, full)
    for (const e of m.enumType) out.add(`${full}.${e.name}`)
  }
  const root = f.package === '' ? '' : `.${f.package}`
  for (const m of f.messageType) msg(m, root)
  for (const e of f.enumType) out.add(`${root}.${e.name}`)
  for (const s of f.service) out.add(`${root}.${s.name}`)
  return out
}

/**
 * Link strictly, like Go's protodesc: a reference resolves (C++ scoping, innermost scope first) only among
 * the file's own declarations and those of its direct imports. Returns the fully qualified name, or throws.
 */
function linker(files: ReadonlyMap<string, FileDesc>): (file: FileDesc, scope: string, ref: string) => string {
  return (file, scope, ref) => {
    const visible = new Set(declared(file))
    for (const d of file.dependency) for (const n of declared(files.get(d) ?? assert.fail(`import ${d} not fetched`))) visible.add(n)
    if (ref.startsWith('.')) {
      if (visible.has(ref)) return ref
    } else {
      for (let s = scope; ; s = s.slice(0, Math.max(0, s.lastIndexOf('.')))) {
        const full = `${s === '' ? '' : `.${s}`}.${ref}`
        if (visible.has(full)) return full
        if (s === '') break
      }
    }
    throw new Error(`${file.name}: cannot resolve type ${ref} (scope ${scope}, imports [${file.dependency.join(', ')}])`)
  }
}

/** grpcurl-style descriptions: every message field's resolved type, and a service's rpcs. */
function describeAll(files: ReadonlyMap<string, FileDesc>): { messages: Map<string, string[]>; services: Map<string, string[]> } {
  const link = linker(files)
  const messages = new Map<string, string[]>()
  const services = new Map<string, string[]>()
  for (const f of files.values()) {
    const msg = (m: MessageDesc, scope: string): void => {
      const full = scope === '' ? m.name : `${scope}.${m.name}`
      messages.set(full, m.field.map((fd) => `${fd.name} = ${fd.number}${fd.typeName === '' ? '' : ` ${link(f, full, fd.typeName)}`}`))
      for (const n of m.nestedType) msg(n, full)
    }
    for (const m of f.messageType) msg(m, f.package)
    for (const s of f.service) {
      const full = `${f.package}.${s.name}`
      services.set(full, s.method.map((m) =>
        `rpc ${m.name} ( ${m.clientStreaming ? 'stream ' : ''}${link(f, full, m.inputType)} ) returns ( ${m.serverStreaming ? 'stream ' : ''}${link(f, full, m.outputType)} )`))
    }
  }
  return { messages, services }
}

/** A FileDescriptorSet (repeated FileDescriptorProto file = 1) from raw descriptors. */
function descriptorSet(raw: Iterable<Buffer>): Buffer {
  const parts: Buffer[] = []
  for (const b of raw) {
    const len: number[] = []
    for (let n = b.length; ; n = Math.floor(n / 128)) {
      if (n < 128) {
        len.push(n)
        break
      }
      len.push((n % 128) | 128)
    }
    parts.push(Buffer.from([0x0a, ...len]), b)
  }
  return Buffer.concat(parts)
}

const SERVICES = [
  'etcdserverpb.KV', 'etcdserverpb.Watch', 'etcdserverpb.Lease', 'etcdserverpb.Cluster', 'etcdserverpb.Maintenance',
  'etcdserverpb.Auth', 'v3lockpb.Lock', 'v3electionpb.Election', 'grpc.health.v1.Health',
  'grpc.reflection.v1.ServerReflection', 'grpc.reflection.v1alpha.ServerReflection',
]

const KV_RPCS = [
  'rpc Range ( .etcdserverpb.RangeRequest ) returns ( .etcdserverpb.RangeResponse )',
  'rpc Put ( .etcdserverpb.PutRequest ) returns ( .etcdserverpb.PutResponse )',
  'rpc DeleteRange ( .etcdserverpb.DeleteRangeRequest ) returns ( .etcdserverpb.DeleteRangeResponse )',
  'rpc Txn ( .etcdserverpb.TxnRequest ) returns ( .etcdserverpb.TxnResponse )',
  'rpc Compact ( .etcdserverpb.CompactionRequest ) returns ( .etcdserverpb.CompactionResponse )',
]

/** Symbols to describe, what must be in the description, and which files grpcurl ends up fetching. */
const describeCases = [
  { symbol: 'etcdserverpb.KV', kind: 'services', want: KV_RPCS },
  { symbol: 'etcdserverpb.Watch', kind: 'services', want: ['rpc Watch ( stream .etcdserverpb.WatchRequest ) returns ( stream .etcdserverpb.WatchResponse )'] },
  { symbol: 'v3electionpb.Election', kind: 'services', want: [
    'rpc Campaign ( .v3electionpb.CampaignRequest ) returns ( .v3electionpb.CampaignResponse )',
    'rpc Proclaim ( .v3electionpb.ProclaimRequest ) returns ( .v3electionpb.ProclaimResponse )',
    'rpc Leader ( .v3electionpb.LeaderRequest ) returns ( .v3electionpb.LeaderResponse )',
    'rpc Observe ( .v3electionpb.LeaderRequest ) returns ( stream .v3electionpb.LeaderResponse )',
    'rpc Resign ( .v3electionpb.ResignRequest ) returns ( .v3electionpb.ResignResponse )',
  ] },
  { symbol: 'grpc.health.v1.Health', kind: 'services', want: [
    'rpc Check ( .grpc.health.v1.HealthCheckRequest ) returns ( .grpc.health.v1.HealthCheckResponse )',
    'rpc Watch ( .grpc.health.v1.HealthCheckRequest ) returns ( stream .grpc.health.v1.HealthCheckResponse )',
  ] },
  { symbol: 'etcdserverpb.RangeResponse', kind: 'messages', want: ['header = 1 .etcdserverpb.ResponseHeader', 'kvs = 2 .mvccpb.KeyValue', 'more = 3', 'count = 4'] },
  { symbol: 'v3lockpb.LockResponse', kind: 'messages', want: ['header = 1 .etcdserverpb.ResponseHeader', 'key = 2'] },
] as const

/** JSON bodies as grpcurl -d sends them, and the JSON of the answer (int64 as strings, bytes as base64). */
const b64 = (s: string): string => Buffer.from(s).toString('base64')
const callCases = [
  { name: 'Put with a JSON body', method: 'Put', body: `{"key":"${b64('foo')}","value":"${b64('bar')}"}`, want: {} },
  { name: 'Range of that key with a JSON body', method: 'Range', body: `{"key":"${b64('foo')}"}`, want: { count: '1', kvs: [{ key: b64('foo'), value: b64('bar'), version: '1' }] } },
  { name: 'Range of a missing key', method: 'Range', body: `{"key":"${b64('nope')}"}`, want: {} },
] as const

let etcd: Etcd
let endpoint = ''
before(async () => {
  etcd = await openEtcd({ memory: true })
  endpoint = (await etcd.listen({ port: 0 })).endpoint
})
after(() => etcd.close())

for (const version of ['v1alpha', 'v1'] as const) {
  describe(`grpc.reflection.${version}.ServerReflection`, () => {
    it('list: every etcd service, health and reflection itself', async () => {
      const r = new ReflectionClient(endpoint, version)
      try {
        assert.deepEqual((await r.listServices()).sort(), [...SERVICES].sort())
      } finally {
        r.close()
      }
    })

    for (const c of describeCases) {
      it(`describe ${c.symbol}: descriptors link through their imports alone`, async () => {
        const r = new ReflectionClient(endpoint, version)
        try {
          const d = describeAll(await r.resolve(c.symbol))
          const got = c.kind === 'services' ? d.services.get(c.symbol) : d.messages.get(c.symbol)
          if (c.kind === 'services') assert.deepEqual(got, c.want)
          else for (const w of c.want) assert.ok(got?.includes(w), `${c.symbol} lacks "${w}": ${JSON.stringify(got)}`)
        } finally {
          r.close()
        }
      })
    }

    it('an unknown symbol is an in-band NOT_FOUND error', async () => {
      const r = new ReflectionClient(endpoint, version)
      try {
        const resp = await r.ask({ file_containing_symbol: 'nope.Nope' })
        assert.equal(resp.error_response?.error_code, grpc.status.NOT_FOUND)
      } finally {
        r.close()
      }
    })

    it('calls KV with JSON bodies through types built from the descriptors', async () => {
      await etcd.deleteRange({ key: Buffer.from('foo') })
      const r = new ReflectionClient(endpoint, version)
      await r.resolve('etcdserverpb.KV')
      r.close()
      // grpcurl's JSON mapping: bytes as base64, int64 as strings, default values left out.
      const def = protoLoader.loadFileDescriptorSetFromBuffer(descriptorSet(r.files.values()), {
        keepCase: true, longs: String, enums: String, bytes: String, defaults: false, oneofs: true,
      })
      const pkg = grpc.loadPackageDefinition(def) as unknown as { etcdserverpb: { KV: grpc.ServiceClientConstructor } }
      const kv = new pkg.etcdserverpb.KV(endpoint, grpc.credentials.createInsecure())
      try {
        for (const c of callCases) {
          const fn = (kv as unknown as Record<string, (req: unknown, cb: (err: grpc.ServiceError | null, res?: Record<string, unknown>) => void) => void>)[c.method]
          assert.ok(fn !== undefined)
          const res = await new Promise<Record<string, unknown>>((resolve, reject) => {
            fn.call(kv, JSON.parse(c.body), (err, out) => (err === null ? resolve(out ?? {}) : reject(err)))
          })
          const { header, ...rest } = res
          assert.ok(typeof header === 'object' && header !== null && 'revision' in header, `${c.name}: a header with a revision`)
          const kvs = (rest['kvs'] as Record<string, unknown>[] | undefined)?.map(({ key, value, version: v }) => ({ key, value, version: v }))
          assert.deepEqual(kvs === undefined ? rest : { ...rest, kvs }, c.want, c.name)
        }
      } finally {
        kv.close()
      }
    })
  })
}
