// The etcdlite command: etcd 3.5's command line (flags, ETCD_* environment or --config-file), its checks
// and failures as etcd reports them, then the store opened and served until SIGINT/SIGTERM.
import { readFileSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Etcd, openEtcd } from '../embed/etcd.js'
import { DataDirError } from '../backend/data-dir.js'
import { createLogger, type ZapLogger } from '../pkg/logger.js'
import { HeldLogger } from '../pkg/held-logger.js'
import { LoggingConfigError, setupLogging } from '../pkg/log-outputs.js'
import type { EtcdOptions, ListenTlsOptions } from '../embed/options.js'
import { JwtOptionsError, JwtTokenProvider, type JwtSignMethod } from '../auth/jwt-token.js'
import { realClock } from '../pkg/clock.js'
import { parseArgs, type ClientUrl, type Config, type ParseResult } from './config.js'
import { systemResolver, verifyBootstrap, type Resolver } from './bootstrap.js'
import { DEFAULT_ETCD_VERSION } from './embed-config.js'
import { ExitError, FatalError, PanicError, StartError, VerifyFlagsError } from './errors.js'
import { FlagParseError, HelpRequested } from './flag-set.js'
import { flagsHelp, USAGE } from './help.js'
import type { LogEntry } from './log-entry.js'
import type { Traffic } from '../grpc/server.js'
import { isMemberInitialized } from './member-initialized.js'
import { logRotationConfig } from './validate.js'
import { logFailedToStart, logFailedToVerifyFlags, StartupLog, type ServingListener } from './startup-log.js'

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

