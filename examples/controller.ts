// A complete controller: an informer caches every "deployments/" object, and a controller makes sure each
// has its "replicas/<name>/<i>" keys, retrying with backoff when a reconcile fails. Run it with
// `npx tsc -b && node build/examples/controller.js`; it stops on its own after a few changes. In process it
// uses openEtcd(); with ETCD_ENDPOINTS=127.0.0.1:2379 the same code runs against a server (`npx etcdlite`,
// or a real etcd) through connect().
import { connect, openEtcd, runController, SharedInformer, jsonDecoder, type EtcdClient } from '../src/index.js'

interface Deployment {
  readonly replicas: number
}

const endpoints = process.env['ETCD_ENDPOINTS']
const etcd: EtcdClient = endpoints === undefined ? await openEtcd({ memory: true }) : await connect({ endpoints: endpoints.split(',') })
await etcd.put({ key: 'deployments/web', value: JSON.stringify({ replicas: 2 }) })

const informer = new SharedInformer<Deployment>(etcd, {
  prefix: 'deployments/',
  decode: jsonDecoder<Deployment>(),
  indexers: { byReplicas: (d) => [String(d.replicas)] },
}).start()

const stop = new AbortController()
const controller = runController<Deployment>({
  informer,
  workers: 2,
  signal: stop.signal,
  reconcile: async (key) => {
    const name = key.slice('deployments/'.length)
    const want = informer.indexer.get(key)?.replicas ?? 0 // absent: deleted, so no replicas
    const have = await etcd.range({ key: `replicas/${name}/`, rangeEnd: `replicas/${name}0`, countOnly: true })
    if (have.count === want) return {}
    await etcd.deleteRange({ key: `replicas/${name}/`, rangeEnd: `replicas/${name}0` })
    for (let i = 0; i < want; i++) await etcd.put({ key: `replicas/${name}/${i}`, value: 'running' })
    console.log(`${name}: ${have.count} -> ${want} replicas`)
    // Check again in a minute even if nothing changes.
    return { requeueAfterMs: 60_000 }
  },
})

await informer.synced
await etcd.put({ key: 'deployments/api', value: JSON.stringify({ replicas: 3 }) })
await etcd.put({ key: 'deployments/web', value: JSON.stringify({ replicas: 1 }) })
const last = await etcd.deleteRange({ key: 'deployments/api' })
// Wait until the cache has seen the last change and the controller has had a moment, then stop in order.
while (informer.revision < last.header.revision) await new Promise((resolve) => setTimeout(resolve, 10))
await new Promise((resolve) => setTimeout(resolve, 200))
console.log('deployments with 1 replica:', informer.indexer.indexKeys('byReplicas', '1'))
stop.abort()
await controller
await informer.stop()
await etcd.close()
