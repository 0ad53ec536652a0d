// --config-file as etcd reads it: embed.Config's YAML keys (nested TLS blocks, lists, URL lists as
// comma-separated strings, durations in nanoseconds), YAML 1.1 scalars, flags and environment ignored, and
// Go's error texts (each error text below is what etcd's own embed.ConfigFromFile printed for that file,
// built from etcd 3.4.23's Go source on this machine).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseArgs, type ParseIo } from '../../../src/etcdmain/config.js'
import type { Config } from '../../../src/etcdmain/server-config.js'
import type { LogEntry } from '../../../src/etcdmain/log-entry.js'

const PATH = '/etc/etcd/etcd.conf.yml'

function io(text: string, extra: Partial<ParseIo> = {}): ParseIo {
  return {
    defaultHost: () => ({ error: 'no default host in tests' }),
    readFile: (p) => {
      if (p !== PATH) throw new Error(`open ${p}: no such file or directory`)
      return text
    },
    ...extra,
  }
}

async function fromFile(text: string, args: readonly string[] = [], extra: Partial<ParseIo> = {}): Promise<Config> {
  const r = await parseArgs(['--config-file', PATH, ...args], io(text, extra))
  if (r.kind !== 'run') throw new Error('not a run')
  return r.config
}

async function refused(text: string, name: string, message: string): Promise<void> {
  await assert.rejects(parseArgs(['--config-file', PATH], io(text)), (e: unknown) => {
    assert.ok(e instanceof Error)
    assert.deepEqual([e.name, e.message], [name, message])
    return true
  })
}

/** The keys of etcd's etcd.conf.yml.sample (3.5), with its values. */
const SAMPLE = `
name: 'default'
data-dir:
wal-dir:
snapshot-count: 10000
heartbeat-interval: 100
election-timeout: 1000
quota-backend-bytes: 0
listen-peer-urls: http://localhost:2380
listen-client-urls: http://localhost:2379
max-snapshots: 5
max-wals: 5
cors:
initial-advertise-peer-urls: http://localhost:2380
advertise-client-urls: http://localhost:2379
discovery:
discovery-fallback: 'proxy'
discovery-proxy:
discovery-srv:
initial-cluster:
initial-cluster-token: 'etcd-cluster'
initial-cluster-state: 'new'
strict-reconfig-check: false
enable-v2: true
enable-pprof: true
proxy: 'off'
proxy-failure-wait: 5000
proxy-refresh-interval: 30000
proxy-dial-timeout: 1000
proxy-write-timeout: 5000
proxy-read-timeout: 0
client-transport-security:
  cert-file:
  key-file:
  client-cert-auth: false
  trusted-ca-file:
  auto-tls: false
peer-transport-security:
  cert-file:
  key-file:
  client-cert-auth: false
  trusted-ca-file:
  auto-tls: false
  allowed-cn:
  allowed-hostname:
self-signed-cert-validity: 1
log-level: debug
logger: zap
log-outputs: [stderr]
force-new-cluster: false
auto-compaction-mode: periodic
auto-compaction-retention: "1"
`

