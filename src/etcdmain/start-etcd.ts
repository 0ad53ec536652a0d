// etcd's embed.StartEtcd and what etcdmain's startEtcd waits for, for etcdlite: the logger, the peer and client
// TLS set up as etcd configures its listeners, the checks of a member it has yet to create, the store opened
// (the data dir, memory, or a snapshot restored), then every client and metrics listener, each start-up line
// as etcd logs it; and on SIGINT or SIGTERM the shutdown.
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Etcd, openEtcd } from '../embed/etcd.js'
import { DataDirError } from '../backend/data-dir.js'
import { createLogger, type ZapLogger } from '../pkg/logger.js'
import { HeldLogger } from '../pkg/held-logger.js'
import { LoggingConfigError, setupLogging } from '../pkg/log-outputs.js'
import type { EtcdOptions, ListenTlsOptions } from '../embed/options.js'
import { JwtOptionsError, JwtTokenProvider, type JwtSignMethod } from '../auth/jwt-token.js'
import { realClock } from '../pkg/clock.js'
import type { Traffic } from '../grpc/server.js'
import { verifyBootstrap, type Resolver } from './bootstrap.js'
import type { LogEntry } from './log-entry.js'
import type { ClientUrl, Config } from './server-config.js'
import type { ServingListener } from './startup-facts.js'
import { logFailedToVerifyFlags, StartupLog } from './startup-log.js'
import { logRotationConfig } from './validate.js'

/** What the start needs besides the configuration. */
export interface StartContext {
  /** The lines etcdmain logged about the configuration, logged after "Running: ". */
  readonly notes: readonly LogEntry[]
  readonly resolve: Resolver
  /** Where --auto-tls and --peer-auto-tls write their certificates. */
  readonly certDir: string
  /** os.Args as etcd logs them. */
  readonly args: readonly string[]
  readonly etcdliteVersion: string
}

/**
 * embed's isMemberInitialized: whether the data dir already holds a member, so that the initial cluster
 * flags are ignored. etcd looks for its WAL; etcdlite's data dir is a LevelDB directory, whose CURRENT file
 * exists once it has been opened.
 */
export function isMemberInitialized(dataDir: string): boolean {
  return existsSync(join(dataDir, 'CURRENT'))
}

/**
 * etcd's minimum lease TTL (etcdserver/server.go): 1.5 election timeouts counted in whole heartbeat ticks,
 * rounded up to a second. 2 s with the default flags.
 */
export function minLeaseTtl(cfg: Pick<Config, 'electionTimeoutMs' | 'heartbeatIntervalMs'>): number {
  const electionTicks = Math.floor(cfg.electionTimeoutMs / cfg.heartbeatIntervalMs)
  return Math.ceil((Math.floor((3 * electionTicks) / 2) * cfg.heartbeatIntervalMs) / 1000)
}

/**
 * etcd's ServerConfig.ReqTimeout: 5 s plus two election timeouts (counted in whole heartbeat ticks), the
 * deadline of its internal requests; 7 s with the default flags.
 */
export function requestTimeoutMs(cfg: Pick<Config, 'electionTimeoutMs' | 'heartbeatIntervalMs'>): number {
  return 5000 + 2 * Math.floor(cfg.electionTimeoutMs / cfg.heartbeatIntervalMs) * cfg.heartbeatIntervalMs
}

/** A keep-alive duration as the listener takes it: whole milliseconds, at most 2^32-1 (about 49 days). */
const keepAliveMs = (ms: number): number => Math.min(2 ** 32 - 1, Math.ceil(ms))

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
  await JwtTokenProvider.create(opts, realClock)
  return opts
}

/** Whether any client or peer TLS flag differs from etcd's default, or a client URL is https://. */
function usesTls(cfg: Config): boolean {
  const c = cfg.clientTls
  const p = cfg.peerTls
  return [...cfg.listenClientUrls, ...cfg.listenClientHttpUrls].some((u) => u.secure) ||
    [c.certFile, c.keyFile, c.trustedCaFile, c.crlFile, c.clientCertFile, c.clientKeyFile, p.certFile, p.keyFile, p.trustedCaFile, p.crlFile, p.clientCertFile, p.clientKeyFile].some((f) => f !== '') ||
    c.clientCertAuth || c.autoTls || p.clientCertAuth || p.autoTls || cfg.cipherSuites.length > 0 || cfg.tlsMinVersion !== 'TLS1.2' || cfg.tlsMaxVersion !== ''
}

/** What serverTls and peerTls give when no TLS flag is set: no TLS. */
const NO_TLS = { peerTls: (): Promise<undefined> => Promise.resolve(undefined), serverTls: (): Promise<undefined> => Promise.resolve(undefined) }

