// etcd 3.5's server configuration as etcdmain's cfg.parse reads it: the flags (config-flags.ts) with Go's
// flag semantics, then the ETCD_* environment or, with --config-file, a YAML file instead of both (config-file.ts,
// loaded only for a file); validated as etcd validates it; and turned into the Config etcdlite runs with
// (server-config.ts). Pure: argv, the environment and a file reader in; a ParseResult or one of errors.ts's
// errors out.
import { parseGoDuration } from '../pkg/duration.js'
import { InvalidRetentionError, parseRetention } from '../etcdserver/auto-compactor.js'
import { bootstrapIds, peerUrlsMapAndToken } from './bootstrap.js'
import { embedConfigFromFlags, flagSetOf, newFlags } from './config-flags.js'
import { getDefaultHost, updateDefaultClusterFromName, type DefaultHost } from './default-host.js'
import { newEmbedConfig, V2_DEPRECATION_VALUES, type EmbedConfig } from './embed-config.js'
import { StartError, VerifyFlagsError } from './errors.js'
import { flagToEnv, setFlagsFromEnv } from './flags-from-env.js'
import { goUrlHostname, goUrlPort } from '../pkg/go-url.js'
import type { LogEntry } from './log-entry.js'
import { parseLogLevel } from '../pkg/logger.js'
import type { AuthTokenFlag, ClientTlsFlags, ClientUrl, Config } from './server-config.js'
import type { EtcdUrl } from './urls.js'
import { validate } from './validate.js'

/**
 * A configuration to run with, and the lines etcd logs about it once it has logged "Running: " (the default
 * host, the default data dir); or --version.
 */
export type ParseResult = { readonly kind: 'run'; readonly config: Config; readonly notes: readonly LogEntry[] } | { readonly kind: 'version' }

/** What parsing reads besides argv. */
export interface ParseIo {
  /** The environment, in its order (process.env's entries). */
  readonly env?: readonly (readonly [string, string])[]
  /** Read a file (--config-file); throws an Error whose message is Go's (`open <path>: <reason>`). */
  readonly readFile?: (path: string) => string
  /** The machine's default host (netutil.GetDefaultHost). */
  readonly defaultHost?: () => DefaultHost
  /** Lines etcd logs while reading its configuration. */
  readonly log?: (e: LogEntry) => void
}

/** etcd's minWatchProgressInterval: shorter intervals are raised to this. */
export const MIN_WATCH_PROGRESS_INTERVAL_MS = 100
const DEFAULT_WATCH_PROGRESS_INTERVAL_MS = 10 * 60 * 1000

/** A listener URL as etcdlite binds it. */
function clientUrlOf(u: EtcdUrl, flag: string, allowHttps: boolean): ClientUrl {
  const scheme = u.url.scheme
  if (scheme !== 'http' && !(allowHttps && scheme === 'https')) {
    throw new StartError(`etcdlite cannot listen on ${u.text} (--${flag}): it serves ${allowHttps ? 'http:// and https://' : 'http://'} URLs only`)
  }
  const host = goUrlHostname(u.url)
  return { url: u.text, host: host === 'localhost' ? '127.0.0.1' : host, port: Number(goUrlPort(u.url)), secure: scheme === 'https' }
}

const nsToMs = (ns: number): number => ns / 1e6
const safeNumber = (v: bigint): number => Number(v)

/** --auth-token's type and options (etcd's decomposeOpts and NewTokenProvider); bad ones fail the start as etcd's do. */
export function parseAuthToken(v: string): AuthTokenFlag {
  const invalid = (): StartError => new StartError('auth: invalid auth options')
  const [type, ...rest] = v.split(',')
  const opts = new Map<string, string>()
  for (const o of rest) {
    const pair = o.split('=')
    if (pair.length !== 2 || opts.has(pair[0] as string)) throw invalid()
    opts.set(pair[0] as string, pair[1] as string)
  }
  if (type === 'simple') return { type: 'simple' }
  if (type !== 'jwt') throw invalid()
  let ttlMs = 0
  const ttl = opts.get('ttl') ?? ''
  if (ttl !== '') {
    try {
      ttlMs = parseGoDuration(ttl) / 1e6
    } catch {
      throw invalid()
    }
  }
  const signMethod = opts.get('sign-method') ?? ''
  if (signMethod === '') throw invalid()
  return { type: 'jwt', signMethod, pubKeyFile: opts.get('pub-key') ?? '', privKeyFile: opts.get('priv-key') ?? '', ttlMs }
}

