// A watch stream to a remote etcd, with the embedded WatchStream's protocol and semantics, that survives
// its gRPC stream: when the stream breaks (the server restarts, the endpoint goes away), it opens another
// (backoff with jitter, next endpoint) and re-creates every watcher from where it had got
// (watch-resume.ts), under the same watch ID, so no event is lost or repeated and the caller sees no
// break. Responses are buffered up to WATCH_STREAM_BUFFER; a consumer that falls behind pauses the gRPC
// stream, which holds the server back through HTTP/2 flow control.
import type * as grpc from '@grpc/grpc-js'
import type { WatchRequest, WatchResponse } from '../etcdserver/types/watch.js'
import type { WatchRequest as PbWatchRequest } from '../grpc/generated/etcdserverpb/WatchRequest.js'
import type { WatchResponse__Output as PbWatchResponse } from '../grpc/generated/etcdserverpb/WatchResponse.js'
import { fromPbWatchResponse, toPbWatchRequest } from '../grpc/convert-watch.js'
import { fromCancelReason } from './typed-errors.js'
import { checkRequest, type Input } from '../embed/input.js'
import { WATCH_STREAM_BUFFER } from '../embed/watch.js'
import { QueueIterator } from '../pkg/queue-iterator.js'
import { isEtcdError } from '../pkg/errors.js'
import type { WatchId } from '../pkg/watch-id.js'
import type { Backoff } from './backoff.js'
import { openBidi } from './bidi-call.js'
import type { Connection } from './connection.js'
import type { PickedChannel } from './endpoints.js'
import type { EtcdWatchStream } from './etcd-client.js'
import { toClientError, transportFailure } from './grpc-error.js'
import { ResumableWatcher } from './watch-resume.js'

type Call = grpc.ClientDuplexStream<PbWatchRequest, PbWatchResponse>

/** etcd's InvalidWatchID: the ID of a response to a progress request. */
const PROGRESS_ID = -1
/** Token renewals in a row after which a refused create is handed to the caller rather than retried. */
const MAX_RENEWALS = 3

export class RemoteWatchStream extends QueueIterator<WatchResponse> implements EtcdWatchStream {
  readonly closed: Promise<void>
  private resolveClosed!: () => void
  private readonly backoff: Backoff
  private call: Call | undefined
  private channel: PickedChannel | undefined
  /** Watchers that exist (their created response came), by the caller's ID. */
  private readonly watchers = new Map<WatchId, ResumableWatcher>()
  /** The current stream's IDs for them (the same as the caller's, unless a server ignored the ID asked for). */
  private byServerId = new Map<WatchId, ResumableWatcher>()
  /** Creates written on the current stream, in order, waiting for their created response. */
  private awaiting: ResumableWatcher[] = []
  /** Creates asked for while no stream was open. */
  private unsent: ResumableWatcher[] = []
  /** Progress requests not answered yet (asked again on a new stream). */
  private progressOwed = 0
  private renewals = 0
  private ended = false
  private readonly disown: () => void

