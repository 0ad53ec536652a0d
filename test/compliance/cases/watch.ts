// Watch cases: created responses and watch IDs, keys and ranges, event shapes, prev_kv, filters, history
// replay, compaction, cancel, several watchers and streams, progress requests, fragment. Expectations
// follow etcd 3.4 etcdserver/api/v3rpc/watch.go (recvLoop, sendLoop), mvcc/watcher.go (watch IDs,
// ranges), mvcc/watchable_store.go (synced/unsynced, notify, syncWatchers) and mvcc/watcher_group.go.
//
// A case never writes while a create or cancel is still unanswered (the KV call and the watch stream are
// separate calls, so the server could see them in either order), and it proves the absence of an event
// with a later one the same watchers must see first, not with a pause; `silent` is kept for the few
// places where nothing else can follow.
import type { View } from '../harness/case.js'
import { b, cmp, kv, opDel, opPut, opRange, opTxn, puts, type Case, type Step } from '../harness/case.js'
import type { KeyValue } from '../../../src/etcdserver/types/kv.js'
import type { WatchEvent } from '../../../src/etcdserver/types/watch.js'
import {
  cancelWatch, canceled, closeStream, compacted, created, delEv, events, expect, expectAnyOrder, progress, PROGRESS,
  putEv, refused, send, silent, watch, watchKey,
} from '../harness/watch-steps.js'

// etcd's cancel reasons, verbatim (mvcc/watcher.go, rpctypes).
const EMPTY_RANGE = 'mvcc: watcher range is empty'
const DUPLICATE_ID = 'mvcc: duplicate watch ID provided on the WatchStream'
/** etcd 3.4.39+ / 3.5.24+ / main refuse a negative start_revision with rpctypes.ErrCompacted's text. */
const NEGATIVE_START = 'etcdserver: mvcc: required revision has been compacted'

const S = 's'
const T = 't'

/** A PUT event of key=value with the given create/mod revision and version. */
const P = (key: string, value: string, createRevision: number, modRevision: number, version: number, prev?: View<KeyValue>): View<WatchEvent> =>
  putEv(kv(key, value, createRevision, modRevision, version), prev)
/** A plain put step, checked only for success. */
const put = (key: string, value = 'x'): Step => ({ put: { key: b(key), value: b(value) } })
const del = (key: string, rangeEnd?: string): Step => ({ deleteRange: rangeEnd === undefined ? { key: b(key) } : { key: b(key), rangeEnd: b(rangeEnd) } })
/** Every key. */
const ALL = (o: Parameters<typeof watchKey>[2] = {}): ReturnType<typeof watchKey> => watchKey('\x00', '\x00', o)

