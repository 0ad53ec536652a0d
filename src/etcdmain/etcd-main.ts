// The etcdlite command: parse flags, open the store, serve, stop cleanly on SIGINT/SIGTERM.
import { readdirSync, readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createSecureContext } from 'node:tls'
import { Etcd, openEtcd } from '../embed/etcd.js'
import { DataDirError } from '../backend/data-dir.js'
import { createLogger, type Logger, type ZapLogger } from '../pkg/logger.js'
import { HeldLogger } from '../pkg/held-logger.js'
import { DEFAULT_LOG_OUTPUT, LoggingConfigError, setupLogging, type LoggingConfig } from '../pkg/log-outputs.js'
import type { EtcdOptions, ListenTlsOptions } from '../embed/options.js'
import { JwtOptionsError, JwtTokenProvider, type JwtSignMethod } from '../auth/jwt-token.js'
import { realClock } from '../pkg/clock.js'
import { parseArgs, usage, UsageError, type Config } from './config.js'
import { logFailedToVerifyFlags, StartupLog, type ServingListener } from './startup-log.js'

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

/** os.Args as etcd logs them: the program, then its arguments. */
function processArgs(): string[] {
  return [process.argv[1] ?? 'etcd', ...process.argv.slice(2)]
}

/** The data dir already holds a store (etcd's identifyDataDirOrDie finding a member dir). */
function dataDirInitialized(dir: string): boolean {
  try {
    return readdirSync(dir).length > 0
  } catch {
    return false
  }
}

/** Go's net.Listen error text for Node's listen error on `host:port` ("listen tcp 127.0.0.1:2379: bind: address already in use"). */
function goListenError(err: unknown, host: string, port: number): string {
  const bind: Readonly<Record<string, string>> = { EADDRINUSE: 'address already in use', EACCES: 'permission denied', EADDRNOTAVAIL: 'cannot assign requested address' }
  const text = bind[(err as NodeJS.ErrnoException).code ?? '']
  if (text === undefined) return err instanceof Error ? err.message : String(err)
  return `listen tcp ${host.includes(':') ? `[${host}]` : host}:${port}: bind: ${text}`
}

/** etcd's --logger and --log-outputs; a Config without them logs as etcd does by default (zap, "default"). */
type LoggingFlags = Partial<Pick<LoggingConfig, 'logger' | 'logOutputs' | 'logLevel'>>

async function serve(cfg: Config): Promise<number> {
  const args = processArgs()
  const flags: LoggingFlags = cfg
  let lg: ZapLogger
  try {
    lg = setupLogging({ logger: flags.logger ?? 'zap', logOutputs: flags.logOutputs ?? [DEFAULT_LOG_OUTPUT], logLevel: cfg.logLevel })
  } catch (err) {
    if (!(err instanceof LoggingConfigError)) throw err
    // etcd reports these with its default logger (info, stderr), having none of its own.
    logFailedToVerifyFlags(createLogger('info'), args, err)
    return 1
  }
  const peerUrls = cfg.initialAdvertisePeerUrls
  const log = new StartupLog(lg, {
    name: cfg.name,
    dataDir: cfg.dataDir,
    memory: cfg.memory,
    etcdVersion: cfg.etcdVersion,
    etcdliteVersion: version(),
    memberInitialized: cfg.restoreSnapshot !== undefined || (!cfg.memory && dataDirInitialized(cfg.dataDir)),
    heartbeatIntervalMs: cfg.heartbeatIntervalMs,
    electionTimeoutMs: cfg.electionTimeoutMs,
    initialAdvertisePeerUrls: peerUrls,
    // etcd's defaults for the peer and bootstrap flags: etcdlite serves no peers.
    listenPeerUrls: ['http://localhost:2380'],
    listenClientUrls: cfg.listenClientUrls.map((u) => u.url),
    advertiseClientUrls: cfg.advertiseClientUrls,
    listenMetricsUrls: cfg.listenMetricsUrls.map((u) => u.url),
    initialCluster: peerUrls.map((u) => `${cfg.name}=${u}`).sort().join(','),
    initialClusterToken: 'etcd-cluster',
    initialClusterState: 'new',
    quotaBackendBytes: cfg.quotaBackendBytes,
    maxRequestBytes: cfg.maxRequestBytes,
    autoCompactionMode: cfg.autoCompactionMode,
    autoCompactionRetention: cfg.autoCompactionRetention,
    simpleToken: cfg.authToken.type === 'simple',
  })
  log.starting(args)
  let tls: ListenTlsOptions | undefined
  let authToken: NonNullable<EtcdOptions['authToken']>
  try {
    // ---- TLS ----
    tls = await clientTlsFor(cfg, lg)
    // ---- end TLS ----
    log.startingAnEtcdServer()
    authToken = await authTokenFor(cfg)
  } catch (err) {
    log.failedToStart(err)
    return 1
  }
  let etcd
  // The store logs as it opens; etcd logs the backend and the member before that.
  const held = new HeldLogger(lg)
  const openedAt = performance.now()
  try {
    const options = {
      ...(cfg.memory ? { memory: true } : { dataDir: cfg.dataDir }),
      unsafeNoFsync: cfg.unsafeNoFsync,
      maxRequestBytes: cfg.maxRequestBytes,
      maxTxnOps: cfg.maxTxnOps,
      watchProgressNotifyIntervalMs: cfg.watchProgressNotifyIntervalMs,
      indexCheckpointEntries: cfg.indexCheckpointEntries,
      logger: held,
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
    held.release()
    const why = err instanceof DataDirError ? err.reason : err instanceof Error ? err.message : String(err)
    log.failedToStart(new Error(`cannot open data dir ${cfg.dataDir}: ${why}`, { cause: err }))
    return 1
  }
  const member = { memberId: etcd.server.memberId, clusterId: etcd.server.clusterId }
  log.openedBackend(member, performance.now() - openedAt)
  held.release()
  log.serverStarted(member)
  const stopped = new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'))
    process.once('SIGTERM', () => resolve('SIGTERM'))
  })
  const bound: string[] = []
  const listeners: ServingListener[] = []
  try {
    for (const u of cfg.listenMetricsUrls) {
      try {
        await etcd.listenMetrics({ host: u.host, port: u.port })
      } catch (err) {
        throw new Error(goListenError(err, u.host, u.port), { cause: err })
      }
    }
    // ---- TLS ----
    for (const u of cfg.listenClientUrls) {
      let l
      try {
        l = await etcd.listen({ host: u.host, port: u.port, ...(u.secure && tls !== undefined ? { tls } : {}) })
      } catch (err) {
        throw new Error(goListenError(err, u.host, u.port), { cause: err })
      }
      bound.push(`${u.secure ? 'https' : 'http'}://${l.endpoint}`)
      listeners.push({ address: l.endpoint, secure: u.secure })
    }
    // ---- end TLS ----
  } catch (err) {
    await etcd.close()
    log.failedToStart(err)
    return 1
  }
  log.nowServing(member, bound)
  log.ready(member, listeners)
  const signal = await stopped
  log.receivedSignal(signal)
  log.closing(member)
  await etcd.close()
  log.closed()
  return 0
}
