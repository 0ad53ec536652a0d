// The usage etcd prints after a flag error (to stderr) and its help (-h, --help; to stdout), in etcd's
// shape and in etcdlite's words: every flag under etcd's headings with its default, marked when it has no
// effect here or is etcdlite's own.
import { ETCDLITE_FLAGS, IGNORED_FLAGS, newFlags, type Flags } from './config-flags.js'

/** etcd's usageline: what Go's flag package prints after a parse error, and before the help. */
export const USAGE = `Usage:

  etcd [flags]
    Start an etcd server (etcdlite: a single-member etcd v3 server).

  etcd --version
    Show the version of etcd.

  etcd -h | --help
    Show the help information about etcd.

  etcd --config-file
    Path to the server configuration file. Note that if a configuration file is provided, other command line flags and environment variables will be ignored.
`

type Effect = 'none' | 'own' | undefined

/** [flag, description, effect]: 'none' has no effect in etcdlite, 'own' is etcdlite's. */
type Entry = readonly [keyof Flags, string, Effect?]

const SECTIONS: readonly (readonly [string, readonly Entry[]])[] = [
  ['Member', [
    ['name', 'Name of this member, shown by member list.'],
    ['data-dir', 'Directory of the data (etcdlite keeps its own format there, not etcd\'s).'],
    ['wal-dir', 'Directory for the write-ahead log, apart from the data.', 'none'],
    ['snapshot-count', 'Committed transactions between raft snapshots.', 'none'],
    ['heartbeat-interval', 'Heartbeat interval in milliseconds; with the election timeout it sets the shortest lease TTL.'],
    ['election-timeout', 'Election timeout in milliseconds; leases get one more timeout on each start.'],
    ['initial-election-tick-advance', 'Fast-forward the election ticks when the member starts.', 'none'],
    ['listen-peer-urls', 'URLs to listen on for peers (checked as etcd checks them; nothing listens).', 'none'],
    ['listen-client-urls', 'URLs to listen on for clients, gRPC and HTTP (port 0 picks a free port).'],
    ['listen-client-http-urls', 'URLs to listen on for HTTP clients only; the client URLs then serve gRPC only.'],
    ['max-snapshots', 'Raft snapshot files to keep (0: all).', 'none'],
    ['max-wals', 'Write-ahead log files to keep (0: all).', 'none'],
    ['quota-backend-bytes', 'Backend size that raises the NOSPACE alarm (0: the default quota).'],
    ['backend-bbolt-freelist-type', 'bbolt freelist type (array or map).', 'none'],
    ['backend-batch-interval', 'Longest time before the backend commits.', 'none'],
    ['backend-batch-limit', 'Most operations before the backend commits.', 'none'],
    ['max-txn-ops', 'Most operations in one transaction.'],
    ['max-request-bytes', 'Largest client request in bytes.'],
    ['max-concurrent-streams', 'Most concurrent streams per client connection.'],
    ['enable-grpc-gateway', 'Serve the JSON gateway to the gRPC API.'],
    ['grpc-keepalive-min-time', 'Shortest interval a client may ping the server at.'],
    ['grpc-keepalive-interval', 'How often the server pings a client connection (0: never).'],
    ['grpc-keepalive-timeout', 'How long a ping may go unanswered before the connection is closed (0: never pinged).'],
    ['socket-reuse-port', 'Set SO_REUSEPORT on listeners.', 'none'],
    ['socket-reuse-address', 'Set SO_REUSEADDR on listeners.', 'none'],
    ['raft-read-timeout', 'Read timeout of peer connections.', 'none'],
    ['raft-write-timeout', 'Write timeout of peer connections.', 'none'],
  ]],
  ['Clustering', [
    ['initial-advertise-peer-urls', 'This member\'s peer URLs: shown by member list, and hashed into the member ID.'],
    ['initial-cluster', 'The initial cluster, name=URL pairs; etcdlite takes only itself (one member).'],
    ['initial-cluster-state', "'new' or 'existing'; a new member cannot join an existing cluster here."],
    ['initial-cluster-token', 'Cluster token, hashed into the member and cluster IDs of a new data dir.'],
    ['advertise-client-urls', 'This member\'s client URLs, shown by member list (etcdlite: the bound listen URLs when not given).'],
    ['discovery', 'Discovery service URL (refused: etcdlite does not join clusters).', 'none'],
    ['discovery-fallback', "What to do when discovery fails ('exit' or 'proxy').", 'none'],
    ['discovery-proxy', 'HTTP proxy for the discovery service.', 'none'],
    ['discovery-srv', 'DNS domain of SRV records to bootstrap from (refused: etcdlite does not join clusters).', 'none'],
    ['discovery-srv-name', 'Suffix of the SRV name queried.', 'none'],
    ['strict-reconfig-check', 'Refuse membership changes that would lose quorum.', 'none'],
    ['pre-vote', 'Run raft\'s pre-vote phase.', 'none'],
    ['auto-compaction-retention', "Auto-compaction retention: a duration ('1h'; a bare number is hours) or a revision count. 0 disables it."],
    ['auto-compaction-mode', "How to read the retention: 'periodic' (a duration) or 'revision' (a count)."],
    ['enable-v2', 'Serve etcd\'s v2 API (keys, auth, members, stats) on the client URLs.'],
    ['v2-deprecation', "v2 store deprecation stage: 'not-yet', 'write-only', 'write-only-drop-data' or 'gone'.", 'none'],
  ]],
  ['Security', [
    ['cert-file', 'Certificate of the https:// client listeners.'],
    ['key-file', 'Key of the https:// client listeners.'],
    ['client-cert-auth', 'Require client certificates; their common name names the user when auth is on.'],
    ['client-cert-file', 'Client certificate for the server\'s own outgoing client connections.', 'none'],
    ['client-key-file', 'Key of --client-cert-file.', 'none'],
    ['client-crl-file', 'Certificate revocation list for client certificates.'],
    ['client-cert-allowed-hostname', 'Comma-separated SAN hostnames a client certificate must have.'],
    ['trusted-ca-file', 'CA bundle client certificates must chain to.'],
    ['auto-tls', 'Serve https:// client URLs with a generated self-signed certificate.'],
    ['peer-cert-file', 'Certificate of the peer listeners.', 'none'],
    ['peer-key-file', 'Key of the peer listeners.', 'none'],
    ['peer-client-cert-auth', 'Require peer client certificates.', 'none'],
    ['peer-trusted-ca-file', 'CA bundle peer certificates must chain to.', 'none'],
    ['peer-cert-allowed-cn', 'Comma-separated common names a peer certificate may have.', 'none'],
    ['peer-cert-allowed-hostname', 'Comma-separated SAN hostnames a peer certificate may have.', 'none'],
    ['peer-auto-tls', 'Generated certificates for peer TLS.', 'none'],
    ['peer-client-cert-file', 'Client certificate for connections to peers.', 'none'],
    ['peer-client-key-file', 'Key of --peer-client-cert-file.', 'none'],
    ['self-signed-cert-validity', 'Years the generated certificates are valid.'],
    ['peer-crl-file', 'Certificate revocation list for peer certificates.', 'none'],
    ['cipher-suites', 'Comma-separated TLS cipher suites (Go names; empty: the defaults).'],
    ['cors', 'Comma-separated origins allowed by CORS (empty or *: all).'],
    ['host-whitelist', 'Hostnames plain-HTTP requests may name in Host (empty or *: all).'],
    ['tls-min-version', 'Lowest TLS version: TLS1.2 or TLS1.3.'],
    ['tls-max-version', 'Highest TLS version: TLS1.2 or TLS1.3 (empty: the highest available).'],
    ['experimental-peer-skip-client-san-verification', 'Do not check the SAN of peer client certificates.', 'none'],
  ]],
  ['Auth', [
    ['auth-token', "Token type and options: 'simple', or 'jwt,pub-key=FILE,priv-key=FILE,sign-method=RS256,ttl=5m'."],
    ['bcrypt-cost', 'bcrypt cost of stored passwords (4 to 31).'],
    ['auth-token-ttl', 'Seconds a simple token lives after its last use.'],
  ]],
  ['Profiling and Monitoring', [
    ['enable-pprof', 'Serve profiles of the process under /debug/pprof/ for go tool pprof (CPU, heap, allocs, cmdline).'],
    ['metrics', "Metrics detail: 'basic', or 'extensive' with gRPC handling-time histograms."],
    ['listen-metrics-urls', 'More URLs serving /metrics and the health endpoints (http:// only).'],
  ]],
  ['Logging', [
    ['logger', "The logger: 'zap' only."],
    ['log-outputs', "Where logs go: 'default', 'stderr', 'stdout', or files, comma-separated."],
    ['log-level', 'Lowest level logged: debug, info, warn, error, panic or fatal.'],
    ['enable-log-rotation', 'Rotate the single file of --log-outputs.'],
    ['log-rotation-config-json', 'Log rotation settings, as JSON.'],
  ]],
  ['Experimental distributed tracing', [
    ['experimental-enable-distributed-tracing', 'Send OpenTelemetry traces.', 'none'],
    ['experimental-distributed-tracing-address', 'Trace collector address.', 'none'],
    ['experimental-distributed-tracing-service-name', 'Service name in traces.', 'none'],
    ['experimental-distributed-tracing-instance-id', 'Instance ID in traces.', 'none'],
    ['experimental-distributed-tracing-sampling-rate', 'Spans sampled per million.', 'none'],
  ]],
  ['v2 Proxy (refused by etcdlite when set)', [
    ['proxy', "Proxy mode: 'off', 'readonly' or 'on'.", 'none'],
    ['proxy-failure-wait', 'Milliseconds an endpoint stays failed.', 'none'],
    ['proxy-refresh-interval', 'Milliseconds between endpoint refreshes.', 'none'],
    ['proxy-dial-timeout', 'Dial timeout in milliseconds.', 'none'],
    ['proxy-write-timeout', 'Write timeout in milliseconds.', 'none'],
    ['proxy-read-timeout', 'Read timeout in milliseconds.', 'none'],
  ]],
  ['Experimental feature', [
    ['experimental-initial-corrupt-check', 'On a restart, read and hash every kept revision before serving; a store that cannot be read stops the start.'],
    ['experimental-corrupt-check-time', 'Interval between hash comparisons with peers (one member has none to compare with).', 'none'],
    ['experimental-compact-hash-check-enabled', 'Compare compaction hashes with followers.', 'none'],
    ['experimental-compact-hash-check-time', 'Interval between compaction hash checks.', 'none'],
    ['experimental-enable-v2v3', 'Serve v2 requests from the v3 store under this prefix.', 'none'],
    ['experimental-enable-lease-checkpoint', 'Checkpoint lease TTLs to followers.', 'none'],
    ['experimental-enable-lease-checkpoint-persist', 'Persist the checkpointed lease TTLs.', 'none'],
    ['experimental-compaction-batch-limit', 'Revisions deleted per compaction batch.', 'none'],
    ['experimental-compaction-sleep-interval', 'Pause between compaction batches.', 'none'],
    ['experimental-watch-progress-notify-interval', 'Interval of progress notifications to idle watchers (at least 100ms; 0: 10m).'],
    ['experimental-downgrade-check-time', 'Interval between downgrade checks.', 'none'],
    ['experimental-memory-mlock', 'Lock the process memory in RAM.', 'none'],
    ['experimental-warning-apply-duration', 'Warn about requests applied slower than this.', 'none'],
    ['experimental-txn-mode-write-with-shared-buffer', 'Let write transactions read through a shared buffer.', 'none'],
    ['experimental-bootstrap-defrag-threshold-megabytes', 'Defragment on start when it frees at least this much.', 'none'],
    ['experimental-stop-grpc-service-on-defrag', 'Report NOT_SERVING to health checks while defragmenting.', 'none'],
    ['experimental-snapshot-catchup-entries', 'Raft entries kept for slow followers.', 'none'],
  ]],
  ['Unsafe feature', [
    ['force-new-cluster', 'Restart as a new one-member cluster; etcdlite always is one (a data dir keeps its IDs).', 'none'],
    ['unsafe-no-fsync', 'Do not fsync writes: a crash can lose acknowledged data.'],
  ]],
  ['etcdlite', [
    ['memory', 'Keep everything in memory; nothing is written to disk.', 'own'],
    ['etcd-version', 'The etcd version reported to clients and by --version.', 'own'],
    ['index-checkpoint-entries', 'Log entries after the key-index checkpoint before a new one is written in the background (0: off).', 'own'],
    ['restore-snapshot', "Start from a snapshot file written by 'etcdctl snapshot save' from etcdlite or etcd (into an empty --data-dir, or into memory).", 'own'],
  ]],
]

