// A complete controller: an informer caches every "deployments/" object, and a controller makes sure each
// has its "replicas/<name>/<i>" keys, retrying with backoff when a reconcile fails. Run it with
// `npx tsc -b && node build/examples/controller.js`; it stops on its own after a few changes.
import { openEtcd, runController, SharedInformer, jsonDecoder } from '../src/index.js'

interface Deployment {
  readonly replicas: number
}

const etcd = await openEtcd({ memory: true })
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
await etcd.deleteRange({ key: 'deployments/api' })
// Give the controller a moment, then stop everything in order.
await new Promise((resolve) => setTimeout(resolve, 200))
console.log('deployments with 1 replica:', informer.indexer.indexKeys('byReplicas', '1'))
stop.abort()
await controller
await informer.stop()
await etcd.close()