/** The Config etcdlite runs with, from a validated embed.Config. */
function toConfig(ec: EmbedConfig): Config {
  const mode = ec.autoCompactionMode === 'revision' ? 'revision' : 'periodic'
  const retention = ec.autoCompactionRetention === '' ? '0' : ec.autoCompactionRetention
  try {
    parseRetention(mode, retention)
  } catch (e) {
    if (e instanceof InvalidRetentionError) throw new StartError(e.message)
    throw e
  }
  const progressMs = nsToMs(ec.experimentalWatchProgressNotifyIntervalNs)
  const listenPeerUrls = ec.listenPeerUrls.map((u) => u.text)
  const initialAdvertisePeerUrls = ec.advertisePeerUrls.map((u) => u.text)
  const bootstrap = {
    name: ec.name,
    initialCluster: ec.initialCluster,
    initialClusterToken: ec.initialClusterToken,
    initialClusterState: ec.clusterState === 'existing' ? 'existing' : 'new',
    initialAdvertisePeerUrls,
    discovery: ec.durl,
    discoverySrv: ec.dnsCluster,
    proxy: ec.proxy === 'on' ? 'on' : ec.proxy === 'readonly' ? 'readonly' : 'off',
  } as const
  // The IDs a new cluster of this configuration gets; an initial cluster that fails the bootstrap checks
  // never reaches a new data dir, so the fallback (this member alone) only fills the field.
  let ids: { memberId: bigint; clusterId: bigint }
  try {
    const { urlsmap, token } = peerUrlsMapAndToken(bootstrap)
    ids = bootstrapIds(bootstrap, urlsmap.has(ec.name) ? urlsmap : new Map([[ec.name, ec.advertisePeerUrls]]), token)
  } catch (err) {
    if (!(err instanceof StartError)) throw err
    ids = bootstrapIds(bootstrap, new Map([[ec.name, ec.advertisePeerUrls]]), ec.initialClusterToken)
  }
  const listenClientUrls = ec.listenClientUrls.map((u) => clientUrlOf(u, 'listen-client-urls', true))
  const clientTls: ClientTlsFlags = {
    certFile: ec.clientTls.certFile,
    keyFile: ec.clientTls.keyFile,
    trustedCaFile: ec.clientTls.trustedCaFile,
    clientCertAuth: ec.clientTls.clientCertAuth,
    crlFile: ec.clientTls.crlFile,
    clientCertFile: ec.clientTls.clientCertFile,
    clientKeyFile: ec.clientTls.clientKeyFile,
    autoTls: ec.clientAutoTls,
    allowedHostnames: ec.clientTls.allowedHostnames,
  }
  return {
    name: ec.name,
    dataDir: ec.dir,
    memory: ec.memory,
    listenClientUrls,
    listenClientHttpUrls: ec.listenClientHttpUrls.map((u) => clientUrlOf(u, 'listen-client-http-urls', true)),
    advertiseClientUrls: ec.advertiseClientUrls?.map((u) => u.text),
    maxRequestBytes: safeNumber(ec.maxRequestBytes),
    maxTxnOps: safeNumber(ec.maxTxnOps),
    maxConcurrentStreams: ec.maxConcurrentStreams,
    unsafeNoFsync: ec.unsafeNoFsync,
    // validate() refused any other level (etcd panics).
    logLevel: parseLogLevel(ec.logLevel),
    logger: ec.logger,
    logOutputs: ec.logOutputs,
    enableLogRotation: ec.enableLogRotation,
    logRotationConfigJson: ec.logRotationConfigJson,
    // As etcd: zero or negative keeps the default; positive values below the minimum are raised to it.
    watchProgressNotifyIntervalMs: progressMs <= 0 ? DEFAULT_WATCH_PROGRESS_INTERVAL_MS : Math.max(MIN_WATCH_PROGRESS_INTERVAL_MS, progressMs),
    indexCheckpointEntries: safeNumber(ec.indexCheckpointEntries),
    initialAdvertisePeerUrls,
    listenPeerUrls,
    initialCluster: ec.initialCluster,
    initialClusterToken: ec.initialClusterToken,
    initialClusterState: bootstrap.initialClusterState,
    discovery: ec.durl,
    discoverySrv: ec.dnsCluster,
    proxy: bootstrap.proxy,
    forceNewCluster: ec.forceNewCluster,
    memberId: ids.memberId,
    clusterId: ids.clusterId,
    electionTimeoutMs: safeNumber(ec.electionMs),
    heartbeatIntervalMs: safeNumber(ec.tickMs),
    quotaBackendBytes: safeNumber(ec.quotaBackendBytes),
    autoCompactionMode: mode,
    autoCompactionRetention: retention,
    listenMetricsUrls: ec.listenMetricsUrls.map((u) => clientUrlOf(u, 'listen-metrics-urls', false)),
    metrics: ec.metrics === 'extensive' ? 'extensive' : 'basic',
    enablePprof: ec.enablePprof,
    etcdVersion: ec.etcdVersion,
    restoreSnapshot: ec.restoreSnapshot === '' ? undefined : ec.restoreSnapshot,
    authToken: parseAuthToken(ec.authToken),
    authTokenTtl: safeNumber(ec.authTokenTtl),
    bcryptCost: safeNumber(ec.bcryptCost),
    clientTls,
    peerTls: {
      certFile: ec.peerTls.certFile,
      keyFile: ec.peerTls.keyFile,
      trustedCaFile: ec.peerTls.trustedCaFile,
      clientCertAuth: ec.peerTls.clientCertAuth,
      crlFile: ec.peerTls.crlFile,
      clientCertFile: ec.peerTls.clientCertFile,
      clientKeyFile: ec.peerTls.clientKeyFile,
      autoTls: ec.peerAutoTls,
      allowedCn: ec.peerTls.allowedCns,
      allowedHostnames: ec.peerTls.allowedHostnames,
    },
    cipherSuites: ec.cipherSuites,
    tlsMinVersion: ec.tlsMinVersion,
    tlsMaxVersion: ec.tlsMaxVersion,
    selfSignedCertValidity: safeNumber(ec.selfSignedCertValidity),
    grpcKeepAliveMinTimeMs: nsToMs(ec.grpcKeepAliveMinTimeNs),
    grpcKeepAliveIntervalMs: nsToMs(ec.grpcKeepAliveIntervalNs),
    grpcKeepAliveTimeoutMs: nsToMs(ec.grpcKeepAliveTimeoutNs),
    enableGrpcGateway: ec.enableGrpcGateway,
    corsOrigins: [...ec.cors].sort(),
    hostWhitelist: [...ec.hostWhitelist].sort(),
    experimentalInitialCorruptCheck: ec.experimentalInitialCorruptCheck,
    experimentalCorruptCheckTimeMs: nsToMs(ec.experimentalCorruptCheckTimeNs),
    experimentalEnableLeaseCheckpoint: ec.experimentalEnableLeaseCheckpoint,
    experimentalEnableLeaseCheckpointPersist: ec.experimentalEnableLeaseCheckpointPersist,
    enableV2: ec.enableV2,
    v2Deprecation: ec.v2Deprecation,
    experimentalEnableV2V3: ec.experimentalEnableV2V3,
  }
}