/** Go's net.Listen error text for Node's listen error on `host:port` ("listen tcp 127.0.0.1:2379: bind: address already in use"). */
function goListenError(err: unknown, host: string, port: number): string {
  const bind: Readonly<Record<string, string>> = { EADDRINUSE: 'address already in use', EACCES: 'permission denied', EADDRNOTAVAIL: 'cannot assign requested address' }
  const text = bind[(err as NodeJS.ErrnoException).code ?? '']
  if (text === undefined) return err instanceof Error ? err.message : String(err)
  return `listen tcp ${host.includes(':') ? `[${host}]` : host}:${port}: bind: ${text}`
}

/** One client listener: a host:port with its schemes and what it serves. */
interface ClientPort {
  readonly host: string
  readonly port: number
  insecure: boolean
  secure: boolean
  traffic: Traffic
}

/**
 * etcd's client listeners: an http:// and an https:// URL on the same host:port share one listener that
 * takes both. With --listen-client-http-urls, those serve HTTP only and the client URLs gRPC only; a
 * host:port may not be in both lists.
 */
function clientPorts(cfg: Config): ClientPort[] {
  const ports = new Map<string, ClientPort>()
  const split = cfg.listenClientHttpUrls.length > 0
  const add = (u: ClientUrl, traffic: Traffic): void => {
    const key = `${u.host}\0${u.port}`
    const p = ports.get(key) ?? { host: u.host, port: u.port, insecure: false, secure: false, traffic }
    if (p.traffic !== traffic) throw new Error(`cannot bind both --client-listen-urls and --client-listen-http-urls on the same url ${u.url}`)
    if (u.secure) p.secure = true
    else p.insecure = true
    ports.set(key, p)
  }
  for (const u of cfg.listenClientUrls) add(u, split ? 'grpc' : 'grpc+http')
  for (const u of cfg.listenClientHttpUrls) add(u, 'http')
  return [...ports.values()]
}

/** The store's options for this configuration: what etcd's ServerConfig holds that etcdlite's server acts on. */
function etcdOptionsOf(cfg: Config, logger: HeldLogger, authToken: NonNullable<EtcdOptions['authToken']>): EtcdOptions {
  return {
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
    metrics: cfg.metrics,
    enableV2: cfg.enableV2,
    cors: cfg.corsOrigins,
    hostWhitelist: cfg.hostWhitelist,
    name: cfg.name,
    peerUrls: cfg.initialAdvertisePeerUrls,
    memberId: cfg.memberId,
    clusterId: cfg.clusterId,
    ...(cfg.advertiseClientUrls === undefined ? {} : { advertiseClientUrls: cfg.advertiseClientUrls }),
  }
}

/**
 * Every metrics listener, then every client listener, as etcd's serve starts them. Returns the client URLs as
 * bound and the listeners that serve; throws with Go's text for a listener that cannot bind.
 */
async function listenAll(etcd: Etcd, cfg: Config, clients: readonly ClientPort[], tls: ListenTlsOptions | undefined): Promise<{ bound: string[]; listeners: ServingListener[] }> {
  const bound: string[] = []
  const listeners: ServingListener[] = []
  for (const u of cfg.listenMetricsUrls) {
    try {
      await etcd.listenMetrics({ host: u.host, port: u.port })
    } catch (err) {
      throw new Error(goListenError(err, u.host, u.port), { cause: err })
    }
  }
  // etcd serves the profiles with --log-level=debug too.
  const pprof = cfg.enablePprof || cfg.logLevel === 'debug'
  for (const p of clients) {
    let l
    const secure = p.secure && tls !== undefined
    try {
      l = await etcd.listen({
        host: p.host,
        port: p.port,
        maxConcurrentStreams: cfg.maxConcurrentStreams,
        grpcGateway: cfg.enableGrpcGateway,
        keepAlive: { intervalMs: keepAliveMs(cfg.grpcKeepAliveIntervalMs), timeoutMs: keepAliveMs(cfg.grpcKeepAliveTimeoutMs) },
        keepAliveMinTimeMs: keepAliveMs(cfg.grpcKeepAliveMinTimeMs),
        traffic: p.traffic,
        pprof,
        ...(p.secure && tls !== undefined ? { tls, alsoInsecure: p.insecure } : {}),
      })
    } catch (err) {
      throw new Error(goListenError(err, p.host, p.port), { cause: err })
    }
    if (p.insecure || !secure) {
      if (p.traffic !== 'http') bound.push(`http://${l.endpoint}`)
      listeners.push({ address: l.endpoint, secure: false, traffic: p.traffic })
    }
    if (secure) {
      if (p.traffic !== 'http') bound.push(`https://${l.endpoint}`)
      listeners.push({ address: l.endpoint, secure: true, traffic: p.traffic })
    }
  }
  return { bound, listeners }
}

/**
 * Start the server and serve until SIGINT or SIGTERM. Resolves with the exit code of a start that failed,
 * or with the signal that stopped the server.
 */