/** Go's GOOS/GOARCH names for this machine, as `etcd --version` prints them. */
function goOsArch(): string {
  const os = process.platform === 'win32' ? 'windows' : process.platform
  const arch = ({ x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x' } as Record<string, string>)[process.arch] ?? process.arch
  return `${os}/${arch}`
}

/**
 * `etcd --version` in etcd's shape, which tools parse, naming the etcd version etcdlite reports (the
 * --etcd-version given, or ETCD_ETCD_VERSION, or the default), then etcdlite's own version.
 */
export function versionText(argv: readonly string[], env: ReadonlyMap<string, string>): string {
  let etcdVersion = env.get('ETCD_ETCD_VERSION') || DEFAULT_ETCD_VERSION
  for (let i = 0; i < argv.length; i++) {
    const m = /^--?etcd-version(?:=(.*))?$/.exec(argv[i] ?? '')
    if (m !== null) etcdVersion = m[1] ?? argv[++i] ?? etcdVersion
  }
  return [
    `etcd Version: ${etcdVersion}`,
    'Git SHA: Not provided (etcdlite)',
    `Go Version: none (etcdlite on Node.js ${process.version})`,
    `Go OS/Arch: ${goOsArch()}`,
    `etcdlite Version: ${version()}`,
    '',
  ].join('\n')
}

/** What the command reads from its process; tests give their own. */
export interface MainIo {
  readonly env: NodeJS.ProcessEnv
  readonly resolve: Resolver
}

/** Report a failure of reading the configuration as etcd does (its output and exit code); rethrows what is not one. */
function failure(err: unknown, early: ZapLogger): number {
  if (err instanceof FlagParseError) {
    process.stderr.write(`${err.message}\n${USAGE}\n`)
    return 2
  }
  if (err instanceof HelpRequested) {
    process.stderr.write(`${USAGE}\n`)
    process.stdout.write(`${flagsHelp()}\n`)
    return 0
  }
  if (err instanceof VerifyFlagsError) {
    logFailedToVerifyFlags(early, processArgs(), err.message)
    return 1
  }
  if (err instanceof StartError) {
    logFailedToStart(early, err.message)
    return 1
  }
  if (err instanceof FatalError) {
    early.log('fatal', err.message, err.fields, err.caller)
    return 1
  }
  if (err instanceof ExitError) {
    process.stderr.write(`${err.message}\n`)
    return 1
  }
  if (err instanceof PanicError) {
    process.stderr.write(`panic: ${err.message}\n\ngoroutine 1 [running]:\n`)
    return 2
  }
  throw err
}

/** A keep-alive duration as the listener takes it: whole milliseconds, at most 2^32-1 (about 49 days). */
const keepAliveMs = (ms: number): number => Math.min(2 ** 32 - 1, Math.ceil(ms))

/**
 * etcd's ServerConfig.ReqTimeout: 5 s plus two election timeouts (counted in whole heartbeat ticks), the
 * deadline of its internal requests; 7 s with the default flags.
 */
export function requestTimeoutMs(cfg: Pick<Config, 'electionTimeoutMs' | 'heartbeatIntervalMs'>): number {
  return 5000 + 2 * Math.floor(cfg.electionTimeoutMs / cfg.heartbeatIntervalMs) * cfg.heartbeatIntervalMs
}

/**
 * Run the server until a signal stops it. Resolves with the process exit code, or with the signal that
 * stopped the server: etcd re-raises it once it has shut down, so its parent sees it end by that signal
 * (exit status 143 for SIGTERM, 130 for SIGINT in a shell).
 */
export async function main(argv: readonly string[], io: MainIo = { env: process.env, resolve: systemResolver }): Promise<number | NodeJS.Signals> {
  // etcd's sub-commands run its proxies, which etcdlite does not have.
  if (argv[0] === 'gateway' || argv[0] === 'grpc-proxy') {
    process.stderr.write(`etcdlite does not implement 'etcd ${argv[0]}' (one of etcd's proxies); it runs as a member only\n`)
    return 1
  }
  // While it reads its configuration, etcd logs with a default logger at info level.
  const early = createLogger('info')
  const log = (e: LogEntry): void => early.log(e.level, e.msg, e.fields, e.caller)
  const env = Object.entries(io.env).filter((kv): kv is [string, string] => kv[1] !== undefined)
  let parsed: ParseResult
  try {
    parsed = parseArgs(argv, { env, readFile: (p) => readConfigFile(p), log })
  } catch (err) {
    return failure(err, early)
  }
  if (parsed.kind === 'version') {
    process.stdout.write(versionText(argv, new Map(env)))
    return 0
  }
  const cfg = parsed.config
  // --auto-tls / --peer-auto-tls write their certificates under the data dir; with --memory there is none, so
  // they go to a private temporary directory that goes when the process stops.
  if (!cfg.memory || !(cfg.clientTls.autoTls || cfg.peerTls.autoTls)) return serve(cfg, parsed.notes, io.resolve, cfg.dataDir)
  const certDir = await mkdtemp(join(tmpdir(), 'etcdlite-auto-tls-'))
  try {
    return await serve(cfg, parsed.notes, io.resolve, certDir)
  } finally {
    await rm(certDir, { recursive: true, force: true })
  }
}

/** ioutil.ReadFile's errors as Go words them: `open <path>: no such file or directory`, `read <dir>: is a directory`. */
function readConfigFile(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch (err) {
    const op = (err as NodeJS.ErrnoException).code === 'EISDIR' ? 'read' : 'open'
    throw new Error(`${op} ${path}: ${goErrno(err)}`, { cause: err })
  }
}

/** Go's text for a system error. */
function goErrno(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code
  if (code === 'ENOENT') return 'no such file or directory'
  if (code === 'EACCES') return 'permission denied'
  if (code === 'EISDIR') return 'is a directory'
  return err instanceof Error ? err.message : String(err)
}


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

// ---- TLS ----
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
// ---- end TLS ----

/** os.Args as etcd logs them: the program, then its arguments. */
function processArgs(): string[] {
  return [process.argv[1] ?? 'etcd', ...process.argv.slice(2)]
}

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

async function serve(cfg: Config, notes: readonly LogEntry[], resolve: Resolver, certDir: string): Promise<number | NodeJS.Signals> {
  const args = processArgs()
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
  const peerUrls = cfg.initialAdvertisePeerUrls
  // A restored snapshot is a member already, as after etcdctl snapshot restore.
  const memberInitialized = cfg.restoreSnapshot !== undefined || (!cfg.memory && isMemberInitialized(cfg.dataDir))
  const log = new StartupLog(lg, {
    name: cfg.name,
    dataDir: cfg.dataDir,
    memory: cfg.memory,
    etcdVersion: cfg.etcdVersion,
    etcdliteVersion: version(),
    memberInitialized,
    heartbeatIntervalMs: cfg.heartbeatIntervalMs,
    electionTimeoutMs: cfg.electionTimeoutMs,
    initialAdvertisePeerUrls: peerUrls,
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
  log.starting(args, notes)
  let tls: ListenTlsOptions | undefined
  let authToken: NonNullable<EtcdOptions['authToken']>
  let clients: ClientPort[]
  try {
    // ---- TLS ----
    // etcd configures its peer listeners, then its client listeners, before it creates the server. The TLS
    // code loads only when a TLS flag is given (a plain start must fit in few file descriptors).
    const { peerTls, serverTls } = usesTls(cfg) ? await import('../pkg/transport/server-tls.js') : NO_TLS
    await peerTls(cfg.peerTls, { logger: lg, dataDir: certDir, listenPeerUrls: cfg.listenPeerUrls, validityYears: cfg.selfSignedCertValidity, cipherSuites: cfg.cipherSuites })
    tls = await serverTls(cfg.clientTls, {
      logger: lg,
      dataDir: certDir,
      listenUrls: [...cfg.listenClientUrls, ...cfg.listenClientHttpUrls].map((u) => u.url),
      validityYears: cfg.selfSignedCertValidity,
      cipherSuites: cfg.cipherSuites,
      minVersion: cfg.tlsMinVersion,
      maxVersion: cfg.tlsMaxVersion,
    })
    // ---- end TLS ----
    clients = clientPorts(cfg)
    if (cfg.enablePprof) log.pprofEnabled()
    log.startingAnEtcdServer()
    // etcdserver.NewServer's checks of a member it has yet to create.
    if (!memberInitialized) await verifyBootstrap(cfg, resolve)
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
  return signal
}
