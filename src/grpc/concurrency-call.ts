// What the Lock and Election services share: calls that may wait a long time (Lock, Campaign, Observe) get
// an AbortSignal that fires when the client cancels (or its deadline passes) and when the server shuts
// down; and errors reach the wire as etcd's v3lock/v3election servers send them.
import { reply as unaryReply } from './unary.js'
import { status, Metadata, type ServiceError, type sendUnaryData } from '@grpc/grpc-js'
import { EtcdError } from '../pkg/errors.js'
import { toServiceError, type ErrorReporter } from './status.js'
import type { WatchCalls } from './watch.js'

/**
 * The status for an error of a Lock or Election call. etcd's servers run these calls through an in-process
 * clientv3, which turns the KV layer's gRPC errors back into plain Go errors; so on the wire every one of
 * them is UNKNOWN with etcd's message (e.g. UNKNOWN "etcdserver: requested lease not found"), as are the
 * election and mutex errors. The exception is STOPPED (the server is shutting down), which keeps its
 * UNAVAILABLE so clients retry elsewhere.
 */
export function toConcurrencyServiceError(err: unknown, report: ErrorReporter): Partial<ServiceError> {
  if (err instanceof EtcdError && err.code !== 'STOPPED') {
    return { code: status.UNKNOWN, details: err.message, message: err.message, metadata: new Metadata() }
  }
  return toServiceError(err, report)
}

/** The reason a call's signal carries when its client went away (nobody reads the answer). */
export const CLIENT_CANCELED = 'etcdlite: call canceled by the client'

interface CancellableCall {
  on(event: 'cancelled', listener: () => void): unknown
  off(event: 'cancelled', listener: () => void): unknown
  readonly cancelled: boolean
}

/**
 * Run a long call with a signal that aborts when the client cancels (reason: an Error CLIENT_CANCELED) or
 * when the server shuts down (`calls.endAll()`; reason: EtcdError STOPPED). `done` runs once when it ends.
 */
export function withCallSignal(call: CancellableCall, calls: WatchCalls | undefined, run: (signal: AbortSignal, done: () => void) => void): void {
  const ac = new AbortController()
  const stop = (): void => ac.abort(new EtcdError('STOPPED'))
  const cancel = (): void => ac.abort(new Error(CLIENT_CANCELED))
  let finished = false
  const done = (): void => {
    if (finished) return
    finished = true
    calls?.remove(stop)
    call.off('cancelled', cancel)
  }
  if (calls !== undefined && !calls.add(stop)) ac.abort(new EtcdError('STOPPED'))
  if (call.cancelled) cancel()
  else call.on('cancelled', cancel)
  run(ac.signal, done)
}

/** Answer a unary call whose work may wait: the signal ends the wait (see withCallSignal). */
export function replyLong<Res>(
  call: CancellableCall, cb: sendUnaryData<Res>, calls: WatchCalls | undefined, report: ErrorReporter, work: (signal: AbortSignal) => Promise<Res>,
): void {
  withCallSignal(call, calls, (signal, done) => {
    let p: Promise<Res>
    try {
      p = work(signal)
    } catch (err) {
      done()
      cb(toConcurrencyServiceError(err, report))
      return
    }
    p.then(
      (res) => {
        done()
        cb(null, res)
      },
      (err: unknown) => {
        done()
        // A client that canceled (or whose deadline passed) reads nothing; its abort is no error to report.
        if (call.cancelled) cb({ code: status.CANCELLED, details: CLIENT_CANCELED, metadata: new Metadata() })
        else cb(toConcurrencyServiceError(err, report))
      },
    )
  })
}

/** Answer a unary call that does not wait (failures mapped as etcd's v3lock/v3election map them). */
export function reply<Res>(cb: sendUnaryData<Res>, report: ErrorReporter, work: () => Promise<Res> | Res): void {
  unaryReply(cb, work, report, toConcurrencyServiceError)
}