export async function startEtcd(cfg: Config, ctx: StartContext): Promise<number | NodeJS.Signals> {
  const { args } = ctx
  let lg: ZapLogger
  try {
    const rotation = cfg.enableLogRotation ? logRotationConfig(cfg.logRotationConfigJson) : undefined
    lg = setupLogging({ logger: cfg.logger, logOutputs: cfg.logOutputs, logLevel: cfg.logLevel, rotation })
  } catch (err) {
    if (!(err instanceof LoggingConfigError)) throw err
    // etcd reports these with its default logger (info, stderr), having none of its own.
    logFailedToVerifyFlags(createLogger('info'), args, err)
    return 1
  }
  // A restored snapshot is a member already, as after etcdctl snapshot restore.
  const memberInitialized = cfg.restoreSnapshot !== undefined || (!cfg.memory && isMemberInitialized(cfg.dataDir))
  const log = new StartupLog(lg, {
    name: cfg.name,
    dataDir: cfg.dataDir,
    memory: cfg.memory,
    etcdVersion: cfg.etcdVersion,
    etcdliteVersion: ctx.etcdliteVersion,
    memberInitialized,
    heartbeatIntervalMs: cfg.heartbeatIntervalMs,
    electionTimeoutMs: cfg.electionTimeoutMs,
    initialAdvertisePeerUrls: cfg.initialAdvertisePeerUrls,
    listenPeerUrls: cfg.listenPeerUrls,
    listenClientUrls: cfg.listenClientUrls.map((u) => u.url),
    splitHttp: cfg.listenClientHttpUrls.length > 0,
    advertiseClientUrls: cfg.advertiseClientUrls,
    listenMetricsUrls: cfg.listenMetricsUrls.map((u) => u.url),
    initialCluster: cfg.initialCluster,
    initialClusterToken: cfg.initialClusterToken,
    initialClusterState: cfg.initialClusterState,
    quotaBackendBytes: cfg.quotaBackendBytes,
    maxRequestBytes: cfg.maxRequestBytes,
    autoCompactionMode: cfg.autoCompactionMode,
    autoCompactionRetention: cfg.autoCompactionRetention,
    simpleToken: cfg.authToken.type === 'simple',
  })
  log.starting(args, ctx.notes)
  let tls: ListenTlsOptions | undefined
  let authToken: NonNullable<EtcdOptions['authToken']>
  let clients: ClientPort[]
  try {
    // etcd configures its peer listeners, then its client listeners, before it creates the server. The TLS
    // code loads only when a TLS flag is given (a plain start must fit in few file descriptors).
    const { peerTls, serverTls } = usesTls(cfg) ? await import('../pkg/transport/server-tls.js') : NO_TLS
    await peerTls(cfg.peerTls, { logger: lg, dataDir: ctx.certDir, listenPeerUrls: cfg.listenPeerUrls, validityYears: cfg.selfSignedCertValidity, cipherSuites: cfg.cipherSuites })
    tls = await serverTls(cfg.clientTls, {
      logger: lg,
      dataDir: ctx.certDir,
      listenUrls: [...cfg.listenClientUrls, ...cfg.listenClientHttpUrls].map((u) => u.url),
      validityYears: cfg.selfSignedCertValidity,
      cipherSuites: cfg.cipherSuites,
      minVersion: cfg.tlsMinVersion,
      maxVersion: cfg.tlsMaxVersion,
    })
    clients = clientPorts(cfg)
    if (cfg.enablePprof) log.pprofEnabled()
    log.startingAnEtcdServer()
    // etcdserver.NewServer's checks of a member it has yet to create.
    if (!memberInitialized) await verifyBootstrap(cfg, ctx.resolve)
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
    const options = etcdOptionsOf(cfg, held, authToken)
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
  if (!log.downgradeChecked(etcd.server.maintenance.downgradeInfo())) {
    await etcd.close()
    return 1
  }
  log.quotaEnabled()
  // etcd checks a restarted member's data before serving: its own hash, compared with its peers' (none here).
  if (memberInitialized && cfg.experimentalInitialCorruptCheck) {
    log.corruptCheckStarted(member, requestTimeoutMs(cfg))
    try {
      await etcd.server.maintenance.localHash()
    } catch (err) {
      await etcd.close()
      log.failedToStart(new Error(`${member.memberId.toString(16)} failed to fetch hash (${err instanceof Error ? err.message : String(err)})`, { cause: err }))
      return 1
    }
    log.corruptCheckPassed(member)
  }
  log.serverStarted(member)
  const stopped = new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'))
    process.once('SIGTERM', () => resolve('SIGTERM'))
  })
  let serving: { bound: string[]; listeners: ServingListener[] }
  try {
    serving = await listenAll(etcd, cfg, clients, tls)
  } catch (err) {
    await etcd.close()
    log.failedToStart(err)
    return 1
  }
  log.nowServing(member, serving.bound)
  log.ready(member, serving.listeners)
  const signal = await stopped
  log.receivedSignal(signal)
  log.closing(member)
  await etcd.close()
  log.closed()
  return signal
}
