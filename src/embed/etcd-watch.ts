// The embedded Etcd's Watch service: whole watch streams, as the gRPC Watch call, and single watchers.
import { EtcdKv } from './etcd-kv.js'
import { checkRequest, type Input } from './input.js'
import { Watcher, WatchStream, type WatchOptions } from './watch.js'

export abstract class EtcdWatch extends EtcdKv {
  /**
   * Open a watch stream: the gRPC Watch protocol in process (create/cancel/progress requests in, responses
   * out, many watchers per stream). Throws once closed.
   */
  watchStream(): WatchStream {
    return new WatchStream(this.server, undefined, this.creds)
  }

  /**
   * Watch a key, range or prefix: an async iterable of event responses, ended by `break`, cancel(), the
   * signal, compaction past it, or close(). Throws etcd's error for an empty range or a negative revision.
   */
  watch(opts: Input<WatchOptions>): Watcher {
    return new Watcher(this.server, checkRequest('watch', opts), this.creds)
  }
}
