// The real etcd with its JSON gateway on, for clients of the gateway (python3-etcd3gw, curl, Patroni).
//
// etcd 3.4's gateway is a gRPC client of the server's own client listener, dialled at the address given in
// --listen-client-urls: with port 0 it would dial the literal ":0". So this server takes a concrete port,
// found free by binding port 0 and letting it go; another process could take that port in between, and then
// etcd exits before serving and the start is retried on a new port.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:net'
import { randomUUID } from 'node:crypto'
import { tempDir } from './tmp.js'
import { supervise, type ServerProcess } from './processes.js'

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const address = server.address()
  server.close()
  await once(server, 'close')
  if (address === null || typeof address === 'string') throw new Error('no TCP address')
  return address.port
}

async function startOnce(port: number, opts: GatewayEtcdOptions): Promise<ServerProcess> {
  const name = opts.name ?? 'default'
  const dir = await tempDir('etcd-gw-')
  const client = `http://127.0.0.1:${port}`
  // A single member never dials its advertised peer URL, so the peer listener can stay on port 0.
  const peer = 'http://127.0.0.1:0'
  const proc = spawn(opts.bin ?? 'etcd', [
    '--name', name, '--data-dir', dir.path,
    '--listen-client-urls', client, '--advertise-client-urls', client,
    '--listen-peer-urls', peer, '--initial-advertise-peer-urls', peer, '--initial-cluster', `${name}=${peer}`,
    '--initial-cluster-token', randomUUID(), '--logger', 'zap', '--log-level', 'info', ...(opts.extra ?? []),
  ], { stdio: ['ignore', 'ignore', 'pipe'] })
  return supervise(proc, 'etcd', dir.path, () => dir.remove())
}

export interface GatewayEtcdOptions {
  /** Member name; etcd's default "default", as etcdlite's. */
  readonly name?: string
  /** The etcd binary; `etcd` on PATH by default. */
  readonly bin?: string
  /** More flags, appended. */
  readonly extra?: readonly string[]
}

/**
 * Start the real etcd, its gateway serving on the client port (etcd's default). Retries a few times when
 * the chosen port was taken meanwhile.
 */
export async function startGatewayEtcd(opts: GatewayEtcdOptions = {}): Promise<ServerProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(await freePort(), opts)
    } catch (e) {
      if (attempt >= 5 || !(e instanceof Error) || !e.message.includes('address already in use')) throw e
    }
  }
}
