// What the start-up lines report: the configuration as the start-up log reads it, the member once the store
// is open, and the client listeners that serve. Types only, shared by start-etcd.ts and startup-log.ts.
import type { Traffic } from '../grpc/server.js'

/** The configuration the start-up lines report. */
export interface StartupFacts {
  readonly name: string
  readonly dataDir: string
  /** etcdlite's --memory: nothing on disk. */
  readonly memory: boolean
  /** The etcd version etcdlite reports (--etcd-version). */
  readonly etcdVersion: string
  readonly etcdliteVersion: string
  /** The data dir already held a member (a restart). */
  readonly memberInitialized: boolean
  readonly heartbeatIntervalMs: number
  readonly electionTimeoutMs: number
  readonly initialAdvertisePeerUrls: readonly string[]
  readonly listenPeerUrls: readonly string[]
  readonly listenClientUrls: readonly string[]
  /** --listen-client-http-urls given: gRPC and HTTP have listeners of their own. */
  readonly splitHttp: boolean
  /** --advertise-client-urls; undefined: the bound client URLs, known once listening. */
  readonly advertiseClientUrls: readonly string[] | undefined
  readonly listenMetricsUrls: readonly string[]
  /** --initial-cluster, as given or etcd's default from the name and peer URLs. */
  readonly initialCluster: string
  readonly initialClusterToken: string
  readonly initialClusterState: string
  readonly quotaBackendBytes: number
  readonly maxRequestBytes: number
  readonly autoCompactionMode: string
  readonly autoCompactionRetention: string
  /** --auth-token is simple (etcd warns that those tokens are not signed). */
  readonly simpleToken: boolean
}

/** The server's identity, known once the store is open. */
export interface Member {
  readonly memberId: bigint
  readonly clusterId: bigint
}

/** A client listener that serves. */
export interface ServingListener {
  /** host:port bound. */
  readonly address: string
  readonly secure: boolean
  readonly traffic: Traffic
}