const CREATE_CASES: readonly Case[] = [
  {
    name: 'the created response carries watch_id 0 and the store revision before the watch',
    steps: [...puts(['a', '1']), send(S, watchKey('a')), expect(S, created(0, 2))],
  },
  {
    name: 'auto watch IDs count from 0 on each stream',
    steps: [...watch(S, watchKey('a'), 0, 1), ...watch(S, watchKey('a'), 1, 1), ...watch(S, watchKey('b'), 2, 1), ...watch(T, watchKey('a'), 0, 1)],
  },
  {
    name: 'a client-chosen watch_id names the created response and the events',
    steps: [...watch(S, watchKey('a', undefined, { watchId: 7 }), 7, 1), put('a', '1'), expect(S, events(7, 2, P('a', '1', 2, 2, 1)))],
  },
  {
    name: 'auto watch IDs skip the IDs a client chose',
    steps: [
      ...watch(S, watchKey('a', undefined, { watchId: 1 }), 1, 1),
      ...watch(S, watchKey('a'), 0, 1),
      ...watch(S, watchKey('a'), 2, 1),
      ...watch(S, watchKey('a', undefined, { watchId: 4 }), 4, 1),
      ...watch(S, watchKey('a'), 3, 1),
      ...watch(S, watchKey('a'), 5, 1),
    ],
  },
  {
    name: 'a duplicate watch_id is refused: created and canceled with watch_id -1 and etcd\'s reason',
    steps: [
      ...watch(S, watchKey('a', undefined, { watchId: 5 }), 5, 1),
      send(S, watchKey('b', undefined, { watchId: 5 })),
      expect(S, refused(1, DUPLICATE_ID)),
      // Watcher 5 still watches a only: the put of b reaches nobody.
      put('b'),
      put('a'),
      expect(S, events(5, 3, P('a', 'x', 3, 3, 1))),
    ],
  },
  {
    name: 'the same client-chosen watch_id can be used on two streams',
    steps: [
      ...watch(S, watchKey('a', undefined, { watchId: 3 }), 3, 1),
      ...watch(T, watchKey('a', undefined, { watchId: 3 }), 3, 1),
      put('a'),
      expect(S, events(3, 2, P('a', 'x', 2, 2, 1))),
      expect(T, events(3, 2, P('a', 'x', 2, 2, 1))),
    ],
  },
  {
    name: 'an auto watch ID is not reused after its watcher is canceled',
    steps: [...watch(S, watchKey('a'), 0, 1), send(S, cancelWatch(0)), expect(S, canceled(0, 1)), ...watch(S, watchKey('a'), 1, 1)],
  },
  {
    name: 'a canceled client-chosen watch_id can be chosen again',
    steps: [
      ...watch(S, watchKey('a', undefined, { watchId: 4 }), 4, 1),
      send(S, cancelWatch(4)),
      expect(S, canceled(4, 1)),
      ...watch(S, watchKey('a', undefined, { watchId: 4 }), 4, 1),
      put('a'),
      expect(S, events(4, 2, P('a', 'x', 2, 2, 1))),
    ],
  },
  {
    name: 'a refused create does not use up an auto watch ID',
    steps: [send(S, watchKey('b', 'a')), expect(S, refused(1, EMPTY_RANGE)), ...watch(S, watchKey('a'), 0, 1)],
  },
]

const RANGE_CASES: readonly Case[] = [
  {
    name: 'a single-key watch sees only that key',
    steps: [...watch(S, watchKey('a'), 0, 1), put('ab'), put('b'), put('\x00'), put('a'), expect(S, events(0, 5, P('a', 'x', 5, 5, 1)))],
  },
  {
    name: 'a range watch sees [key, range_end) only',
    steps: [
      ...watch(S, watchKey('b', 'd'), 0, 1),
      put('a'), put('d'), put('c'), put('b'),
      expect(S, events(0, 4, P('c', 'x', 4, 4, 1)), events(0, 5, P('b', 'x', 5, 5, 1))),
    ],
  },
  {
    name: 'a prefix watch (range_end = prefix + 1) sees the keys under the prefix',
    steps: [
      ...watch(S, watchKey('ab', 'ac'), 0, 1),
      put('a'), put('ac'), put('abc'), put('ab'),
      expect(S, events(0, 4, P('abc', 'x', 4, 4, 1)), events(0, 5, P('ab', 'x', 5, 5, 1))),
    ],
  },
  {
    name: 'range_end "\\0" watches every key >= key',
    steps: [
      ...watch(S, watchKey('b', '\x00'), 0, 1),
      put('a'), put('b'), put('\xff\xff'),
      expect(S, events(0, 3, P('b', 'x', 3, 3, 1)), events(0, 4, P('\xff\xff', 'x', 4, 4, 1))),
    ],
  },
  {
    name: 'key "\\0" with range_end "\\0" watches every key',
    steps: [...watch(S, ALL(), 0, 1), put('\x00'), put('a'), expect(S, events(0, 2, P('\x00', 'x', 2, 2, 1)), events(0, 3, P('a', 'x', 3, 3, 1)))],
  },
  {
    name: 'an empty key with range_end "\\0" watches every key',
    steps: [...watch(S, watchKey('', '\x00'), 0, 1), put('a'), put('\x00'), expect(S, events(0, 2, P('a', 'x', 2, 2, 1)), events(0, 3, P('\x00', 'x', 3, 3, 1)))],
  },
  {
    name: 'an empty key without range_end watches the single key "\\0"',
    steps: [...watch(S, watchKey(''), 0, 1), put('a'), put('\x00'), expect(S, events(0, 3, P('\x00', 'x', 3, 3, 1)))],
  },
  {
    name: 'range_end equal to key is refused: watcher range is empty',
    steps: [send(S, watchKey('a', 'a')), expect(S, refused(1, EMPTY_RANGE))],
  },
  {
    name: 'range_end before key is refused at the current revision: watcher range is empty',
    steps: [put('a'), send(S, watchKey('b', 'a')), expect(S, refused(2, EMPTY_RANGE))],
  },
]

