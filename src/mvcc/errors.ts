import { EtcdError } from '../pkg/errors.js'

/** mvcc: required revision has been compacted. */
export class CompactedError extends EtcdError {
  constructor() {
    super('COMPACTED')
    this.name = 'CompactedError'
  }
}

/** mvcc: required revision is a future revision. */
export class FutureRevError extends EtcdError {
  constructor() {
    super('FUTURE_REV')
    this.name = 'FutureRevError'
  }
}

/** The key index has no revision of the key at the requested revision (internal; never reaches clients). */
export class RevisionNotFoundError extends Error {
  constructor() {
    super('mvcc: revision not found')
    this.name = 'RevisionNotFoundError'
  }
}

/** A watch over [key, end) with key >= end. */
export class EmptyWatcherRangeError extends EtcdError {
  constructor() {
    super('WATCHER_RANGE_EMPTY')
    this.name = 'EmptyWatcherRangeError'
  }
}

/** A client-chosen watch ID already in use on its stream. */
export class DuplicateWatchIdError extends EtcdError {
  constructor() {
    super('WATCH_DUPLICATE_ID')
    this.name = 'DuplicateWatchIdError'
  }
}

/** Cancel of a watch ID the stream does not have. */
export class WatcherNotExistError extends EtcdError {
  constructor() {
    super('WATCHER_NOT_EXIST')
    this.name = 'WatcherNotExistError'
  }
}
