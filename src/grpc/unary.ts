// Answering a unary call: the one place a handler's result or failure becomes the callback's arguments.
import type { sendUnaryData, ServiceError } from '@grpc/grpc-js'
import { toServiceError, type ErrorReporter } from './status.js'

/**
 * Answer a unary call with what `run` returns or resolves to. A failure, thrown or rejected, goes through
 * `toError` (by default the one status table), which reports what is not an EtcdError. A synchronous
 * result is answered at once, without a promise turn.
 */
export function reply<Res>(
  cb: sendUnaryData<Res>,
  run: () => Promise<Res> | Res,
  report: ErrorReporter,
  toError: (err: unknown, report: ErrorReporter) => Partial<ServiceError> = toServiceError,
): void {
  let res: Promise<Res> | Res
  try {
    res = run()
  } catch (err) {
    cb(toError(err, report))
    return
  }
  if (!(res instanceof Promise)) {
    cb(null, res)
    return
  }
  res.then(
    (r) => cb(null, r),
    (err: unknown) => cb(toError(err, report)),
  )
}
