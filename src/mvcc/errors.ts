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
