// The push ceiling: a bare @grpc/grpc-js server with the etcd Watch service whose streams, once a watcher is
// created, push pre-encoded WatchResponses as fast as each stream takes them (write() === false: wait for
// 'drain'), round-robin over the stream's watchers. Every response carries `--events` PUT events of a
// `--key-size` key and `--value-size` value, encoded once per watcher with etcdlite's encoder
// (src/pkg/watch-wire.ts); requests are decoded with etcdlite's (src/grpc/watch-codec.ts). No store, no
// watcher groups: what Node and grpc-js can push at most. bench/watch-client.ts's fan-out role consumes it.
//
//   node build/bench/ceilings/push-ceiling-server.js [--events 1] [--key-size 16] [--value-size 64]   # prints `ready <port>`
import * as grpc from '@grpc/grpc-js'
import type { handleBidiStreamingCall, ServerDuplexStream, ServiceDefinition } from '@grpc/grpc-js'
import { loadEtcdProto } from '../../src/grpc/proto.js'
import { decodeWatchRequest, type DecodedWatchRequest } from '../../src/grpc/watch-codec.js'
import { encodeWatchResponse, type WireEvent, type WireWatchResponse } from '../../src/pkg/watch-wire.js'
import { CANNED_HEADER, cannedKey, CEILING_SERVER_OPTIONS, parseCeilingServerArgs, runMain, serveUntilStopped, type CeilingServerArgs } from './bare-server.js'
import type { WatchId } from '../../src/pkg/watch-id.js'

type Call = ServerDuplexStream<DecodedWatchRequest, Buffer>

const NO_EVENTS: readonly WireEvent[] = []

function response(watchId: WatchId, o: Partial<WireWatchResponse>): Buffer {
  return encodeWatchResponse({
    header: CANNED_HEADER, watchId, created: false, canceled: false, compactRevision: 0, cancelReason: '', fragment: false, events: NO_EVENTS, ...o,
  })
}

/** The Watch service definition with etcdlite's request decoder and responses that are already bytes. */
function pushServiceDefinition(): ServiceDefinition {
  const base = loadEtcdProto().etcdserverpb.Watch.service
  const watch = base['Watch']
  if (watch === undefined) throw new Error('Watch service definition lacks Watch')
  return { ...base, Watch: { ...watch, requestDeserialize: decodeWatchRequest, responseSerialize: (b: Buffer) => b } }
}

/** One Watch stream: its watchers' pre-encoded event responses, pushed round-robin while the stream takes them. */
class PushStream {
  private readonly responses: Buffer[] = []
  private readonly ids: WatchId[] = []
  private next = 0
  private nextId = 0
  private waiting = false
  private closed = false

  constructor(private readonly call: Call, private readonly events: readonly WireEvent[], onClose: () => void) {
    call.on('data', (req: DecodedWatchRequest) => this.onRequest(req))
    const close = (): void => {
      if (this.closed) return
      this.closed = true
      onClose()
    }
    call.on('end', () => {
      close()
      call.end()
    })
    call.on('cancelled', close)
    call.on('error', close)
    call.on('close', close)
  }

  /** End the stream (shutdown). */
  end(): void {
    if (this.closed) return
    this.closed = true
    this.call.end()
  }

  private onRequest(req: DecodedWatchRequest): void {
    if (this.closed) return
    switch (req.type) {
      case 'create': {
        const id = this.nextId++
        this.call.write(response(id, { created: true }))
        this.ids.push(id)
        this.responses.push(response(id, { events: this.events }))
        this.pump()
        return
      }
      case 'cancel': {
        const i = this.ids.indexOf(req.watchId)
        if (i < 0) return
        this.ids.splice(i, 1)
        this.responses.splice(i, 1)
        this.call.write(response(req.watchId, { canceled: true }))
        return
      }
      case 'progress':
      case 'none':
        return
    }
  }

  /** Write until the stream says stop, then continue on 'drain'. */
  private pump(): void {
    if (this.waiting || this.closed) return
    const rs = this.responses
    while (rs.length > 0) {
      if (this.next >= rs.length) this.next = 0
      if (!this.call.write(rs[this.next++] as Buffer)) {
        this.waiting = true
        this.call.once('drain', () => {
          this.waiting = false
          this.pump()
        })
        return
      }
      if (this.closed) return
    }
  }
}

function cannedEvents(args: CeilingServerArgs): WireEvent[] {
  const key = cannedKey('f', args.keySize)
  const value = Buffer.alloc(args.valueSize, 0x61)
  const first = CANNED_HEADER.revision - args.events + 1
  return Array.from({ length: args.events }, (_, i) => ({
    type: 'PUT' as const,
    kv: { key, value, createRevision: 2, modRevision: first + i, version: first + i - 1, lease: 0n },
  }))
}

async function main(): Promise<void> {
  const args = parseCeilingServerArgs(process.argv.slice(2))
  const events = cannedEvents(args)
  const streams = new Set<PushStream>()
  const Watch: handleBidiStreamingCall<DecodedWatchRequest, Buffer> = (call) => {
    const s: PushStream = new PushStream(call, events, () => streams.delete(s))
    streams.add(s)
  }
  const server = new grpc.Server(CEILING_SERVER_OPTIONS)
  server.addService(pushServiceDefinition(), { Watch })
  // Watch streams never end by themselves: end them, then let grpc-js finish.
  await serveUntilStopped(server, args, () => {
    for (const s of [...streams]) s.end()
  })
}

runMain('push-ceiling-server', main)
