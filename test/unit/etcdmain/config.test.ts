// etcd 3.5's command line as etcdlite parses it: Go's flag package rules, every flag's type and default,
// the ETCD_* environment and its warnings, etcd's checks with their texts, and the IDs of a new member.
// The texts were checked against etcd 3.4.23 where 3.5 words them the same, and read from 3.5.17's source.
import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { parseArgs, type ParseIo } from '../../../src/etcdmain/config.js'
import type { Config } from '../../../src/etcdmain/server-config.js'
import type { LogEntry } from '../../../src/etcdmain/log-entry.js'

const NO_HOST: ParseIo = { defaultHost: () => ({ error: 'no default host in tests' }) }

async function config(args: readonly string[], io: ParseIo = {}): Promise<Config> {
  const r = await parseArgs(args, { ...NO_HOST, ...io })
  assert.equal(r.kind, 'run')
  if (r.kind !== 'run') throw new Error('unreachable')
  return r.config
}

/** The lines parsing logs, and its config. */
async function logged(args: readonly string[], env: readonly (readonly [string, string])[]): Promise<{ cfg: Config; logs: LogEntry[] }> {
  const logs: LogEntry[] = []
  const cfg = await config(args, { env, log: (e) => logs.push(e) })
  return { cfg, logs }
}

async function refused(args: readonly string[], name: string, message: string, io: ParseIo = {}): Promise<void> {
  await assert.rejects(parseArgs(args, { ...NO_HOST, ...io }), (e: unknown) => {
    assert.ok(e instanceof Error)
    assert.equal(e.name, name)
    assert.equal(e.message, message)
    return true
  })
}