/**
 * etcd's cfg.parse and what startEtcdOrProxyV2 does before it opens the data dir. Rejects with
 * FlagParseError or HelpRequested (from the flag set), VerifyFlagsError, StartError, FatalError, ExitError or
 * PanicError. Asynchronous only because the config file's reader loads when a file is given: a plain start
 * loads none of it.
 */
export async function parseArgs(argv: readonly string[], io: ParseIo = {}): Promise<ParseResult> {
  const env = io.env ?? []
  const log = io.log ?? ((): void => undefined)
  const f = newFlags()
  const fs = flagSetOf(f)
  fs.parse(argv)
  const stray = fs.args[0]
  if (stray !== undefined) throw new VerifyFlagsError(`'${stray}' is not a valid flag`)
  if (f.version.value) return { kind: 'version' }
  const defaultInitialCluster = newEmbedConfig().initialCluster
  const configFile = f['config-file'].value !== '' ? f['config-file'].value : (env.find(([k]) => k === flagToEnv('ETCD', 'config-file'))?.[1] ?? '')
  let ec: EmbedConfig
  if (configFile !== '') {
    const read = io.readFile ?? ((p: string): string => { throw new Error(`open ${p}: no file reader`) })
    let text: string
    try {
      text = read(configFile)
    } catch (err) {
      throw new VerifyFlagsError(err instanceof Error ? err.message : String(err))
    }
    const { applyConfigFile, applyProxyConfig } = await import('./config-file.js')
    ec = newEmbedConfig()
    const doc = applyConfigFile(text, ec)
    validate(ec, log)
    applyProxyConfig(doc, ec)
    log({ level: 'info', msg: 'loaded server configuration, other configuration command line flags and environment variables will be ignored if provided', fields: { path: configFile }, caller: 'etcdmain/config.go:354' })
  } else {
    const version = env.find(([k]) => k === 'ETCD_VERSION')?.[1] ?? ''
    // etcd unsets ETCD_VERSION (it would set --version) and says so.
    const rest = version === '' ? env : env.filter(([k]) => k !== 'ETCD_VERSION')
    if (version !== '') log({ level: 'warn', msg: 'cannot set special environment variable', fields: { key: 'ETCD_VERSION', value: version }, caller: 'etcdmain/config.go:382' })
    setFlagsFromEnv(fs, 'ETCD', rest, log)
    ec = embedConfigFromFlags(f, fs, log)
    validate(ec, log)
  }
  if (ec.v2Deprecation === '') ec.v2Deprecation = V2_DEPRECATION_VALUES[0] ?? 'not-yet'
  // What startEtcdOrProxyV2 does and logs once it has logged "Running: ".
  const notes: LogEntry[] = []
  const dh = (io.defaultHost ?? getDefaultHost)()
  const used = updateDefaultClusterFromName(ec, defaultInitialCluster, dh)
  if (used !== undefined) notes.push({ level: 'info', msg: 'detected default host for advertise', fields: { host: used }, caller: 'etcdmain/etcd.go:94' })
  if ('error' in dh) notes.push({ level: 'info', msg: 'failed to detect default host', fields: { error: dh.error }, caller: 'etcdmain/etcd.go:100' })
  if (ec.dir === '') {
    // etcd's default is "<name>.etcd"; etcdlite's data is not etcd's, so its directory is named apart.
    ec.dir = `${ec.name}.etcdlite`
    if (!ec.memory) notes.push({ level: 'warn', msg: "'data-dir' was empty; using default", fields: { 'data-dir': ec.dir }, caller: 'etcdmain/etcd.go:105' })
  }
  return { kind: 'run', config: toConfig(ec), notes }
}
