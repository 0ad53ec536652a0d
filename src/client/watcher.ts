// One watcher on a remote stream of its own: the embedded Watcher's semantics (embed/watch.ts) over
// RemoteWatchStream, which carries it across reconnects. A create the server refuses (no permission, a
// token that cannot be renewed) rejects the iteration with the typed error the embedded watch() throws.
import type { WatchResponse } from '../etcdserver/types/watch.js'
import type { WatchOptions } from '../embed/watch.js'
import { StreamWatcher } from '../embed/stream-watcher.js'
import { EtcdError } from '../pkg/errors.js'
import { fromCancelReason } from './typed-errors.js'
import type { Connection } from './connection.js'
import type { EtcdWatcher } from './etcd-client.js'
import { RemoteWatchStream } from './watch-stream.js'

/** The error behind a refusal's cancel_reason, or a plain Error with its text. */
const refusal = (reason: string): Error => fromCancelReason(reason) ?? new Error(reason === '' ? 'etcdlite: watch canceled by the server' : reason)

export class RemoteWatcher extends StreamWatcher implements EtcdWatcher {
  /** @internal use Client.watch(). Throws etcd's errors for an empty range or a negative start revision. */
  constructor(conn: Connection, o: WatchOptions) {
    if (conn.closed) throw new EtcdError('STOPPED')
    super(new RemoteWatchStream(conn), o)
  }

  /** A refusal of the create (no permission, a token that cannot be renewed) as the embedded watch() throws it. */
  protected canceledError(resp: WatchResponse): Error | undefined {
    return resp.cancelReason !== '' || resp.created ? refusal(resp.cancelReason) : undefined
  }
}