describe("Go's flag syntax", () => {
  it('-flag and --flag, =value and a separate value, all alike', async () => {
    for (const args of [['-name', 'a'], ['--name', 'a'], ['-name=a'], ['--name=a']]) assert.equal((await config(args)).name, 'a')
  })
  it('a flag given twice keeps the last value', async () => {
    assert.equal((await config(['--name', 'a', '--name', 'b'])).name, 'b')
    assert.equal((await config(['--max-txn-ops', '5', '--max-txn-ops=7'])).maxTxnOps, 7)
  })
  it('bools: --flag is true, --flag=false is false, and a separate word is not their value', async () => {
    assert.equal((await config(['--memory'])).memory, true)
    assert.equal((await config(['--memory=false'])).memory, false)
    assert.equal((await config(['--memory=t', '--memory=F'])).memory, false)
    await refused(['--memory', 'false'], 'VerifyFlagsError', "'false' is not a valid flag")
  })
  it("integers take Go's base prefixes and underscores", async () => {
    assert.equal((await config(['--max-txn-ops', '0x10'])).maxTxnOps, 16)
    assert.equal((await config(['--max-txn-ops', '010'])).maxTxnOps, 8)
    assert.equal((await config(['--max-txn-ops', '0b11'])).maxTxnOps, 3)
    assert.equal((await config(['--max-txn-ops', '1_000'])).maxTxnOps, 1000)
  })
  it('"--" ends the flags; what follows is refused as etcd refuses positional arguments', async () => {
    assert.equal((await config(['--name', 'a', '--'])).name, 'a')
    await refused(['--', '--name', 'a'], 'VerifyFlagsError', "'--name' is not a valid flag")
  })
  const bad: ReadonlyArray<readonly [readonly string[], string]> = [
    [['--no-such-flag'], 'flag provided but not defined: -no-such-flag'],
    [['-x=1'], 'flag provided but not defined: -x'],
    [['--max-txn-ops', 'abc'], 'invalid value "abc" for flag -max-txn-ops: parse error'],
    [['--max-request-bytes', '-5'], 'invalid value "-5" for flag -max-request-bytes: parse error'],
    [['--max-txn-ops', '99999999999999999999'], 'invalid value "99999999999999999999" for flag -max-txn-ops: value out of range'],
    [['--quota-backend-bytes', '1.5'], 'invalid value "1.5" for flag -quota-backend-bytes: parse error'],
    [['--data-dir'], 'flag needs an argument: -data-dir'],
    [['--memory=maybe'], 'invalid boolean value "maybe" for -memory: parse error'],
    [['---name', 'a'], 'bad flag syntax: ---name'],
    [['-=a'], 'bad flag syntax: -=a'],
    [['--experimental-watch-progress-notify-interval', '5'], 'invalid value "5" for flag -experimental-watch-progress-notify-interval: parse error'],
    [['--max-concurrent-streams', '4294967296'], 'invalid value "4294967296" for flag -max-concurrent-streams: strconv.ParseUint: parsing "4294967296": value out of range'],
    [['--max-concurrent-streams', 'x'], 'invalid value "x" for flag -max-concurrent-streams: strconv.ParseUint: parsing "x": invalid syntax'],
    [['--initial-cluster-state', 'old'], 'invalid value "old" for flag -initial-cluster-state: invalid value'],
    [['--proxy', 'maybe'], 'invalid value "maybe" for flag -proxy: invalid value'],
    [['--discovery-fallback', 'x'], 'invalid value "x" for flag -discovery-fallback: invalid value'],
    [['--v2-deprecation', 'not-yet,soon'], 'invalid value "not-yet,soon" for flag -v2-deprecation: invalid value "soon"'],
    [['--listen-client-urls', 'notaurl'], 'invalid value "notaurl" for flag -listen-client-urls: URL scheme must be http, https, unix, or unixs: notaurl'],
    [['--listen-client-urls', 'http://127.0.0.1'], 'invalid value "http://127.0.0.1" for flag -listen-client-urls: URL address does not have the form "host:port": http://127.0.0.1'],
    [['--listen-peer-urls', 'http://127.0.0.1:2380/x'], 'invalid value "http://127.0.0.1:2380/x" for flag -listen-peer-urls: URL must not contain a path: http://127.0.0.1:2380/x'],
    [['--advertise-client-urls', 'http://h:port'], 'invalid value "http://h:port" for flag -advertise-client-urls: parse "http://h:port": invalid port ":port" after host'],
    [['--initial-advertise-peer-urls', 'http://a b:1'], 'invalid value "http://a b:1" for flag -initial-advertise-peer-urls: parse "http://a b:1": invalid character " " in host name'],
    [['--cors', 'x'], 'invalid value "x" for flag -cors: URL scheme must be http, https, unix, or unixs: x'],
  ]
  for (const [args, message] of bad) {
    it(`${args.join(' ')}: ${message}`, async () => await refused(args, 'FlagParseError', message))
  }
  it('-h and -help ask for help (Go: they are not defined flags)', async () => {
    for (const a of ['-h', '--help', '-help', '--h']) await refused([a], 'HelpRequested', 'flag: help requested')
  })
  it('--version wins over everything after the flags parse, even an invalid configuration', async () => {
    assert.deepEqual(await parseArgs(['--version', '--heartbeat-interval', '0'], NO_HOST), { kind: 'version' })
  })
  it("etcd's ignored flags are taken without a value and change nothing", async () => {
    const cfg = await config(['--snapshot', '--v', '--peer-election-timeout=abc', '--name', 'x'])
    assert.equal(cfg.name, 'x')
  })
})

