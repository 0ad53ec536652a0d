// An EtcdTestClient over the raw @grpc/grpc-js client of test/helpers (our protos), used by the grpc
// adapter (etcdlite) and the reference adapter (real etcd) alike: same bytes on the wire for both.
import type { ServiceError } from '@grpc/grpc-js'
import { rawClient, type UnaryCall } from '../../helpers/grpc-client.js'
import { rawWatchClient } from '../../helpers/watch-stream.js'
import { ClientError, type EtcdTestClient } from '../client.js'
import {
  fromPbCompaction, fromPbDeleteRange, fromPbPut, fromPbRange, fromPbTxn, toPbCompaction, toPbDeleteRange, toPbPut,
  toPbRange, toPbTxn,
} from './pb.js'

function isServiceError(e: unknown): e is ServiceError {
  return e instanceof Error && typeof (e as Partial<ServiceError>).code === 'number' && typeof (e as Partial<ServiceError>).details === 'string'
}

/** A gRPC failure becomes ClientError { status code, status details }; anything else propagates. */
async function call<T>(fn: UnaryCall, req: object, parse: (x: unknown) => T): Promise<T> {
  let res: unknown
  try {
    res = await fn(req)
  } catch (e) {
    if (isServiceError(e)) throw new ClientError(e.code, e.details)
    throw e
  }
  return parse(res)
}

/**
 * Bind a raw KV client and a raw Watch client to `endpoint`; `close()` closes both (and with them every
 * watch stream still open), then runs `dispose` (stop the server).
 */
export function rawTestClient(endpoint: string, dispose: () => Promise<void>): EtcdTestClient {
  const c = rawClient(endpoint)
  const w = rawWatchClient(endpoint)
  return {
    range: (r) => call(c.kv.Range, toPbRange(r), fromPbRange),
    put: (r) => call(c.kv.Put, toPbPut(r), fromPbPut),
    deleteRange: (r) => call(c.kv.DeleteRange, toPbDeleteRange(r), fromPbDeleteRange),
    txn: (r) => call(c.kv.Txn, toPbTxn(r), fromPbTxn),
    compact: (r) => call(c.kv.Compact, toPbCompaction(r), fromPbCompaction),
    watch: () => w.open(),
    async close() {
      c.close()
      w.close()
      await dispose()
    },
  }
}
