// A watch stream as tests see it, whatever the transport: send domain WatchRequests, await domain
// WatchResponses one at a time. `rawWatchStream` is the raw @grpc/grpc-js implementation (our protos),
// used against etcdlite and the real etcd alike.
import * as grpc from '@grpc/grpc-js'
import type { WatchRequest, WatchResponse } from '../../src/etcdserver/types/watch.js'
import { loadEtcdProto } from '../../src/grpc/proto.js'
import { fromPbWatchResponse, toPbWatchRequest } from '../compliance/harness/adapters/pb.js'

/** Thrown by `next()` when the stream itself ended (a gRPC status, or the server closed it). */
export class WatchStreamEnded extends Error {
  readonly code: number | undefined
  constructor(message: string, code?: number) {
    super(message)
    this.code = code
    this.name = 'WatchStreamEnded'
  }
}

export interface TestWatchStream {
  /** Send one request on the stream. */
  send(req: WatchRequest): void
  /** The next response; rejects with WatchStreamEnded when the stream ended, or with an Error after timeoutMs. */
  next(timeoutMs?: number): Promise<WatchResponse>
  /** Responses received and not yet taken by next(). */
  readonly buffered: number
  /** End the stream from the client side (its watchers go away on the server). */
  close(): void
}

export const DEFAULT_NEXT_TIMEOUT_MS = 5000

/**
 * A queue of responses with one waiting reader; the common part of every TestWatchStream. Adapters push
 * responses (and at most one end) into it.
 */
export class ResponseQueue {
  private readonly items: WatchResponse[] = []
  private ended: WatchStreamEnded | undefined
  private waiter: { resolve: (r: WatchResponse) => void; reject: (e: Error) => void } | undefined

  get length(): number {
    return this.items.length
  }

  push(r: WatchResponse): void {
    const w = this.waiter
    if (w !== undefined) {
      this.waiter = undefined
      w.resolve(r)
    } else this.items.push(r)
  }

  end(e: WatchStreamEnded): void {
    this.ended ??= e
    const w = this.waiter
    this.waiter = undefined
    w?.reject(e)
  }

  next(timeoutMs = DEFAULT_NEXT_TIMEOUT_MS): Promise<WatchResponse> {
    const r = this.items.shift()
    if (r !== undefined) return Promise.resolve(r)
    if (this.ended !== undefined) return Promise.reject(this.ended)
    if (this.waiter !== undefined) return Promise.reject(new Error('next() called while another next() waits'))
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = undefined
        reject(new Error(`no watch response within ${timeoutMs} ms`))
      }, timeoutMs)
      this.waiter = {
        resolve: (v) => {
          clearTimeout(timer)
          resolve(v)
        },
        reject: (e) => {
          clearTimeout(timer)
          reject(e)
        },
      }
    })
  }
}

/** A Watch client on `endpoint` (host:port); each `open()` is one bidi stream on the shared connection. */
export function rawWatchClient(endpoint: string): { open(): TestWatchStream; close(): void } {
  const proto = loadEtcdProto()
  const client = new proto.etcdserverpb.Watch(endpoint, grpc.credentials.createInsecure())
  return {
    open: () => rawWatchStream(client),
    close: () => client.close(),
  }
}

/** One Watch bidi stream on an existing client. */
export function rawWatchStream(client: grpc.Client): TestWatchStream {
  const fn = (client as unknown as Record<string, unknown>)['Watch']
  if (typeof fn !== 'function') throw new Error('no Watch method')
  const call = (fn as () => grpc.ClientDuplexStream<object, unknown>).call(client)
  const q = new ResponseQueue()
  call.on('data', (d: unknown) => q.push(fromPbWatchResponse(d)))
  call.on('error', (e: grpc.ServiceError) => q.end(new WatchStreamEnded(e.details, e.code)))
  call.on('end', () => q.end(new WatchStreamEnded('stream ended')))
  return {
    send: (req) => {
      call.write(toPbWatchRequest(req))
    },
    next: (t) => q.next(t),
    get buffered() {
      return q.length
    },
    close: () => {
      call.end()
      call.cancel()
    },
  }
}