describe('defaults are etcd 3.5.17\'s', () => {
  let cfg: Config
  before(async () => {
    cfg = await config([])
  })
  it('member, cluster and limits', () => {
    assert.equal(cfg.name, 'default')
    assert.equal(cfg.dataDir, 'default.etcdlite')
    assert.deepEqual(cfg.listenClientUrls, [{ url: 'http://localhost:2379', host: '127.0.0.1', port: 2379, secure: false }])
    assert.deepEqual(cfg.advertiseClientUrls, ['http://localhost:2379'])
    assert.deepEqual(cfg.listenPeerUrls, ['http://localhost:2380'])
    assert.deepEqual(cfg.initialAdvertisePeerUrls, ['http://localhost:2380'])
    assert.equal(cfg.initialCluster, 'default=http://localhost:2380')
    assert.equal(cfg.initialClusterToken, 'etcd-cluster')
    assert.equal(cfg.initialClusterState, 'new')
    assert.equal(cfg.maxRequestBytes, 1_572_864)
    assert.equal(cfg.maxTxnOps, 128)
    assert.equal(cfg.maxConcurrentStreams, 4_294_967_295)
    assert.equal(cfg.heartbeatIntervalMs, 100)
    assert.equal(cfg.electionTimeoutMs, 1000)
  })
  it('logging, gRPC, TLS and the rest', () => {
    assert.equal(cfg.logLevel, 'info')
    assert.equal(cfg.logger, 'zap')
    assert.deepEqual(cfg.logOutputs, ['default'])
    assert.equal(cfg.grpcKeepAliveMinTimeMs, 5000)
    assert.equal(cfg.grpcKeepAliveIntervalMs, 7_200_000)
    assert.equal(cfg.grpcKeepAliveTimeoutMs, 20_000)
    assert.equal(cfg.enableGrpcGateway, true)
    assert.equal(cfg.metrics, 'basic')
    assert.deepEqual(cfg.corsOrigins, ['*'])
    assert.deepEqual(cfg.hostWhitelist, ['*'])
    assert.equal(cfg.tlsMinVersion, 'TLS1.2')
    assert.equal(cfg.tlsMaxVersion, '')
    assert.equal(cfg.selfSignedCertValidity, 1)
    assert.deepEqual(cfg.cipherSuites, [])
    assert.equal(cfg.v2Deprecation, 'not-yet')
    assert.equal(cfg.watchProgressNotifyIntervalMs, 600_000)
    assert.equal(cfg.etcdVersion, '3.5.17')
  })
})

describe('values as etcd keeps them', () => {
  it('URL lists: sorted, deduplicated, Go-normalised (scheme lower case)', async () => {
    const cfg = await config(['--advertise-client-urls', 'http://b:1,HTTP://a:1,http://b:1'])
    assert.deepEqual(cfg.advertiseClientUrls, ['http://a:1', 'http://b:1'])
  })
  it('--listen-client-urls alone: etcdlite advertises what it binds', async () => {
    assert.equal((await config(['--listen-client-urls', 'http://127.0.0.1:0'])).advertiseClientUrls, undefined)
  })
  it('--log-outputs and --host-whitelist are sets; --cipher-suites a list in order', async () => {
    const cfg = await config(['--log-outputs', 'stdout,stderr,stdout', '--host-whitelist', 'b,a', '--cipher-suites', 'Y,X'])
    assert.deepEqual(cfg.logOutputs, ['stderr', 'stdout'])
    assert.deepEqual(cfg.hostWhitelist, ['a', 'b'])
    assert.deepEqual(cfg.cipherSuites, ['Y', 'X'])
  })
  it('--log-level takes zap\'s levels, in either case', async () => {
    for (const [v, want] of [['debug', 'debug'], ['WARN', 'warn'], ['panic', 'panic'], ['fatal', 'fatal'], ['', 'info']] as const) {
      assert.equal((await config(['--log-level', v])).logLevel, want)
    }
  })
  it('durations: etcd raises the watch progress interval to 100ms and keeps 10m for zero or less', async () => {
    const ms = async (v: string): Promise<number> => (await config(['--experimental-watch-progress-notify-interval', v])).watchProgressNotifyIntervalMs
    assert.equal(await ms('2s'), 2000)
    assert.equal(await ms('10ms'), 100)
    assert.equal(await ms('0'), 600_000)
    assert.equal(await ms('-5s'), 600_000)
    assert.equal((await config(['--grpc-keepalive-min-time', '1m30s'])).grpcKeepAliveMinTimeMs, 90_000)
  })
  it('TLS settings, client and peer', async () => {
    const cfg = await config([
      '--client-crl-file', '/crl', '--client-cert-file', '/cc', '--client-key-file', '/ck', '--auto-tls', '--client-cert-allowed-hostname', 'h1,h2',
      '--peer-cert-file', '/pc', '--peer-key-file', '/pk', '--peer-trusted-ca-file', '/pca', '--peer-client-cert-auth', '--peer-crl-file', '/pcrl',
      '--peer-auto-tls', '--peer-cert-allowed-cn', 'cn1', '--peer-client-cert-file', '/pcc', '--peer-client-key-file', '/pck', '--peer-cert-allowed-hostname', 'ph', '--tls-max-version', 'TLS1.3', '--self-signed-cert-validity', '3',
    ])
    assert.deepEqual(cfg.clientTls, {
      certFile: '', keyFile: '', trustedCaFile: '', clientCertAuth: false, crlFile: '/crl', clientCertFile: '/cc', clientKeyFile: '/ck', autoTls: true, allowedHostnames: ['h1', 'h2'],
    })
    assert.deepEqual(cfg.peerTls, {
      certFile: '/pc', keyFile: '/pk', trustedCaFile: '/pca', clientCertAuth: true, crlFile: '/pcrl', clientCertFile: '/pcc', clientKeyFile: '/pck', autoTls: true,
      allowedCn: ['cn1'], allowedHostnames: ['ph'],
    })
    assert.equal(cfg.tlsMaxVersion, 'TLS1.3')
    assert.equal(cfg.selfSignedCertValidity, 3)
  })
  it("etcdlite's own flags", async () => {
    const cfg = await config(['--memory', '--etcd-version', '3.4.23', '--index-checkpoint-entries', '8', '--restore-snapshot', '/s.db'])
    assert.deepEqual([cfg.memory, cfg.etcdVersion, cfg.indexCheckpointEntries, cfg.restoreSnapshot], [true, '3.4.23', 8, '/s.db'])
  })
})

