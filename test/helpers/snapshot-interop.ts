// Moving data between etcdlite and the real etcd through snapshot files, and comparing what two servers
// serve: every key with its revisions, version and lease, HashKV at the newest and at an older revision,
// the compaction revision, leases with their TTLs and keys, users with their roles (and that their
// passwords still work), roles with their permissions, and whether auth is on.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { once } from 'node:events'
import * as grpc from '@grpc/grpc-js'
import { loadEtcdProto } from '../../src/grpc/proto.js'
import { ETCDCTL_ENV } from './etcdctl.js'
import { etcdServing, referenceEtcdArgs, type ServerProcess } from './processes.js'
import { tempDir } from './tmp.js'

type Msg = Record<string, unknown>

/** A gRPC client for the KV, Lease, Auth and Maintenance services, sending `token` once it is set (null: none). */
export class Client {
  token: string | undefined
  private readonly clients: Record<string, grpc.Client>

  constructor(endpoint: string) {
    const pb = loadEtcdProto().etcdserverpb
    const creds = grpc.credentials.createInsecure()
    this.clients = {
      KV: new pb.KV(endpoint, creds),
      Lease: new pb.Lease(endpoint, creds),
      Auth: new pb.Auth(endpoint, creds),
      Maintenance: new pb.Maintenance(endpoint, creds),
    }
  }

  call(service: 'KV' | 'Lease' | 'Auth' | 'Maintenance', method: string, req: object = {}, token: string | null = this.token ?? null): Promise<Msg> {
    const client = this.clients[service] as grpc.Client
    const fn = (client as unknown as Record<string, (r: object, md: grpc.Metadata, cb: (e: grpc.ServiceError | null, r?: Msg) => void) => void>)[method]
    if (fn === undefined) throw new Error(`no method ${service}.${method}`)
    const md = new grpc.Metadata()
    if (token !== null) md.set('token', token)
    return new Promise((resolve, reject) => {
      fn.call(client, req, md, (err, res) => (err !== null ? reject(err) : resolve(res ?? {})))
    })
  }

  /** Log in (Authenticate); later calls carry the token. */
  async login(name: string, password: string): Promise<void> {
    this.token = (await this.call('Auth', 'Authenticate', { name, password }, null))['token'] as string
  }

  close(): void {
    for (const c of Object.values(this.clients)) c.close()
  }
}

const hex = (v: unknown): string => Buffer.from(v as Uint8Array).toString('hex')
const str = (v: unknown): string => Buffer.from(v as Uint8Array).toString('latin1')
const num = (v: unknown): number => Number(v)

/** The password every user of a history gets (so the dump can check that logging in still works). */
export const passwordOf = (user: string): string => `pw-${user}`

/** Everything two servers must agree on after a snapshot moved the data from one to the other. */
export async function dumpState(endpoint: string, authOn: boolean): Promise<unknown> {
  const c = new Client(endpoint)
  try {
    if (authOn) await c.login('root', passwordOf('root'))
    const r = await c.call('KV', 'Range', { key: Buffer.from([0]), range_end: Buffer.from([0]) })
    const rev = num((r['header'] as Msg)['revision'])
    const kvs = (r['kvs'] as Msg[]).map((kv) => ({
      key: hex(kv['key']),
      value: createHash('sha1').update(kv['value'] as Uint8Array).digest('hex'),
      create: num(kv['create_revision']),
      mod: num(kv['mod_revision']),
      version: num(kv['version']),
      lease: String(kv['lease']),
    }))
    // HashKV at the newest revision (0, which a compaction at the newest revision does not refuse), and at
    // one between the compaction and the newest revision.
    const hashKV = async (at: number): Promise<{ at: number; compactRevision: number } & Msg> => {
      try {
        const h = await c.call('Maintenance', 'HashKV', { revision: at })
        return { at, hash: h['hash'], compactRevision: num(h['compact_revision']), revision: num((h['header'] as Msg)['revision']) }
      } catch (e) {
        return { at, error: (e as grpc.ServiceError).details, compactRevision: -1 }
      }
    }
    const now = await hashKV(0)
    const older = Math.floor((now.compactRevision + 1 + rev) / 2)
    const leases = []
    for (const l of ((await c.call('Lease', 'LeaseLeases'))['leases'] as Msg[]).map((x) => String(x['ID'])).sort()) {
      const t = await c.call('Lease', 'LeaseTimeToLive', { ID: l, keys: true })
      leases.push({ id: l, grantedTtl: num(t['grantedTTL']), keys: (t['keys'] as Uint8Array[]).map(hex).sort() })
    }
    const users = []
    for (const u of ((await c.call('Auth', 'UserList'))['users'] as string[]).sort()) {
      const g = await c.call('Auth', 'UserGet', { name: u })
      let login: string
      try {
        await c.call('Auth', 'Authenticate', { name: u, password: passwordOf(u) }, null)
        login = 'ok'
      } catch (e) {
        login = (e as grpc.ServiceError).details
      }
      users.push({ name: u, roles: [...(g['roles'] as string[])].sort(), login })
    }
    const roles = []
    for (const name of ((await c.call('Auth', 'RoleList'))['roles'] as string[]).sort()) {
      const g = await c.call('Auth', 'RoleGet', { role: name })
      roles.push({ name, perms: (g['perm'] as Msg[]).map((p) => `${String(p['permType'])} ${str(p['key'])} ${str(p['range_end'])}`) })
    }
    let anonymous: string
    try {
      await c.call('KV', 'Range', { key: Buffer.from('x') }, null)
      anonymous = 'ok'
    } catch (e) {
      anonymous = (e as grpc.ServiceError).details
    }
    return { rev, kvs, hashKV: [now, await hashKV(older)], leases, users, roles, anonymous }
  } finally {
    c.close()
  }
}

export interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Run etcdctl (v3) with `args`. */
export function ctl(args: readonly string[]): Promise<Run> {
  const p = spawn('etcdctl', args, { env: ETCDCTL_ENV, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  p.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
  p.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  return once(p, 'close').then(([code]) => ({ code: code as number | null, stdout, stderr }))
}

/** `etcdctl snapshot save` from `endpoint` (as root when auth is on). */
export async function snapshotSave(endpoint: string, file: string, authOn: boolean): Promise<void> {
  const user = authOn ? [`--user=root:${passwordOf('root')}`] : []
  const r = await ctl([`--endpoints=${endpoint}`, ...user, 'snapshot', 'save', file])
  assert.equal(r.code, 0, r.stderr)
}

/** `etcdctl snapshot status` of a file: revision, total keys, size, hash. */
export async function snapshotStatus(file: string): Promise<{ hash: number; revision: number; totalKey: number; totalSize: number }> {
  const r = await ctl(['snapshot', 'status', file, '-w', 'json'])
  assert.equal(r.code, 0, r.stderr)
  return JSON.parse(r.stdout) as { hash: number; revision: number; totalKey: number; totalSize: number }
}

/**
 * `etcdctl snapshot restore` a file into a new data dir, then start the real etcd on it (listeners on port
 * 0, as startReferenceEtcd). The data dir is removed on dispose.
 */
export async function restoreIntoEtcd(file: string): Promise<ServerProcess> {
  const dir = await tempDir('etcd-restored-')
  const dataDir = `${dir.path}/data`
  const peer = 'http://127.0.0.1:0'
  const r = await ctl(['snapshot', 'restore', file, '--data-dir', dataDir, '--name', 'ref', '--initial-cluster', `ref=${peer}`,
    '--initial-advertise-peer-urls', peer])
  if (r.code !== 0) {
    await dir.remove()
    assert.fail(`etcdctl snapshot restore failed: ${r.stderr}`)
  }
  const proc = spawn('etcd', referenceEtcdArgs(dataDir), { stdio: ['ignore', 'ignore', 'pipe'] })
  const stop = async (signal: NodeJS.Signals = 'SIGTERM'): Promise<number | NodeJS.Signals | null> => {
    if (proc.exitCode !== null || proc.signalCode !== null) return proc.exitCode ?? proc.signalCode
    proc.kill(signal)
    const [code, sig] = (await once(proc, 'exit')) as [number | null, NodeJS.Signals | null]
    return code ?? sig
  }
  const dispose = async (): Promise<void> => {
    await stop('SIGKILL')
    await dir.remove()
  }
  let tail = ''
  try {
    const endpoint = await etcdServing(proc, 20_000, (line) => (tail = (tail + line + '\n').slice(-4000)))
    return { endpoint, proc, dataDir, stop, dispose }
  } catch (e) {
    await dispose()
    throw new Error(`etcd did not start on the restored data dir: ${String(e)}\n${tail}`, { cause: e })
  }
}
