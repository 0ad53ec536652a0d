// The real etcd (3.4, from PATH) on fresh loopback ports and a fresh data dir per case, reached with the
// same raw client as the grpc adapter. It proves the suite: every case must pass here.
import { spawnSync } from 'node:child_process'
import { haveEtcd, startReferenceEtcd } from '../../../helpers/processes.js'
import { SUPPORTS_ALL, TEST_BCRYPT_COST, type Adapter } from '../client.js'
import { rawTestClient } from './raw.js'

const present = haveEtcd()

/** The release `etcd --version` reports ("etcd Version: 3.4.23"), so cases written for later ones skip. */
function etcdVersion(): string | undefined {
  const out = spawnSync('etcd', ['--version'], { encoding: 'utf8' }).stdout
  return /^etcd Version: (\d+\.\d+\.\d+)/m.exec(out)?.[1]
}
const version = present ? etcdVersion() : undefined

export const referenceAdapter: Adapter = {
  name: 'reference (real etcd)',
  // AuthStatus and Downgrade came with etcd 3.5: 3.4 answers UNIMPLEMENTED "unknown method AuthStatus" (and
  // "unknown method Downgrade").
  supports: { ...SUPPORTS_ALL, authStatus: false, authHardened: false, authLegacy: true, downgrade: false },
  oracle: true,
  ...(version === undefined ? {} : { etcdVersion: version }),
  // A start is dominated by the first election (~0.4 s); cases are independent, so run several at once.
  concurrency: 8,
  ...(present ? {} : { skip: 'no `etcd` binary on PATH (install Debian etcd-server 3.4 to run the reference suite)' }),
  // Auth
  async factory(server) {
    const ttl = server?.authTokenTtl === undefined ? [] : ['--auth-token-ttl', String(server.authTokenTtl)]
    const etcd = await startReferenceEtcd(['--bcrypt-cost', String(TEST_BCRYPT_COST), ...ttl])
    return rawTestClient(etcd.endpoint, () => etcd.dispose())
  },
}