describe("etcd's checks of the configuration (failed to verify flags)", () => {
  const cases: ReadonlyArray<readonly [readonly string[], string]> = [
    [['serve'], "'serve' is not a valid flag"],
    [['--heartbeat-interval', '0'], '--heartbeat-interval must be >0 (set to 0ms)'],
    [['--election-timeout', '0'], '--election-timeout must be >0 (set to 0ms)'],
    [['--heartbeat-interval', '300'], '--election-timeout[1000ms] should be at least as 5 times as --heartbeat-interval[300ms]'],
    [['--election-timeout', '60000'], '--election-timeout[60000ms] is too long, and should be set less than 50000ms'],
    [['--auto-compaction-mode', 'hourly'], 'unknown auto-compaction-mode "hourly"'],
    [['--logger', 'capnslog'], '--logger=capnslog is removed in v3.5'],
    [['--logger', 'x'], 'unknown logger option "x"'],
    [['--log-outputs', 'default,stderr'], 'multi logoutput for "default" is not supported yet'],
    [['--enable-log-rotation'], '--log-outputs requires a single file path when --log-rotate-config-json is defined'],
    [['--listen-client-urls', 'http://example.com:2379'], 'expected IP in URL for binding (http://example.com:2379)'],
    [['--listen-peer-urls', 'http://example.com:2380'], 'expected IP in URL for binding (http://example.com:2380)'],
    [['--initial-advertise-peer-urls', 'http://:2380'], '--initial-advertise-peer-urls "http://:2380" must be "host:port" (unexpected empty host (http://:2380))'],
    [['--discovery', 'https://d.example/x', '--initial-cluster', 'default=http://localhost:2380'], 'multiple discovery or bootstrap flags are set. Choose one of "initial-cluster", "discovery" or "discovery-srv"'],
    [['--experimental-enable-lease-checkpoint-persist'], 'setting experimental-enable-lease-checkpoint-persist requires experimental-enable-lease-checkpoint'],
    [['--experimental-compact-hash-check-time', '0'], '--experimental-compact-hash-check-time must be >0 (set to 0s)'],
    [['--tls-min-version', 'TLS1.1'], 'unexpected TLS version "TLS1.1" (must be one of: TLS1.2, TLS1.3)'],
    [['--tls-min-version', 'TLS1.3', '--tls-max-version', 'TLS1.2'], 'min version (TLS1.3) is greater than max version (TLS1.2)'],
    [['--tls-min-version', 'TLS1.3', '--cipher-suites', 'TLS_AES_128_GCM_SHA256'], 'cipher suites cannot be configured when only TLS1.3 is enabled'],
    [['--experimental-enable-distributed-tracing', '--experimental-distributed-tracing-sampling-rate', '-1'], 'distributed tracing configurition is not valid: (tracing sampling rate must be positive)'],
  ]
  for (const [args, message] of cases) {
    it(`${args.join(' ')}: ${message}`, async () => await refused(args, 'VerifyFlagsError', message))
  }
  it('an unknown --log-level makes etcd panic', async () => await refused(['--log-level', 'loud'], 'PanicError', 'unrecognized level: "loud"'))
  it('a bad auto-compaction retention fails the start, as in etcd', async () => {
    await refused(['--auto-compaction-retention', 'abc'], 'StartError', 'error parsing CompactionRetention: time: invalid duration "abc"')
  })
})

