// The etcdlite command: parse flags, open the store, serve, stop cleanly on SIGINT/SIGTERM.
import { readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createSecureContext } from 'node:tls'
import { Etcd, openEtcd } from '../embed/etcd.js'
import { DataDirError } from '../backend/data-dir.js'
import { createLogger, type Logger } from '../pkg/logger.js'
import type { EtcdOptions, ListenTlsOptions } from '../embed/options.js'
import { JwtOptionsError, JwtTokenProvider, type JwtSignMethod } from '../auth/jwt-token.js'
import { realClock } from '../pkg/clock.js'
import { parseArgs, usage, UsageError, type Config } from './config.js'

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
  return pkg.version
}

/**
 * etcd's minimum lease TTL (etcdserver/server.go): 1.5 election timeouts counted in whole heartbeat ticks,
 * rounded up to a second. 2 s with the default flags.
 */
export function minLeaseTtl(cfg: Pick<Config, 'electionTimeoutMs' | 'heartbeatIntervalMs'>): number {
  const electionTicks = Math.floor(cfg.electionTimeoutMs / cfg.heartbeatIntervalMs)
  return Math.ceil((Math.floor((3 * electionTicks) / 2) * cfg.heartbeatIntervalMs) / 1000)
}

/** Run the server until a signal stops it; resolves with the process exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  let parsed
  try {
    parsed = parseArgs(argv)
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`etcdlite: ${err.message}\n\n${usage()}`)
      return 2
    }
    throw err
  }
  if (parsed.kind === 'help') {
    process.stdout.write(usage())
    return 0
  }
  if (parsed.kind === 'version') {
    process.stdout.write(`etcdlite Version: ${version()}\nAPI: etcd v3 (3.4 wire compatible)\n`)
    return 0
  }
  return serve(parsed.config)
}

// ---- TLS ----
/**
 * Read the client TLS files for the https:// listeners (undefined if there are none), and warn about the
 * flags http:// listeners ignore, with etcd's messages. A file that cannot be read fails as etcd's does:
 * `open <path>: no such file or directory`.
 */
async function clientTlsFor(cfg: Config, logger: Logger): Promise<ListenTlsOptions | undefined> {
  const t = cfg.clientTls
  for (const u of cfg.listenClientUrls) {
    if (u.secure) continue
    if (t.certFile !== '' || t.keyFile !== '') {
      logger.warn('scheme is HTTP while key and cert files are present; ignoring key and cert files', { 'client-url': u.url })
    }
    if (t.clientCertAuth) {
      logger.warn('scheme is HTTP while --client-cert-auth is enabled; ignoring client cert auth for this URL', { 'client-url': u.url })
    }
  }
  if (!cfg.listenClientUrls.some((u) => u.secure)) return undefined
  const read = async (file: string): Promise<Buffer> => {
    try {
      return await readFile(file)
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      const why = code === 'ENOENT' ? 'no such file or directory' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'is a directory' : undefined
      throw new Error(why === undefined ? `open ${file}: ${err instanceof Error ? err.message : String(err)}` : `open ${file}: ${why}`, { cause: err })
    }
  }
  const [cert, key, trustedCa] = await Promise.all([read(t.certFile), read(t.keyFile), t.trustedCaFile === '' ? undefined : read(t.trustedCaFile)])
  try {
    // Fail here, naming the files, rather than with OpenSSL's bare reason from the first listen().
    createSecureContext({ cert, key, ...(trustedCa === undefined ? {} : { ca: trustedCa }) })
  } catch (err) {
    throw new Error(`TLS key/cert (--cert-file ${t.certFile}, --key-file ${t.keyFile}): ${err instanceof Error ? err.message : String(err)}`, { cause: err })
  }
  logger.info('starting with client TLS', { 'cert-file': t.certFile, 'key-file': t.keyFile, 'trusted-ca': t.trustedCaFile, 'client-cert-auth': t.clientCertAuth })
  return { cert, key, ...(trustedCa === undefined ? {} : { trustedCa }), clientCertAuth: t.clientCertAuth }
}
// ---- end TLS ----

// ---- Auth flags ----
/**
 * The embedded authToken option for --auth-token: key files read, and the JWT options checked now, so a bad
 * key stops the start with etcd's message rather than failing later.
 */