const EVENT_CASES: readonly Case[] = [
  {
    name: 'a put event carries the key-value as written, one response per revision',
    steps: [
      ...watch(S, watchKey('a'), 0, 1),
      put('a', '1'), put('a', '2'),
      expect(S, events(0, 2, P('a', '1', 2, 2, 1)), events(0, 3, P('a', '2', 2, 3, 2))),
    ],
  },
  {
    name: 'a delete event carries only the key and the revision of the delete',
    steps: [put('a', '1'), ...watch(S, watchKey('a'), 0, 2), del('a'), expect(S, events(0, 3, delEv('a', 3)))],
  },
  {
    name: 'a range delete is one response with one event per deleted key, in key order',
    steps: [
      put('c'), put('a'), put('b'),
      ...watch(S, ALL(), 0, 4),
      del('a', 'd'),
      expect(S, events(0, 5, delEv('a', 5), delEv('b', 5), delEv('c', 5))),
    ],
  },
  {
    name: 'a txn is one response with its events in the order of its operations',
    steps: [
      put('c'),
      ...watch(S, ALL(), 0, 2),
      { txn: { success: [opPut('b', '1'), opPut('a', '2'), opDel('c')] } },
      expect(S, events(0, 3, P('b', '1', 3, 3, 1), P('a', '2', 3, 3, 1), delEv('c', 3))),
    ],
  },
  {
    name: 'a nested txn\'s writes are events of the outer txn\'s revision',
    requires: ['nestedTxn'],
    steps: [
      ...watch(S, ALL(), 0, 1),
      { txn: { success: [opPut('b', '1'), opTxn({ success: [opPut('a', '2')] })] } },
      expect(S, events(0, 2, P('b', '1', 2, 2, 1), P('a', '2', 2, 2, 1))),
    ],
  },
  {
    name: 'watchers on different keys each get their part of a txn in a response of their own',
    steps: [
      ...watch(S, watchKey('a'), 0, 1),
      ...watch(S, watchKey('b'), 1, 1),
      { txn: { success: [opPut('a', '1'), opPut('b', '2'), opPut('c', '3')] } },
      expectAnyOrder(S, events(0, 2, P('a', '1', 2, 2, 1)), events(1, 2, P('b', '2', 2, 2, 1))),
    ],
  },
  {
    name: 'the failure branch of a txn produces events',
    steps: [
      ...watch(S, watchKey('k'), 0, 1),
      { txn: { compare: [cmp('k', 'VERSION', 'EQUAL', 5)], success: [opPut('x', 's')], failure: [opPut('k', 'f')] } },
      expect(S, events(0, 2, P('k', 'f', 2, 2, 1))),
    ],
  },
  {
    name: 'reads, read-only txns and txns that take no branch produce no events',
    steps: [
      put('a'),
      ...watch(S, ALL(), 0, 2),
      { range: { key: b('a') } },
      { txn: { success: [opRange({ key: b('a') })] } },
      { txn: { compare: [cmp('a', 'VERSION', 'EQUAL', 9)], success: [opPut('a', 'y')] } },
      put('b'),
      expect(S, events(0, 3, P('b', 'x', 3, 3, 1))),
    ],
  },
  {
    name: 'deleting a missing key produces no event and no revision',
    steps: [
      ...watch(S, ALL(), 0, 1),
      { deleteRange: { key: b('a') }, want: { rev: 1, deleted: 0, prevKvs: [] } },
      del('x', 'z'),
      put('a'),
      expect(S, events(0, 2, P('a', 'x', 2, 2, 1))),
    ],
  },
  {
    name: 'a put of the same value is still an event, with a new version',
    steps: [put('a', '1'), ...watch(S, watchKey('a'), 0, 2), put('a', '1'), expect(S, events(0, 3, P('a', '1', 2, 3, 2)))],
  },
  {
    name: 'binary keys and values arrive unchanged',
    steps: [
      ...watch(S, watchKey('\xff\x00', '\xff\x01'), 0, 1),
      put('\xff\x00k\x80', '\x00\xff\x01'),
      expect(S, events(0, 2, P('\xff\x00k\x80', '\x00\xff\x01', 2, 2, 1))),
    ],
  },
  {
    name: 'start_revision 0 means from the next revision: earlier writes are not replayed',
    steps: [put('a', '1'), ...watch(S, watchKey('a'), 0, 2), put('a', '2'), expect(S, events(0, 3, P('a', '2', 2, 3, 2)))],
  },
]