describe('--auth-token, --auth-token-ttl, --bcrypt-cost', () => {
  const cases: ReadonlyArray<{ args: readonly string[]; want: unknown }> = [
    { args: [], want: { authToken: { type: 'simple' }, authTokenTtl: 300, bcryptCost: 10 } },
    { args: ['--auth-token', 'simple', '--auth-token-ttl', '5', '--bcrypt-cost=4'], want: { authToken: { type: 'simple' }, authTokenTtl: 5, bcryptCost: 4 } },
    {
      args: ['--auth-token', 'jwt,pub-key=/p.pem,priv-key=/k.pem,sign-method=RS256,ttl=10m'],
      want: { authToken: { type: 'jwt', signMethod: 'RS256', pubKeyFile: '/p.pem', privKeyFile: '/k.pem', ttlMs: 600_000 }, authTokenTtl: 300, bcryptCost: 10 },
    },
    { args: ['--auth-token', 'jwt,priv-key=/k,sign-method=HS256'], want: { authToken: { type: 'jwt', signMethod: 'HS256', pubKeyFile: '', privKeyFile: '/k', ttlMs: 0 }, authTokenTtl: 300, bcryptCost: 10 } },
    // etcd: "auth: invalid auth options" for an unknown type, a malformed or repeated option, a bad ttl, no sign-method.
    { args: ['--auth-token', 'foo'], want: 'auth: invalid auth options' },
    { args: ['--auth-token', 'jwt,priv-key'], want: 'auth: invalid auth options' },
    { args: ['--auth-token', 'jwt,sign-method=RS256,sign-method=RS256'], want: 'auth: invalid auth options' },
    { args: ['--auth-token', 'jwt,sign-method=RS256,ttl=5'], want: 'auth: invalid auth options' },
    { args: ['--auth-token', 'jwt,priv-key=/k'], want: 'auth: invalid auth options' },
  ]
  for (const c of cases) {
    it(`${c.args.join(' ') || '(defaults)'}`, async () => {
      if (typeof c.want === 'string') {
        await refused(c.args, 'StartError', c.want)
        return
      }
      const cfg = await config(c.args)
      assert.deepEqual({ authToken: cfg.authToken, authTokenTtl: cfg.authTokenTtl, bcryptCost: cfg.bcryptCost }, c.want)
    })
  }
})