async function authTokenFor(cfg: Config): Promise<NonNullable<EtcdOptions['authToken']>> {
  const t = cfg.authToken
  if (t.type === 'simple') return 'simple'
  const read = async (file: string): Promise<Buffer | undefined> => {
    if (file === '') return undefined
    try {
      return await readFile(file)
    } catch {
      // etcd: ParseWithDefaults fails, and NewTokenProvider reports ErrInvalidAuthOpts.
      throw new JwtOptionsError('auth: invalid auth options')
    }
  }
  const [publicKey, privateKey] = await Promise.all([read(t.pubKeyFile), read(t.privKeyFile)])
  const opts = { type: 'jwt', signMethod: t.signMethod as JwtSignMethod, publicKey, privateKey, ttlMs: t.ttlMs } as const
  new JwtTokenProvider(opts, realClock)
  return opts
}
// ---- end Auth flags ----

async function serve(cfg: Config): Promise<number> {
  const logger = createLogger(cfg.logLevel)
  let authToken: NonNullable<EtcdOptions['authToken']>
  try {
    authToken = await authTokenFor(cfg)
  } catch (err) {
    process.stderr.write(`etcdlite: ${err instanceof Error ? err.message : String(err)}\n`)
    return 1
  }
  let etcd
  try {
    const options = {
      ...(cfg.memory ? { memory: true } : { dataDir: cfg.dataDir }),
      unsafeNoFsync: cfg.unsafeNoFsync,
      maxRequestBytes: cfg.maxRequestBytes,
      maxTxnOps: cfg.maxTxnOps,
      watchProgressNotifyIntervalMs: cfg.watchProgressNotifyIntervalMs,
      indexCheckpointEntries: cfg.indexCheckpointEntries,
      logger,
      minLeaseTtl: minLeaseTtl(cfg),
      leaseRenewOnStartMs: cfg.electionTimeoutMs,
      quotaBackendBytes: cfg.quotaBackendBytes,
      etcdVersion: cfg.etcdVersion,
      authToken,
      authTokenTtl: cfg.authTokenTtl,
      bcryptCost: cfg.bcryptCost,
      autoCompactionMode: cfg.autoCompactionMode,
      autoCompactionRetention: cfg.autoCompactionRetention,
      name: cfg.name,
      peerUrls: cfg.initialAdvertisePeerUrls,
      ...(cfg.advertiseClientUrls === undefined ? {} : { advertiseClientUrls: cfg.advertiseClientUrls }),
    }
    // --restore-snapshot: load the snapshot into the new data dir (or memory) first.
    etcd = await openEtcd(cfg.restoreSnapshot === undefined ? options : await Etcd.restoreSnapshot(cfg.restoreSnapshot, options))
  } catch (err) {
    const why = err instanceof DataDirError ? err.reason : err instanceof Error ? err.message : String(err)
    process.stderr.write(`etcdlite: cannot open data dir ${cfg.dataDir}: ${why}\n`)
    return 1
  }
  const stopped = new Promise<string>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'))
    process.once('SIGTERM', () => resolve('SIGTERM'))
  })
  const bound: string[] = []
  try {
    // --listen-metrics-urls first, so they serve by the time the client ready line appears.
    for (const u of cfg.listenMetricsUrls) {
      const l = await etcd.listenMetrics({ host: u.host, port: u.port })
      logger.info('serving metrics', { address: `http://${l.endpoint}/metrics` })
      process.stdout.write(`etcdlite: serving metrics on http://${l.endpoint}/metrics\n`)
    }
    // ---- TLS ----
    const tls = await clientTlsFor(cfg, logger)
    for (const u of cfg.listenClientUrls) {
      const l = await etcd.listen({ host: u.host, port: u.port, ...(u.secure && tls !== undefined ? { tls } : {}) })
      const url = `${u.secure ? 'https' : 'http'}://${l.endpoint}`
      bound.push(url)
      if (u.secure) logger.info('serving client traffic securely', { address: l.endpoint })
      else logger.info('serving client traffic insecurely', { address: l.endpoint })
      process.stdout.write(`etcdlite: ready to serve client requests on ${url}\n`)
    }
    // ---- end TLS ----
  } catch (err) {
    process.stderr.write(`etcdlite: cannot listen: ${err instanceof Error ? err.message : String(err)}\n`)
    await etcd.close()
    return 1
  }
  logger.info('etcdlite started', {
    name: cfg.name,
    'data-dir': cfg.memory ? ':memory:' : cfg.dataDir,
    'member-id': etcd.server.memberId.toString(16),
    'cluster-id': etcd.server.clusterId.toString(16),
    'advertise-client-urls': cfg.advertiseClientUrls ?? bound,
  })
  const signal = await stopped
  logger.info('received signal; shutting down', { signal })
  await etcd.close()
  logger.info('stopped')
  return 0
}