const A1 = kv('a', '1', 2, 2, 1)
const A2 = kv('a', '2', 2, 3, 2)

const PREV_KV_CASES: readonly Case[] = [
  {
    name: 'prev_kv: a put event carries the previous key-value',
    steps: [put('a', '1'), ...watch(S, watchKey('a', undefined, { prevKv: true }), 0, 2), put('a', '2'), expect(S, events(0, 3, putEv(A2, A1)))],
  },
  {
    name: 'prev_kv: a put that creates the key has none, also after a delete',
    steps: [
      ...watch(S, watchKey('a', undefined, { prevKv: true }), 0, 1),
      put('a', '1'), del('a'), put('a', '2'),
      expect(S, events(0, 2, P('a', '1', 2, 2, 1)), events(0, 3, delEv('a', 3, kv('a', '1', 2, 2, 1))), events(0, 4, P('a', '2', 4, 4, 1))),
    ],
  },
  {
    name: 'prev_kv: a delete event carries the deleted key-value',
    steps: [put('a', '1'), put('a', '2'), ...watch(S, watchKey('a', undefined, { prevKv: true }), 0, 3), del('a'), expect(S, events(0, 4, delEv('a', 4, A2)))],
  },
  {
    name: 'prev_kv: each event of a txn carries its own key\'s previous value',
    steps: [
      put('a', '1'), put('b', '1'),
      ...watch(S, ALL({ prevKv: true }), 0, 3),
      { txn: { success: [opPut('a', '2'), opDel('b'), opPut('c', '1')] } },
      expect(S, events(0, 4, P('a', '2', 2, 4, 2, A1), delEv('b', 4, kv('b', '1', 3, 3, 1)), P('c', '1', 4, 4, 1))),
    ],
  },
  {
    name: 'prev_kv in a history replay',
    steps: [
      put('a', '1'), put('a', '2'), del('a'),
      ...watch(S, watchKey('a', undefined, { prevKv: true, startRevision: 3 }), 0, 4),
      expect(S, events(0, 4, putEv(A2, A1), delEv('a', 4, A2))),
    ],
  },
  {
    name: 'prev_kv is left out when the previous revision is compacted',
    steps: [
      put('a', '1'), put('a', '2'), put('b'),
      { compact: { revision: 3, physical: true } },
      ...watch(S, watchKey('a', undefined, { prevKv: true, startRevision: 3 }), 0, 4),
      expect(S, events(0, 4, putEv(A2))),
    ],
  },
  {
    name: 'watchers with and without prev_kv on one key each get their own view',
    steps: [
      put('a', '1'),
      ...watch(S, watchKey('a', undefined, { prevKv: true }), 0, 2),
      ...watch(S, watchKey('a'), 1, 2),
      put('a', '2'),
      expectAnyOrder(S, events(0, 3, putEv(A2, A1)), events(1, 3, putEv(A2))),
    ],
  },
]

