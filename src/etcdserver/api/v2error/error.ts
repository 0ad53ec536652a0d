// etcd's v2 API errors (server/etcdserver/api/v2error): numbered codes with fixed messages, a cause (a key,
// or why a form was refused) and the store index, written as {"errorCode","message","cause","index"} with
// the status the code maps to. Causes and messages are byte strings (see pkg/bstr.ts).
import { goJsonEncode } from '../../../pkg/go-json.js'

export const EcodeKeyNotFound = 100
export const EcodeTestFailed = 101
export const EcodeNotFile = 102
export const EcodeNotDir = 104
export const EcodeNodeExist = 105
export const EcodeRootROnly = 107
export const EcodeDirNotEmpty = 108
export const EcodeUnauthorized = 110
export const EcodePrevValueRequired = 201
export const EcodeTTLNaN = 202
export const EcodeIndexNaN = 203
export const EcodeInvalidField = 209
export const EcodeInvalidForm = 210
export const EcodeRefreshValue = 211
export const EcodeRefreshTTLRequired = 212
export const EcodeRaftInternal = 300
export const EcodeLeaderElect = 301
export const EcodeWatcherCleared = 400
export const EcodeEventIndexCleared = 401

/** Every code etcd defines, with its message (codes without a constant above are never raised). */
const MESSAGES: ReadonlyMap<number, string> = new Map([
  [100, 'Key not found'],
  [101, 'Compare failed'],
  [102, 'Not a file'],
  [103, 'Reached the max number of peers in the cluster'],
  [104, 'Not a directory'],
  [105, 'Key already exists'],
  [106, 'The prefix of given key is a keyword in etcd'],
  [107, 'Root is read only'],
  [108, 'Directory not empty'],
  [109, 'Peer address has existed'],
  [110, 'The request requires user authentication'],
  [200, 'Value is Required in POST form'],
  [201, 'PrevValue is Required in POST form'],
  [202, 'The given TTL in POST form is not a number'],
  [203, 'The given index in POST form is not a number'],
  [204, 'Value or TTL is required in POST form'],
  [205, 'The given timeout in POST form is not a number'],
  [206, 'Name is required in POST form'],
  [207, 'Index or value is required'],
  [208, 'Index and value cannot both be specified'],
  [209, 'Invalid field'],
  [210, 'Invalid POST form'],
  [211, 'Value provided on refresh'],
  [212, 'A TTL must be provided on refresh'],
  [300, 'Raft Internal Error'],
  [301, 'During Leader Election'],
  [400, 'watcher is cleared due to etcd recovery'],
  [401, 'The event in requested index is outdated and cleared'],
  [402, 'Standby Internal Error'],
  [403, 'Invalid active size'],
  [404, 'Standby remove delay'],
  [500, 'Client Internal Error'],
])

/** The HTTP status of each code that is not 400 Bad Request. */
const STATUS: ReadonlyMap<number, number> = new Map([
  [EcodeKeyNotFound, 404],
  [EcodeNotFile, 403],
  [EcodeDirNotEmpty, 403],
  [EcodeUnauthorized, 401],
  [EcodeTestFailed, 412],
  [EcodeNodeExist, 412],
  [EcodeRaftInternal, 500],
  [EcodeLeaderElect, 500],
])

/** A v2 error. `cause` and `index` change as etcd changes them on the way out (prefix trimming, store index). */
export class V2Error extends Error {
  override name = 'V2Error'
  readonly errorCode: number
  /** The code's fixed message (Error.message is Go's Error(): message and cause). */
  readonly errorMessage: string
  /** What the error is about (Go's Cause; Error.cause is taken). */
  errorCause: string
  index: number

  constructor(errorCode: number, cause: string, index = 0) {
    const msg = MESSAGES.get(errorCode) ?? ''
    super(`${msg} (${cause})`)
    this.errorCode = errorCode
    this.errorMessage = msg
    this.errorCause = cause
    this.index = index
  }

  /** The HTTP status etcd answers with. */
  statusCode(): number {
    return STATUS.get(this.errorCode) ?? 400
  }

  /** The body etcd writes: the JSON and a newline. */
  body(): string {
    return goJsonEncode({ errorCode: this.errorCode, message: this.errorMessage, cause: this.errorCause === '' ? undefined : this.errorCause, index: this.index })
  }
}

/** v2error.NewRequestError: a refusal before the store is reached (index 0). */
export const requestError = (code: number, cause: string): V2Error => new V2Error(code, cause, 0)