/** Every flag the help describes (tests check it against the flag set). */
export const HELP_FLAGS: readonly string[] = SECTIONS.flatMap(([, entries]) => entries.map(([name]) => name))

function defaultText(flags: Flags, name: keyof Flags): string {
  if (name === 'data-dir') return '${name}.etcdlite'
  if (name === 'max-concurrent-streams') return 'math.MaxUint32'
  return flags[name].string()
}

/** etcd's flagsline in etcdlite's words: what -h and --help print to stdout. */
export function flagsHelp(): string {
  const flags = newFlags()
  const lines: string[] = ['']
  for (const [title, entries] of SECTIONS) {
    lines.push(`${title}:`)
    for (const [name, text, effect] of entries) {
      const mark = effect === 'none' ? ' [no effect in etcdlite]' : effect === 'own' ? ' [etcdlite only]' : ''
      lines.push(`  --${name} '${defaultText(flags, name)}'`, `    ${text}${mark}`)
    }
    lines.push('')
  }
  lines.push(
    `Accepted and ignored, as etcd does: ${IGNORED_FLAGS.map((n) => `--${n}`).join(', ')}.`,
    '',
    'Every flag can also be set as ETCD_<FLAG> (upper case, "-" as "_"); the command line wins.',
    `etcdlite's own flags (${ETCDLITE_FLAGS.map((n) => `--${n}`).join(', ')}) are not etcd's.`,
    '',
    'CAUTIOUS with unsafe flag! It may break the guarantees given by the consensus protocol!',
    '',
  )
  return lines.join('\n')
}