const FILTER_CASES: readonly Case[] = [
  {
    name: 'NOPUT drops put events',
    steps: [...watch(S, watchKey('a', undefined, { filters: ['NOPUT'] }), 0, 1), put('a'), del('a'), expect(S, events(0, 3, delEv('a', 3)))],
  },
  {
    name: 'NODELETE drops delete events',
    steps: [
      ...watch(S, watchKey('a', undefined, { filters: ['NODELETE'] }), 0, 1),
      put('a', '1'), del('a'), put('a', '2'),
      expect(S, events(0, 2, P('a', '1', 2, 2, 1)), events(0, 4, P('a', '2', 4, 4, 1))),
    ],
  },
  {
    name: 'NOPUT and NODELETE together drop every event',
    steps: [
      ...watch(S, watchKey('a', undefined, { filters: ['NOPUT', 'NODELETE'] }), 0, 1),
      ...watch(S, watchKey('b'), 1, 1),
      put('a'), del('a'), put('b'),
      expect(S, events(1, 4, P('b', 'x', 4, 4, 1))),
    ],
  },
  {
    name: 'a filter removes events from a txn\'s response and keeps the rest',
    steps: [
      put('b'),
      ...watch(S, ALL({ filters: ['NOPUT'] }), 0, 2),
      { txn: { success: [opPut('a', '1'), opDel('b'), opPut('c', '1')] } },
      expect(S, events(0, 3, delEv('b', 3))),
    ],
  },
  {
    name: 'filters apply to history replay too',
    steps: [
      put('a', '1'), del('a'), put('a', '2'),
      ...watch(S, watchKey('a', undefined, { filters: ['NODELETE'], startRevision: 2 }), 0, 4),
      expect(S, events(0, 4, P('a', '1', 2, 2, 1), P('a', '2', 4, 4, 1))),
    ],
  },
  {
    name: 'a filtered and an unfiltered watcher on one key: each sees what it asked for',
    steps: [
      ...watch(S, watchKey('a', undefined, { filters: ['NOPUT'] }), 0, 1),
      ...watch(S, watchKey('a'), 1, 1),
      put('a'),
      expect(S, events(1, 2, P('a', 'x', 2, 2, 1))),
      del('a'),
      expectAnyOrder(S, events(0, 3, delEv('a', 3)), events(1, 3, delEv('a', 3))),
    ],
  },
]