  /** @internal use Client.watchStream() */
  constructor(private readonly conn: Connection, buffer = WATCH_STREAM_BUFFER) {
    super(buffer)
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve))
    this.backoff = conn.newBackoff()
    this.disown = conn.own(this)
    this.open()
  }

  /** Send a request; throws once the stream is closed, and a TypeError for a request of the wrong types. */
  send(req: Input<WatchRequest>): void {
    const r = checkRequest('watchStream.send', req)
    if (this.ended) throw new Error('etcdlite: watch stream is closed')
    switch (r.type) {
      case 'create': {
        const w = new ResumableWatcher(r.request)
        if (this.call === undefined) this.unsent.push(w)
        else this.create(this.call, w, r.request)
        return
      }
      case 'cancel': {
        const w = this.watchers.get(r.watchId)
        if (w !== undefined) w.canceling = true
        const serverId = w === undefined ? r.watchId : this.serverIdOf(w)
        if (serverId !== undefined) this.write({ type: 'cancel', watchId: serverId })
        return
      }
      case 'progress':
        this.progressOwed++
        this.write(r)
        return
    }
  }

  /** End the stream: its watchers go away; responses already queued can still be read. Idempotent. */
  close(): void {
    if (this.ended) return
    this.ended = true
    this.disown()
    this.dropCall()
    this.queue.close()
    this.resolveClosed()
  }

  protected stop(): void {
    this.close()
  }

  /** The consumer caught up: let the gRPC stream flow again. */
  protected override onSpace(): void {
    this.call?.resume()
  }

  private serverIdOf(w: ResumableWatcher): WatchId | undefined {
    for (const [id, x] of this.byServerId) if (x === w) return id
    return undefined
  }

  private write(r: WatchRequest): void {
    this.call?.write(toPbWatchRequest(r))
  }

  private create(call: Call, w: ResumableWatcher, request: ResumableWatcher['request']): void {
    this.awaiting.push(w)
    call.write(toPbWatchRequest({ type: 'create', request }))
  }

  /** Open a gRPC stream and continue every watcher on it: the one with ID 0 first (see watch-resume.ts). */
  private open(): void {
    if (this.ended || this.conn.closed) return
    const channel = this.conn.pick()
    const call = openBidi(channel, this.conn.rpc.watch, this.conn.metadata(), {
      current: (c) => this.call === c,
      data: (m: PbWatchResponse) => this.received(fromPbWatchResponse(m)),
      broken: (e) => this.broken(e),
    })
    this.call = call
    this.channel = channel
    this.byServerId = new Map()
    const established = [...this.watchers.values()].sort((a, b) => (a.id === 0 ? -1 : b.id === 0 ? 1 : 0))
    // Creates never answered; a re-create of an established watcher that was still waiting is in `established`.
    const pending = [...this.awaiting, ...this.unsent].filter((w) => w.id === undefined)
    this.awaiting = []
    this.unsent = []
    for (const w of [...established, ...pending]) {
      w.interrupted()
      this.create(call, w, w.resumeRequest())
    }
    for (let i = 0; i < this.progressOwed; i++) call.write(toPbWatchRequest({ type: 'progress' }))
  }

  private dropCall(): void {
    const call = this.call
    this.call = undefined
    if (call === undefined) return
    call.removeAllListeners('data')
    // Errors after the cancel are the cancel's own.
    call.on('error', () => undefined)
    call.cancel()
  }

  private deliver(r: WatchResponse, callerId: WatchId | undefined): void {
    const resp = callerId === undefined || callerId === r.watchId ? r : { ...r, watchId: callerId }
    this.queue.pushForce(resp)
    if (this.queue.isFull()) this.call?.pause()
  }

  private received(r: WatchResponse): void {
    this.backoff.reset()
    if (r.created) {
      this.createdResponse(r)
      return
    }
    const w = this.byServerId.get(r.watchId)
    if (w === undefined) {
      if (r.watchId === PROGRESS_ID && this.progressOwed > 0) this.progressOwed--
      this.deliver(r, undefined)
      return
    }
    if (r.canceled) {
      this.byServerId.delete(r.watchId)
      if (w.id !== undefined) this.watchers.delete(w.id)
      this.deliver(r, w.id)
      return
    }
    for (const out of w.received(r)) this.deliver(out, w.id)
  }

  private createdResponse(r: WatchResponse): void {
    const w = this.awaiting.shift()
    if (w === undefined) {
      this.deliver(r, undefined)
      return
    }
    if (r.canceled) {
      if (this.conn.canRenewToken && this.renewals < MAX_RENEWALS && isEtcdError(fromCancelReason(r.cancelReason), 'INVALID_AUTH_TOKEN')) {
        // Refused for an expired token: get a new one and start the stream again, this create included.
        this.awaiting.unshift(w)
        this.renewals++
        this.restart(true)
        return
      }
      if (w.id === undefined) this.deliver(r, undefined)
      else {
        // A re-create refused (the caller saw it created long ago): the watcher ends, canceled.
        this.watchers.delete(w.id)
        this.deliver({ ...r, created: false }, w.id)
      }
      return
    }
    this.renewals = 0
    this.byServerId.set(r.watchId, w)
    if (w.id === undefined) {
      w.created(r)
      this.watchers.set(r.watchId, w)
      this.deliver(r, undefined)
    }
    if (w.canceling) this.write({ type: 'cancel', watchId: r.watchId })
  }

  /** The gRPC stream ended (error, or a server that closed it): continue on a new one, or end. */
  private broken(e: Error | undefined): void {
    const t = transportFailure(e)
    if (e === undefined || t.retry) {
      if (this.channel !== undefined) this.conn.failed(this.channel)
      this.restart(false)
      return
    }
    const err = toClientError(e)
    if (this.conn.tokenRefused(err) && this.renewals < MAX_RENEWALS) {
      this.renewals++
      this.restart(true)
      return
    }
    this.close()
  }

  /** Drop the current stream and open another after a backoff wait (and a new token, if asked). */
  private restart(renewToken: boolean): void {
    this.dropCall()
    void (async () => {
      if (!(await this.conn.sleep(this.backoff.next()))) return
      if (renewToken) await this.conn.renewToken().catch(() => undefined)
      try {
        this.open()
      } catch {
        // The client closed meanwhile.
        this.close()
      }
    })()
  }
}