describe('--config-file', () => {
  it("reads etcd's sample file", async () => {
    const cfg = await fromFile(SAMPLE)
    assert.equal(cfg.name, 'default')
    assert.equal(cfg.dataDir, 'default.etcdlite')
    assert.equal(cfg.enableV2, true)
    assert.equal(cfg.enablePprof, true)
    assert.equal(cfg.logLevel, 'debug')
    assert.deepEqual(cfg.logOutputs, ['stderr'])
    assert.equal(cfg.autoCompactionRetention, '1')
    assert.equal(cfg.initialCluster, 'default=http://localhost:2380')
    assert.deepEqual(cfg.advertiseClientUrls, ['http://localhost:2379'])
    assert.deepEqual(cfg.corsOrigins, ['*'])
    assert.equal(cfg.proxy, 'off')
  })

  it('takes the nested TLS blocks, lists, URL lists and durations', async () => {
    const cfg = await fromFile(`
listen-client-urls: https://127.0.0.1:2379,http://127.0.0.1:2378
advertise-client-urls: https://10.0.0.1:2379
client-transport-security:
  cert-file: /c.pem
  key-file: /k.pem
  client-cert-file: /cc.pem
  client-key-file: /ck.pem
  client-cert-auth: true
  trusted-ca-file: /ca.pem
  allowed-hostname: [a.example]
peer-transport-security:
  cert-file: /pc.pem
  key-file: /pk.pem
  client-cert-auth: yes
  trusted-ca-file: /pca.pem
  auto-tls: true
  allowed-cn: [peer1, peer2]
cipher-suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256]
grpc-keepalive-min-time: 1000000000
experimental-watch-progress-notify-interval: 2000000000
max-concurrent-streams: 100
host-whitelist: a.example,b.example
cors: http://x.example:1
`)
    assert.deepEqual(cfg.listenClientUrls.map((u) => [u.url, u.secure]), [['http://127.0.0.1:2378', false], ['https://127.0.0.1:2379', true]])
    assert.deepEqual(cfg.clientTls, {
      certFile: '/c.pem', keyFile: '/k.pem', trustedCaFile: '/ca.pem', clientCertAuth: true, crlFile: '', clientCertFile: '/cc.pem', clientKeyFile: '/ck.pem',
      autoTls: false, allowedHostnames: ['a.example'],
    })
    assert.deepEqual(cfg.peerTls, {
      certFile: '/pc.pem', keyFile: '/pk.pem', trustedCaFile: '/pca.pem', clientCertAuth: true, crlFile: '', clientCertFile: '', clientKeyFile: '', autoTls: true,
      allowedCn: ['peer1', 'peer2'], allowedHostnames: [],
    })
    assert.deepEqual(cfg.cipherSuites, ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256'])
    assert.equal(cfg.grpcKeepAliveMinTimeMs, 1000)
    assert.equal(cfg.watchProgressNotifyIntervalMs, 2000)
    assert.equal(cfg.maxConcurrentStreams, 100)
    assert.deepEqual(cfg.hostWhitelist, ['a.example', 'b.example'])
    assert.deepEqual(cfg.corsOrigins, ['http://x.example:1'])
  })

  it('ignores the command line and the environment, and says so', async () => {
    const logs: LogEntry[] = []
    const cfg = await fromFile("name: 'file'\n", ['--name', 'flag', '--max-txn-ops', '3'], { env: [['ETCD_NAME', 'env'], ['ETCD_MAX_TXN_OPS', '5']], log: (e) => logs.push(e) })
    assert.equal(cfg.name, 'file')
    assert.equal(cfg.maxTxnOps, 128)
    assert.ok(logs.some((l) => l.msg === 'loaded server configuration, other configuration command line flags and environment variables will be ignored if provided' && l.fields?.['path'] === PATH))
    assert.ok(!logs.some((l) => l.msg === 'unrecognized environment variable'), 'the environment is not looked at')
  })

  it('is found through ETCD_CONFIG_FILE too', async () => {
    const r = await parseArgs([], io("name: 'from-env-file'\n", { env: [['ETCD_CONFIG_FILE', PATH]] }))
    assert.equal(r.kind === 'run' ? r.config.name : undefined, 'from-env-file')
  })

  it('reads YAML 1.1 scalars and keys as Go does: yes is true, keys match ignoring case, null keeps the default, the last duplicate wins', async () => {
    const cfg = await fromFile('enable-v2: yes\nName: Foo\nmax-txn-ops: ~\nmax-request-bytes: 10\nmax-request-bytes: 0x20\n')
    assert.deepEqual([cfg.enableV2, cfg.name, cfg.maxTxnOps, cfg.maxRequestBytes], [true, 'Foo', 128, 32])
  })

  it('a discovery URL drops the default initial cluster', async () => {
    assert.equal((await fromFile('discovery: https://d.example/t\n')).initialCluster, '')
  })

  const errors: ReadonlyArray<readonly [string, string, string]> = [
    ['name: 123', 'VerifyFlagsError', 'error unmarshaling JSON: while decoding JSON: json: cannot unmarshal number into Go struct field configYAML.name of type string'],
    ['name: [a]', 'VerifyFlagsError', 'error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go struct field configYAML.name of type string'],
    ['name: y', 'VerifyFlagsError', 'error unmarshaling JSON: while decoding JSON: json: cannot unmarshal bool into Go struct field configYAML.name of type string'],
    ['heartbeat-interval: "100"', 'VerifyFlagsError', 'error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go struct field configYAML.heartbeat-interval of type uint'],
    ['heartbeat-interval: 1.5', 'VerifyFlagsError', 'error unmarshaling JSON: while decoding JSON: json: cannot unmarshal number 1.5 into Go struct field configYAML.heartbeat-interval of type uint'],
    ['heartbeat-interval: -1', 'VerifyFlagsError', 'error unmarshaling JSON: while decoding JSON: json: cannot unmarshal number -1 into Go struct field configYAML.heartbeat-interval of type uint'],
    ['heartbeat-interval: 99999999999999999999', 'VerifyFlagsError', 'error unmarshaling JSON: while decoding JSON: json: cannot unmarshal number 100000000000000000000 into Go struct field configYAML.heartbeat-interval of type uint'],
    ['experimental-watch-progress-notify-interval: 5s', 'VerifyFlagsError', 'error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go struct field configYAML.experimental-watch-progress-notify-interval of type time.Duration'],
    ['enable-v2: "true"', 'VerifyFlagsError', 'error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go struct field configYAML.enable-v2 of type bool'],
    ['cipher-suites: a,b', 'VerifyFlagsError', 'error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go struct field configYAML.cipher-suites of type []string'],
    ['cipher-suites: [1, b]', 'VerifyFlagsError', 'error unmarshaling JSON: while decoding JSON: json: cannot unmarshal number into Go struct field configYAML.cipher-suites of type string'],
    ['client-transport-security:\n  client-cert-auth: "x"', 'VerifyFlagsError', 'error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go struct field securityConfig.client-transport-security.client-cert-auth of type bool'],
    ['client-transport-security: x', 'VerifyFlagsError', 'error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go struct field configYAML.client-transport-security of type embed.securityConfig'],
    ['- a', 'VerifyFlagsError', 'error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type embed.configYAML'],
    // The first mismatch in key order (Go's JSON has its keys sorted).
    ['name: 1\nheartbeat-interval: x', 'VerifyFlagsError', 'error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go struct field configYAML.heartbeat-interval of type uint'],
    ['listen-client-urls: notaurl', 'ExitError', 'unexpected error setting up listen-client-urls: URL scheme must be http, https, unix, or unixs: notaurl'],
    ['advertise-client-urls: http://x', 'ExitError', 'unexpected error setting up advertise-peer-urls: URL address does not have the form "host:port": http://x'],
    ['heartbeat-interval: 500', 'VerifyFlagsError', '--election-timeout[1000ms] should be at least as 5 times as --heartbeat-interval[500ms]'],
    ['proxy-read-timeout: x', 'VerifyFlagsError', 'error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go struct field configProxy.proxy-read-timeout of type uint'],
  ]
  for (const [text, name, message] of errors) {
    it(`${JSON.stringify(text)}: ${message}`, async () => await refused(text, name, message))
  }

  it('YAML that does not parse: "error converting YAML to JSON: yaml: line N: ..."', async () => {
    await assert.rejects(parseArgs(['--config-file', PATH], io('name: a\nb: [1\n')), (e: unknown) => e instanceof Error && e.name === 'VerifyFlagsError' && e.message.startsWith('error converting YAML to JSON: yaml: line '))
  })
  it('an invalid proxy value: etcd logs it with the standard logger and exits', async () => {
    await assert.rejects(parseArgs(['--config-file', PATH], io('proxy: maybe\n')), (e: unknown) => e instanceof Error && e.name === 'ExitError' && /^\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d unexpected error setting up proxyFlag: invalid value$/.test(e.message))
  })
  it('a file that cannot be read', async () => {
    await assert.rejects(parseArgs(['--config-file', '/nope.yml'], io('')), { name: 'VerifyFlagsError', message: 'open /nope.yml: no such file or directory' })
  })
})