const HISTORY_CASES: readonly Case[] = [
  {
    name: 'start_revision replays history in one response at the current revision',
    steps: [
      put('a', '1'), put('b', '1'), put('a', '2'),
      ...watch(S, watchKey('a', undefined, { startRevision: 2 }), 0, 4),
      expect(S, events(0, 4, P('a', '1', 2, 2, 1), P('a', '2', 2, 4, 2))),
    ],
  },
  {
    name: 'a history replay includes deletes',
    steps: [
      put('a', '1'), del('a'), put('a', '2'),
      ...watch(S, watchKey('a', undefined, { startRevision: 2 }), 0, 4),
      expect(S, events(0, 4, P('a', '1', 2, 2, 1), delEv('a', 3), P('a', '2', 4, 4, 1))),
    ],
  },
  {
    name: 'start_revision in the middle of history skips older events',
    steps: [
      put('a', '1'), put('a', '2'), put('a', '3'),
      ...watch(S, watchKey('a', undefined, { startRevision: 3 }), 0, 4),
      expect(S, events(0, 4, P('a', '2', 2, 3, 2), P('a', '3', 2, 4, 3))),
    ],
  },
  {
    name: 'start_revision equal to the current revision replays that revision only',
    steps: [put('a', '1'), put('a', '2'), ...watch(S, watchKey('a', undefined, { startRevision: 3 }), 0, 3), expect(S, events(0, 3, P('a', '2', 2, 3, 2)))],
  },
  {
    name: 'a prefix replay batches several keys and revisions, keeping a txn\'s events together',
    steps: [
      { txn: { success: [opPut('p/b', '1'), opPut('p/a', '1')] } },
      put('q'),
      put('p/c'),
      ...watch(S, watchKey('p/', 'p0', { startRevision: 2 }), 0, 4),
      expect(S, events(0, 4, P('p/b', '1', 2, 2, 1), P('p/a', '1', 2, 2, 1), P('p/c', 'x', 4, 4, 1))),
    ],
  },
  {
    name: 'after a history replay, live events follow at their own revisions',
    steps: [
      put('a', '1'),
      ...watch(S, watchKey('a', undefined, { startRevision: 2 }), 0, 2),
      expect(S, events(0, 2, P('a', '1', 2, 2, 1))),
      put('a', '2'),
      expect(S, events(0, 3, P('a', '2', 2, 3, 2))),
    ],
  },
  {
    name: 'a past start_revision with nothing to replay waits for new events',
    steps: [
      put('b'), put('b'),
      ...watch(S, watchKey('a', undefined, { startRevision: 2 }), 0, 3),
      put('a'),
      expect(S, events(0, 4, P('a', 'x', 4, 4, 1))),
    ],
  },
  {
    name: 'a future start_revision delivers nothing before that revision',
    steps: [
      ...watch(S, watchKey('a', undefined, { startRevision: 3 }), 0, 1),
      put('a', '1'), put('a', '2'),
      expect(S, events(0, 3, P('a', '2', 2, 3, 2))),
    ],
  },
  {
    name: 'a negative start_revision is refused as compacted',
    fixedIn: { version: '3.4.39', why: 'etcd-io/etcd#20711 refuses start_revision < 0; 3.4.23 accepts -1 and breaks catch-up' },
    steps: [
      put('a'),
      send(S, watchKey('a', undefined, { startRevision: -1 })),
      expect(S, refused(2, NEGATIVE_START)),
      ...watch(S, watchKey('a'), 0, 2),
    ],
  },
]

const COMPACTION_CASES: readonly Case[] = [
  {
    name: 'start_revision below the compact revision: created, then compacted with compact_revision and canceled',
    steps: [
      put('a', '1'), put('a', '2'), put('a', '3'),
      { compact: { revision: 3, physical: true } },
      send(S, watchKey('a', undefined, { startRevision: 2 })),
      expect(S, created(0, 4), compacted(0, 3, 0)),
    ],
  },
  {
    name: 'a compacted watcher is gone: later writes reach only the other watchers',
    steps: [
      put('a', '1'), put('a', '2'),
      { compact: { revision: 3, physical: true } },
      send(S, watchKey('a', undefined, { startRevision: 2 })),
      expect(S, created(0, 3), compacted(0, 3, 0)),
      ...watch(S, watchKey('a'), 1, 3),
      put('a', '3'),
      expect(S, events(1, 4, P('a', '3', 2, 4, 3))),
    ],
  },
  {
    // etcd drops a compacted watcher from the store but not from its stream (mvcc/watcher.go watchers map).
    name: 'a compacted watcher keeps its watch_id until it is canceled',
    steps: [
      put('a', '1'), put('a', '2'),
      { compact: { revision: 3, physical: true } },
      send(S, watchKey('a', undefined, { startRevision: 2, watchId: 8 })),
      expect(S, created(8, 3), compacted(8, 3, 0)),
      send(S, watchKey('a', undefined, { watchId: 8 })),
      expect(S, refused(3, DUPLICATE_ID)),
      send(S, cancelWatch(8)),
      expect(S, canceled(8, 3)),
      ...watch(S, watchKey('a', undefined, { watchId: 8 }), 8, 3),
    ],
  },
  {
    name: 'start_revision equal to the compact revision replays from it',
    steps: [
      put('a', '1'), put('a', '2'), put('a', '3'),
      { compact: { revision: 3, physical: true } },
      ...watch(S, watchKey('a', undefined, { startRevision: 3 }), 0, 4),
      expect(S, events(0, 4, P('a', '2', 2, 3, 2), P('a', '3', 2, 4, 3))),
    ],
  },
  {
    name: 'a watch from the compact revision sees the delete made at that revision',
    fixedIn: { version: '3.4.34', why: 'etcd-io/etcd#18274: 3.4.23 compaction drops a tombstone at exactly the compact revision' },
    steps: [
      put('a', '1'), put('b', '1'), del('a'), put('b', '2'),
      { compact: { revision: 4, physical: true } },
      ...watch(S, watchKey('a', 'c', { startRevision: 4 }), 0, 5),
      expect(S, events(0, 5, delEv('a', 4), P('b', '2', 3, 5, 2))),
    ],
  },
  {
    name: 'a synced watcher keeps working across a compaction',
    steps: [
      ...watch(S, watchKey('a'), 0, 1),
      put('a', '1'), put('a', '2'),
      expect(S, events(0, 2, P('a', '1', 2, 2, 1)), events(0, 3, P('a', '2', 2, 3, 2))),
      { compact: { revision: 3, physical: true } },
      put('a', '3'),
      expect(S, events(0, 4, P('a', '3', 2, 4, 3))),
    ],
  },
]