describe('the ETCD_* environment (flags.SetFlagsFromEnv)', () => {
  it('sets every flag the command line does not, and logs each it used', async () => {
    const { cfg, logs } = await logged(['--name', 'cli'], [['ETCD_MAX_TXN_OPS', '7'], ['ETCD_LISTEN_CLIENT_URLS', 'http://127.0.0.1:0'], ['ETCD_MEMORY', 'true'], ['PATH', '/bin']])
    assert.equal(cfg.name, 'cli')
    assert.equal(cfg.maxTxnOps, 7)
    assert.equal(cfg.memory, true)
    // Set by the environment, --listen-client-urls counts as given: no default advertised URL.
    assert.equal(cfg.advertiseClientUrls, undefined)
    assert.deepEqual(
      logs.filter((l) => l.msg === 'recognized and used environment variable').map((l) => l.fields?.['variable-name']),
      ['ETCD_LISTEN_CLIENT_URLS', 'ETCD_MAX_TXN_OPS', 'ETCD_MEMORY'],
    )
  })
  it('an empty variable is not used', async () => {
    assert.equal((await config([], { env: [['ETCD_NAME', '']] })).name, 'default')
  })
  it('warns about ETCD_ variables no flag takes (such as ETCD_UNSUPPORTED_ARCH), in the environment\'s order', async () => {
    const { logs } = await logged([], [['ETCD_UNSUPPORTED_ARCH', 'amd64'], ['ETCD_NO_SUCH', 'x'], ['HOME', '/root']])
    assert.deepEqual(
      logs.filter((l) => l.level === 'warn' && l.msg === 'unrecognized environment variable').map((l) => l.fields),
      [{ 'environment-variable': 'ETCD_UNSUPPORTED_ARCH=amd64' }, { 'environment-variable': 'ETCD_NO_SUCH=x' }],
    )
  })
  it('a variable a command-line flag shadows stops the start (fatal)', async () => {
    await refused(['--name', 'a'], 'FatalError', 'conflicting environment variable is shadowed by corresponding command-line flag (either unset environment variable or disable flag))', { env: [['ETCD_NAME', 'b']] })
  })
  it('a value the flag refuses: "invalid value ... for ETCD_X"', async () => {
    await refused([], 'VerifyFlagsError', 'invalid value "lots" for ETCD_MAX_TXN_OPS: parse error', { env: [['ETCD_MAX_TXN_OPS', 'lots']] })
    await refused([], 'VerifyFlagsError', 'invalid value "x" for ETCD_STRICT_RECONFIG_CHECK: parse error', { env: [['ETCD_STRICT_RECONFIG_CHECK', 'x']] })
  })
  it('ETCD_VERSION is special: etcd warns and drops it', async () => {
    const { logs } = await logged([], [['ETCD_VERSION', '3.5.0']])
    assert.deepEqual(logs.filter((l) => l.msg === 'cannot set special environment variable').map((l) => [l.level, l.fields]), [['warn', { key: 'ETCD_VERSION', value: '3.5.0' }]])
    assert.deepEqual(logs.filter((l) => JSON.stringify(l).includes('ETCD_VERSION')).length, 1, 'not warned about again as unrecognized')
  })
  it("etcdlite's own flags come from the environment too (ETCD_ETCD_VERSION)", async () => {
    assert.equal((await config([], { env: [['ETCD_ETCD_VERSION', '3.4.23']] })).etcdVersion, '3.4.23')
  })
})

describe('cluster flags and the IDs of a new member', () => {
  it("etcd's e2e flag set gives the IDs etcd 3.4.23 reports for it", async () => {
    const cfg = await config([
      '--name', 'testname0', '--listen-client-urls', 'http://localhost:31379', '--advertise-client-urls', 'http://localhost:31379',
      '--listen-peer-urls', 'http://localhost:31380', '--initial-advertise-peer-urls', 'http://localhost:20001', '--initial-cluster-token', 'new',
      '--data-dir', '/tmp/x', '--snapshot-count', '100000', '--enable-v2', '--experimental-initial-corrupt-check', '--strict-reconfig-check=false',
      '--initial-cluster', 'testname0=http://localhost:20001',
    ])
    assert.equal(cfg.memberId, 14578408409545168728n)
    assert.equal(cfg.clusterId, 238453183653593855n)
    assert.equal(cfg.experimentalInitialCorruptCheck, true)
    assert.equal(cfg.enableV2, true)
  })
  it('--name alone makes the initial cluster "<name>=<advertised peer URLs>" (UpdateDefaultClusterFromName)', async () => {
    assert.equal((await config(['--name', 'n1', '--initial-advertise-peer-urls', 'http://127.0.0.1:2380'])).initialCluster, 'n1=http://127.0.0.1:2380')
    assert.equal((await config(['--name', 'n1', '--initial-cluster', 'x=http://a:1'])).initialCluster, 'x=http://a:1')
  })
  it('a default host replaces the advertised defaults of a member listening on 0.0.0.0', async () => {
    const cfg = await config(['--listen-peer-urls', 'http://0.0.0.0:2390', '--listen-client-urls', 'http://0.0.0.0:2389'], { defaultHost: () => ({ host: '10.1.2.3' }) })
    assert.deepEqual(cfg.initialAdvertisePeerUrls, ['http://10.1.2.3:2390'])
    assert.equal(cfg.advertiseClientUrls, undefined)
  })
  it('a discovery flag without --initial-cluster drops the default initial cluster', async () => {
    assert.equal((await config(['--discovery', 'https://d.example/t'])).initialCluster, '')
  })
})
