// A TestWatchStream over etcdlite's in-process watch stream (etcd.watchStream()): the same multiplexed
// protocol as gRPC Watch, with domain requests and responses and no transport in between. The remote
// client's watchStream() (connect()) has the same interface and goes through here too.
import type { EtcdClient } from '../../../../src/client/etcd-client.js'
import { ResponseQueue, WatchStreamEnded, type TestWatchStream } from '../../../helpers/watch-stream.js'

/** Open one embedded watch stream; its responses are pumped into a queue until the stream ends. */
export function embeddedWatchStream(etcd: Pick<EtcdClient, 'watchStream'>): TestWatchStream {
  const ws = etcd.watchStream()
  const q = new ResponseQueue()
  // Never rejects: the end of the iteration, or its error, ends the queue.
  const pump = async (): Promise<void> => {
    try {
      for await (const r of ws) q.push(r)
      q.end(new WatchStreamEnded('stream ended'))
    } catch (e) {
      q.end(new WatchStreamEnded(e instanceof Error ? `${e.name}: ${e.message}` : String(e)))
    }
  }
  void pump()
  return {
    send: (req) => ws.send(req),
    next: (t) => q.next(t),
    get buffered() {
      return q.length
    },
    close: () => ws.close(),
  }
}