const CANCEL_CASES: readonly Case[] = [
  {
    name: 'cancel answers canceled with the watch_id at the current revision',
    steps: [put('x'), ...watch(S, watchKey('a'), 0, 2), send(S, cancelWatch(0)), expect(S, canceled(0, 2))],
  },
  {
    name: 'a canceled watcher gets no more events',
    steps: [
      ...watch(S, watchKey('a'), 0, 1),
      ...watch(S, watchKey('b'), 1, 1),
      send(S, cancelWatch(0)),
      expect(S, canceled(0, 1)),
      put('a'), put('b'),
      expect(S, events(1, 3, P('b', 'x', 3, 3, 1))),
    ],
  },
  {
    name: 'canceling an unknown watch_id gets no answer',
    steps: [
      ...watch(S, watchKey('a'), 0, 1),
      send(S, cancelWatch(42)),
      // The next answer on the stream is the created one: no canceled came before it.
      ...watch(S, watchKey('b'), 1, 1),
      put('a'),
      expect(S, events(0, 2, P('a', 'x', 2, 2, 1))),
    ],
  },
  {
    name: 'canceling a watcher twice answers once',
    steps: [
      ...watch(S, watchKey('a'), 0, 1),
      send(S, cancelWatch(0)),
      expect(S, canceled(0, 1)),
      send(S, cancelWatch(0)),
      ...watch(S, watchKey('a'), 1, 1),
    ],
  },
  {
    name: 'canceling one of two watchers on a key leaves the other',
    steps: [
      ...watch(S, watchKey('a'), 0, 1),
      ...watch(S, watchKey('a'), 1, 1),
      send(S, cancelWatch(0)),
      expect(S, canceled(0, 1)),
      put('a'),
      expect(S, events(1, 2, P('a', 'x', 2, 2, 1))),
    ],
  },
  {
    name: 'a cancel on one stream leaves the same watch_id on another stream',
    steps: [
      ...watch(S, watchKey('a'), 0, 1),
      ...watch(S, watchKey('b'), 1, 1),
      ...watch(T, watchKey('a'), 0, 1),
      send(S, cancelWatch(0)),
      expect(S, canceled(0, 1)),
      put('a'),
      expect(T, events(0, 2, P('a', 'x', 2, 2, 1))),
      put('b'),
      expect(S, events(1, 3, P('b', 'x', 3, 3, 1))),
    ],
  },
  {
    name: 'closing a stream leaves the watchers of other streams',
    steps: [
      ...watch(S, watchKey('a'), 0, 1),
      ...watch(T, watchKey('a'), 0, 1),
      closeStream(S),
      put('a'),
      expect(T, events(0, 2, P('a', 'x', 2, 2, 1))),
    ],
  },
]

