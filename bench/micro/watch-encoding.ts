// Watch event encoding: an event is encoded once however many watchers it reaches, and a batch of events
// once per fan-out round, so what matters is the first encode and the cost of each further watcher.
import type { WatchEvent } from '../../src/etcdserver/types/watch.js'
import { encodeWatchResponseMessage, encodeWatchResponseTransient } from '../../src/wire/watch-fanout.js'
import { encodeEvent } from '../../src/wire/watch.js'
import { bytes, utf8, type MicroSuite } from './suite.js'

const header = { clusterId: 14841639068965178418n, memberId: 10276657743932975437n, revision: 123_456, raftTerm: 2 }
const key = utf8('watched-key-00000001')
const value = bytes(256)

/** A new event object each call: the per-event byte cache is keyed by identity, so this encodes. */
const event = (rev: number): WatchEvent => ({ type: 'PUT', kv: { key, createRevision: 2, modRevision: rev, version: rev - 1, value, lease: 0n } })

const response = (events: readonly WatchEvent[]) => ({
  header, watchId: 7, created: false, canceled: false, compactRevision: 0, cancelReason: '', fragment: false, events,
})

export const watchEncoding: MicroSuite = {
  name: 'watch-encoding',
  tasks: () => {
    let rev = 1000
    const batch = Array.from({ length: 100 }, () => event(++rev))
    return [
      { name: 'encode one new Event (256 B value)', batch: 100, fn: () => { for (let i = 0; i < 100; i++) encodeEvent(event(++rev)) } },
      { name: 'encode WatchResponse, 1 new event', batch: 100, fn: () => { for (let i = 0; i < 100; i++) encodeWatchResponseMessage(response([event(++rev)])) } },
      { name: 'encode WatchResponse, 100 new events', fn: () => encodeWatchResponseMessage(response(Array.from({ length: 100 }, () => event(++rev)))) },
      // Fan-out: each watcher has its own list of the same event objects; the encoded section is reused.
      { name: 'encode WatchResponse, 100 events already sent to another watcher', batch: 100, fn: () => { for (let i = 0; i < 100; i++) encodeWatchResponseTransient(response(batch.slice())) } },
    ]
  },
}
