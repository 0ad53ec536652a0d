// The real etcd (3.4, from PATH) on fresh loopback ports and a fresh data dir per case, reached with the
// same raw client as the grpc adapter. It proves the suite: every case must pass here.
import { haveEtcd, startReferenceEtcd } from '../../helpers/processes.js'
import { SUPPORTS_ALL, type Adapter } from '../client.js'
import { rawTestClient } from './raw.js'

const present = haveEtcd()

export const referenceAdapter: Adapter = {
  name: 'reference (real etcd)',
  supports: SUPPORTS_ALL,
  oracle: true,
  // A start is dominated by the first election (~0.4 s); cases are independent, so run several at once.
  concurrency: 8,
  ...(present ? {} : { skip: 'no `etcd` binary on PATH (install Debian etcd-server 3.4 to run the reference suite)' }),
  async factory() {
    const etcd = await startReferenceEtcd()
    return rawTestClient(etcd.endpoint, () => etcd.dispose())
  },
}