const MULTI_CASES: readonly Case[] = [
  {
    name: 'two watchers on one key on one stream each get a response of their own',
    steps: [
      ...watch(S, watchKey('a'), 0, 1),
      ...watch(S, watchKey('a'), 1, 1),
      put('a'),
      expectAnyOrder(S, events(0, 2, P('a', 'x', 2, 2, 1)), events(1, 2, P('a', 'x', 2, 2, 1))),
    ],
  },
  {
    name: 'a key watcher and an overlapping range watcher each get their own events',
    steps: [
      ...watch(S, watchKey('a'), 0, 1),
      ...watch(S, watchKey('a', 'c'), 1, 1),
      { txn: { success: [opPut('a', '1'), opPut('b', '1')] } },
      expectAnyOrder(S, events(0, 2, P('a', '1', 2, 2, 1)), events(1, 2, P('a', '1', 2, 2, 1), P('b', '1', 2, 2, 1))),
    ],
  },
  {
    name: 'two streams watching one key both get the event',
    steps: [
      ...watch(S, watchKey('a'), 0, 1),
      ...watch(T, watchKey('a'), 0, 1),
      put('a'),
      expect(S, events(0, 2, P('a', 'x', 2, 2, 1))),
      expect(T, events(0, 2, P('a', 'x', 2, 2, 1))),
    ],
  },
]

const PROGRESS_CASES: readonly Case[] = [
  {
    name: 'a progress request on a synced stream answers watch_id -1 at the current revision',
    steps: [
      ...watch(S, watchKey('a'), 0, 1),
      put('a'),
      expect(S, events(0, 2, P('a', 'x', 2, 2, 1))),
      put('b'),
      send(S, PROGRESS),
      expect(S, progress(3)),
    ],
  },
  {
    name: 'a progress request on a stream without watchers gets no answer',
    fixedIn: { version: '3.4.25', why: 'etcd-io/etcd#15237: 3.4.23 answers at once even with no watchers' },
    steps: [put('a'), send(S, PROGRESS), silent(S), ...watch(S, watchKey('a'), 0, 2)],
  },
  {
    name: 'a progress request is answered after the events already queued',
    fixedIn: { version: '3.4.25', why: 'etcd-io/etcd#15220: 3.4.23 sends the answer on the control channel, which can overtake events' },
    steps: [
      ...watch(S, watchKey('a'), 0, 1),
      put('a'),
      send(S, PROGRESS),
      expect(S, events(0, 2, P('a', 'x', 2, 2, 1)), progress(2)),
    ],
  },
  {
    name: 'a progress request waits until an unsynced watcher has caught up',
    fixedIn: { version: '3.4.25', why: 'etcd-io/etcd#15237: 3.4.23 answers before the replay is sent' },
    steps: [
      put('a', '1'), put('a', '2'),
      send(S, watchKey('a', undefined, { startRevision: 2 })),
      send(S, PROGRESS),
      expect(S, created(0, 3), events(0, 3, P('a', '1', 2, 2, 1), P('a', '2', 2, 3, 2)), progress(3)),
    ],
  },
]

const FRAGMENT_CASES: readonly Case[] = [
  {
    name: 'fragment with small events sends one response without the fragment flag',
    steps: [
      ...watch(S, ALL({ fragment: true }), 0, 1),
      { txn: { success: [opPut('a', '1'), opPut('b', '2'), opPut('c', '3')] } },
      expect(S, events(0, 2, P('a', '1', 2, 2, 1), P('b', '2', 2, 2, 1), P('c', '3', 2, 2, 1))),
    ],
  },
]

export const WATCH_CASES: readonly Case[] = [
  ...CREATE_CASES,
  ...RANGE_CASES,
  ...EVENT_CASES,
  ...PREV_KV_CASES,
  ...FILTER_CASES,
  ...HISTORY_CASES,
  ...COMPACTION_CASES,
  ...CANCEL_CASES,
  ...MULTI_CASES,
  ...PROGRESS_CASES,
  ...FRAGMENT_CASES,
]
