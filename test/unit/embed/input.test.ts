// What the embedded API takes from JavaScript (src/embed/input.ts): strings in every bytes field, stored
// as their UTF-8 bytes, and a TypeError naming the call and the field for anything of the wrong type, at
// every entry point that takes an argument, nested txn ops and compares included. Nothing is stored for a
// refused call.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Etcd, openEtcd } from '../../../src/embed/etcd.js'
import type { EtcdOptions } from '../../../src/embed/options.js'
import { EtcdError } from '../../../src/pkg/errors.js'
import { rawClient } from '../../helpers/grpc-client.js'

const b = (s: string): Buffer => Buffer.from(s, 'utf8')

/** Call `f` as an untyped JavaScript caller would: the test passes what the types forbid. */
type Loose = Record<string, (...args: unknown[]) => unknown>
const loose = (etcd: Etcd): Loose => etcd as unknown as Loose

interface Refusal {
  /** The argument(s) as a JavaScript caller might pass them. */
  readonly call: string
  readonly args: readonly unknown[]
  readonly message: string
}

const leader = { name: b('E'), key: b('E/1'), rev: 1, lease: 1n }
const put = (request: unknown): unknown => ({ type: 'put', request })

/** One row per entry point and field kind; the message is the whole of it. */
const REFUSALS: readonly Refusal[] = [
  // put: the reported cases first
  { call: 'put', args: [{ key: b('k'), value: 5 }], message: 'etcdlite: put: value must be a Uint8Array or a string, got number' },
  { call: 'put', args: [{ key: 42, value: b('v') }], message: 'etcdlite: put: key must be a Uint8Array or a string, got number' },
  { call: 'put', args: [{ value: b('v') }], message: 'etcdlite: put: key must be a Uint8Array or a string, got undefined' },
  { call: 'put', args: [{ key: b('k'), value: null }], message: 'etcdlite: put: value must be a Uint8Array or a string, got null' },
  { call: 'put', args: [{ key: b('k'), value: new Uint16Array(2) }], message: 'etcdlite: put: value must be a Uint8Array or a string, got Uint16Array' },
  { call: 'put', args: [{ key: b('k'), value: new ArrayBuffer(2) }], message: 'etcdlite: put: value must be a Uint8Array or a string, got ArrayBuffer' },
  { call: 'put', args: [{ key: b('k'), value: [1, 2] }], message: 'etcdlite: put: value must be a Uint8Array or a string, got an array' },
  { call: 'put', args: [{ key: 'k', value: 'a\uD800b' }], message: 'etcdlite: put: value must be a Uint8Array or a well-formed string, got a string with a lone surrogate' },
  { call: 'put', args: [{ key: b('k'), lease: 5 }], message: 'etcdlite: put: lease must be a bigint, got number' },
  { call: 'put', args: [{ key: b('k'), lease: 2n ** 63n }], message: 'etcdlite: put: lease must be a bigint within int64, got 9223372036854775808n' },
  { call: 'put', args: [{ key: b('k'), prevKv: 'yes' }], message: 'etcdlite: put: prevKv must be a boolean, got string' },
  { call: 'put', args: [{ key: b('k'), ignoreValue: 1 }], message: 'etcdlite: put: ignoreValue must be a boolean, got number' },
  { call: 'put', args: [{ key: b('k'), ignoreLease: null }], message: 'etcdlite: put: ignoreLease must be a boolean, got null' },
  { call: 'put', args: [undefined], message: 'etcdlite: put: request must be an object, got undefined' },
  { call: 'put', args: ['k'], message: 'etcdlite: put: request must be an object, got string' },
  // range
  { call: 'range', args: [{ key: 1 }], message: 'etcdlite: range: key must be a Uint8Array or a string, got number' },
  { call: 'range', args: [{ key: 'a', rangeEnd: {} }], message: 'etcdlite: range: rangeEnd must be a Uint8Array or a string, got object' },
  { call: 'range', args: [{ key: 'a', limit: 1.5 }], message: 'etcdlite: range: limit must be an integer number, got 1.5' },
  { call: 'range', args: [{ key: 'a', revision: Number.NaN }], message: 'etcdlite: range: revision must be an integer number, got NaN' },
  { call: 'range', args: [{ key: 'a', revision: 3n }], message: 'etcdlite: range: revision must be an integer number, got bigint' },
  { call: 'range', args: [{ key: 'a', minModRevision: Infinity }], message: 'etcdlite: range: minModRevision must be an integer number, got Infinity' },
  { call: 'range', args: [{ key: 'a', maxModRevision: '1' }], message: 'etcdlite: range: maxModRevision must be an integer number, got string' },
  { call: 'range', args: [{ key: 'a', minCreateRevision: 2 ** 53 }], message: 'etcdlite: range: minCreateRevision must be an integer number, got 9007199254740992' },
  { call: 'range', args: [{ key: 'a', maxCreateRevision: -0.5 }], message: 'etcdlite: range: maxCreateRevision must be an integer number, got -0.5' },
  { call: 'range', args: [{ key: 'a', sortOrder: 'asc' }], message: "etcdlite: range: sortOrder must be one of 'NONE', 'ASCEND', 'DESCEND', got 'asc'" },
  { call: 'range', args: [{ key: 'a', sortTarget: 1 }], message: "etcdlite: range: sortTarget must be one of 'KEY', 'VERSION', 'CREATE', 'MOD', 'VALUE', got number" },
  { call: 'range', args: [{ key: 'a', serializable: 'false' }], message: 'etcdlite: range: serializable must be a boolean, got string' },
  { call: 'range', args: [{ key: 'a', keysOnly: 0 }], message: 'etcdlite: range: keysOnly must be a boolean, got number' },
  { call: 'range', args: [{ key: 'a', countOnly: {} }], message: 'etcdlite: range: countOnly must be a boolean, got object' },
  // deleteRange
  { call: 'deleteRange', args: [{ key: true }], message: 'etcdlite: deleteRange: key must be a Uint8Array or a string, got boolean' },
  { call: 'deleteRange', args: [{ key: 'a', rangeEnd: 0 }], message: 'etcdlite: deleteRange: rangeEnd must be a Uint8Array or a string, got number' },
  { call: 'deleteRange', args: [{ key: 'a', prevKv: 1 }], message: 'etcdlite: deleteRange: prevKv must be a boolean, got number' },
  // txn: compares and ops, nested
  { call: 'txn', args: [{ success: [put({ key: 'a' }), put({ key: 'b' }), put({ key: 'c', value: 7 })] }], message: 'etcdlite: txn: success[2].request.value must be a Uint8Array or a string, got number' },
  { call: 'txn', args: [{ failure: [{ type: 'txn', request: { success: [{ type: 'range', request: { key: 9 } }] } }] }], message: 'etcdlite: txn: failure[0].request.success[0].request.key must be a Uint8Array or a string, got number' },
  { call: 'txn', args: [{ success: [{ type: 'deleteRange', request: { key: 'a', rangeEnd: 1 } }] }], message: 'etcdlite: txn: success[0].request.rangeEnd must be a Uint8Array or a string, got number' },
  { call: 'txn', args: [{ success: [{ type: 'get', request: { key: 'a' } }] }], message: "etcdlite: txn: success[0].type must be one of 'range', 'put', 'deleteRange', 'txn', 'empty', got 'get'" },
  { call: 'txn', args: [{ success: [put({ key: 'a', lease: 1 })] }], message: 'etcdlite: txn: success[0].request.lease must be a bigint, got number' },
  { call: 'txn', args: [{ success: [{ type: 'put' }] }], message: 'etcdlite: txn: success[0].request must be an object, got undefined' },
  { call: 'txn', args: [{ success: put({ key: 'a' }) }], message: 'etcdlite: txn: success must be an array, got object' },
  { call: 'txn', args: [{ compare: [{ key: 'a', target: 'VALUE', result: 'EQUAL', value: 1 }] }], message: 'etcdlite: txn: compare[0].value must be a Uint8Array or a string, got number' },
  { call: 'txn', args: [{ compare: [{ key: 'a', target: 'value', result: 'EQUAL' }] }], message: "etcdlite: txn: compare[0].target must be one of 'VERSION', 'CREATE', 'MOD', 'VALUE', 'LEASE', 'UNKNOWN', got 'value'" },
  { call: 'txn', args: [{ compare: [{ key: 'a', target: 'MOD', result: '=' }] }], message: "etcdlite: txn: compare[0].result must be one of 'EQUAL', 'GREATER', 'LESS', 'NOT_EQUAL', 'UNKNOWN', got '='" },
  { call: 'txn', args: [{ compare: [{ key: 'a', target: 'MOD', result: 'EQUAL', modRevision: '3' }] }], message: 'etcdlite: txn: compare[0].modRevision must be an integer number, got string' },
  { call: 'txn', args: [{ compare: [{ key: 'a', target: 'LEASE', result: 'EQUAL', lease: 3 }] }], message: 'etcdlite: txn: compare[0].lease must be a bigint, got number' },
  { call: 'txn', args: [{ compare: [{ key: 'a', target: 'VERSION', result: 'EQUAL', version: 1.5 }] }], message: 'etcdlite: txn: compare[0].version must be an integer number, got 1.5' },
  { call: 'txn', args: [{ compare: [{ key: 'a', target: 'CREATE', result: 'EQUAL', createRevision: null }] }], message: 'etcdlite: txn: compare[0].createRevision must be an integer number, got null' },
  { call: 'txn', args: [{ compare: [{ key: 'a', rangeEnd: [], target: 'MOD', result: 'EQUAL' }] }], message: 'etcdlite: txn: compare[0].rangeEnd must be a Uint8Array or a string, got an array' },
  // compact
  { call: 'compact', args: [{ revision: '1' }], message: 'etcdlite: compact: revision must be an integer number, got string' },
  { call: 'compact', args: [{ revision: 1, physical: 'yes' }], message: 'etcdlite: compact: physical must be a boolean, got string' },
  // leases
  { call: 'leaseGrant', args: [{ ttl: '10' }], message: 'etcdlite: leaseGrant: ttl must be an integer number, got string' },
  { call: 'leaseGrant', args: [{ ttl: 10, id: 5 }], message: 'etcdlite: leaseGrant: id must be a bigint, got number' },
  { call: 'leaseRevoke', args: [{ id: 5 }], message: 'etcdlite: leaseRevoke: id must be a bigint, got number' },
  { call: 'leaseKeepAliveOnce', args: [{ id: '5' }], message: 'etcdlite: leaseKeepAliveOnce: id must be a bigint, got string' },
  { call: 'leaseTimeToLive', args: [{ id: 5n, keys: 'all' }], message: 'etcdlite: leaseTimeToLive: keys must be a boolean, got string' },
  // lock and election
  { call: 'lock', args: [{ name: 5 }], message: 'etcdlite: lock: name must be a Uint8Array or a string, got number' },
  { call: 'lock', args: [{ name: 'L', lease: 1 }], message: 'etcdlite: lock: lease must be a bigint, got number' },
  { call: 'lock', args: [{ name: 'L' }, { signal: 'abort' }], message: 'etcdlite: lock: options.signal must be an AbortSignal, got string' },
  { call: 'unlock', args: [{}], message: 'etcdlite: unlock: key must be a Uint8Array or a string, got undefined' },
  { call: 'campaign', args: [{ name: 'E', value: 1 }], message: 'etcdlite: campaign: value must be a Uint8Array or a string, got number' },
  { call: 'campaign', args: [{ name: 'E' }, { signal: {} }], message: 'etcdlite: campaign: options.signal must be an AbortSignal, got object' },
  { call: 'proclaim', args: [{ leader: { ...leader, rev: '1' }, value: 'v' }], message: 'etcdlite: proclaim: leader.rev must be an integer number, got string' },
  { call: 'proclaim', args: [{ leader, value: 2 }], message: 'etcdlite: proclaim: value must be a Uint8Array or a string, got number' },
  { call: 'leader', args: [{ name: null }], message: 'etcdlite: leader: name must be a Uint8Array or a string, got null' },
  { call: 'resign', args: [{ leader: { ...leader, key: 1 } }], message: 'etcdlite: resign: leader.key must be a Uint8Array or a string, got number' },
  { call: 'resign', args: [{ leader: { ...leader, lease: 1 } }], message: 'etcdlite: resign: leader.lease must be a bigint, got number' },
  // maintenance
  { call: 'hashKV', args: [{ revision: 0.5 }], message: 'etcdlite: hashKV: revision must be an integer number, got 0.5' },
  { call: 'alarm', args: [{ action: 'get' }], message: "etcdlite: alarm: action must be one of 'GET', 'ACTIVATE', 'DEACTIVATE', got 'get'" },
  { call: 'alarm', args: [{ action: 'ACTIVATE', memberId: -1n, alarm: 'NOSPACE' }], message: 'etcdlite: alarm: memberId must be a bigint within uint64, got -1n' },
  { call: 'alarm', args: [{ action: 'ACTIVATE', memberId: 1n, alarm: 1 }], message: "etcdlite: alarm: alarm must be one of 'NONE', 'NOSPACE', 'CORRUPT', got number" },
  { call: 'moveLeader', args: [{ targetId: 1 }], message: 'etcdlite: moveLeader: targetId must be a bigint, got number' },
  // auth
  { call: 'authenticate', args: [{ name: b('root'), password: 'p' }], message: 'etcdlite: authenticate: name must be a string, got Buffer' },
  { call: 'userAdd', args: [{ name: 'u', password: 5 }], message: 'etcdlite: userAdd: password must be a string, got number' },
  { call: 'userAdd', args: [{ name: 'u', password: '', options: { noPassword: 'true' } }], message: 'etcdlite: userAdd: options.noPassword must be a boolean, got string' },
  { call: 'userGet', args: [{ name: 1 }], message: 'etcdlite: userGet: name must be a string, got number' },
  { call: 'userDelete', args: [{}], message: 'etcdlite: userDelete: name must be a string, got undefined' },
  { call: 'userChangePassword', args: [{ name: 'u', password: null }], message: 'etcdlite: userChangePassword: password must be a string, got null' },
  { call: 'userGrantRole', args: [{ name: 'u', role: 'r' }], message: 'etcdlite: userGrantRole: user must be a string, got undefined' },
  { call: 'userRevokeRole', args: [{ name: 'u', role: 1 }], message: 'etcdlite: userRevokeRole: role must be a string, got number' },
  { call: 'roleAdd', args: [{ role: 'r' }], message: 'etcdlite: roleAdd: name must be a string, got undefined' },
  { call: 'roleGet', args: [{ role: [] }], message: 'etcdlite: roleGet: role must be a string, got an array' },
  { call: 'roleDelete', args: [{ role: 2 }], message: 'etcdlite: roleDelete: role must be a string, got number' },
  { call: 'roleGrantPermission', args: [{ name: 'r', perm: { permType: 'read', key: 'a', rangeEnd: '' } }], message: "etcdlite: roleGrantPermission: perm.permType must be one of 'READ', 'WRITE', 'READWRITE', got 'read'" },
  { call: 'roleGrantPermission', args: [{ name: 'r', perm: { permType: 'READ', key: 1, rangeEnd: '' } }], message: 'etcdlite: roleGrantPermission: perm.key must be a Uint8Array or a string, got number' },
  { call: 'roleRevokePermission', args: [{ role: 'r', key: 'a' }], message: 'etcdlite: roleRevokePermission: rangeEnd must be a Uint8Array or a string, got undefined' },
  // listeners
  { call: 'listen', args: [{ port: 70000 }], message: 'etcdlite: listen: port must be an integer from 0 to 65535, got 70000' },
  { call: 'listen', args: [{ port: '2379' }], message: 'etcdlite: listen: port must be an integer number, got string' },
  { call: 'listen', args: [{ host: 127 }], message: 'etcdlite: listen: host must be a string, got number' },
  { call: 'listen', args: [{ port: 0, tls: { cert: 1, key: 'k' } }], message: 'etcdlite: listen: tls.cert must be a string or a Buffer, got number' },
  { call: 'listenMetrics', args: [{ port: -1 }], message: 'etcdlite: listenMetrics: port must be an integer from 0 to 65535, got -1' },
]

/** Entry points that return no promise and so throw at the call. */
const THROWING: readonly Refusal[] = [
  { call: 'watch', args: [{ key: 5 }], message: 'etcdlite: watch: key must be a Uint8Array or a string, got number' },
  { call: 'watch', args: [{ key: 'a', startRevision: 1.5 }], message: 'etcdlite: watch: startRevision must be an integer number, got 1.5' },
  { call: 'watch', args: [{ key: 'a', filters: ['NOPUT', 'PUT'] }], message: "etcdlite: watch: filters[1] must be one of 'NOPUT', 'NODELETE', got 'PUT'" },
  { call: 'watch', args: [{ key: 'a', prefix: 'yes' }], message: 'etcdlite: watch: prefix must be a boolean, got string' },
  { call: 'watch', args: [{ key: 'a', signal: {} }], message: 'etcdlite: watch: signal must be an AbortSignal, got object' },
  { call: 'leaseKeepAlive', args: [{ id: 1 }], message: 'etcdlite: leaseKeepAlive: id must be a bigint, got number' },
  { call: 'observe', args: [{ name: 1 }], message: 'etcdlite: observe: name must be a Uint8Array or a string, got number' },
  { call: 'observe', args: [{ name: 'E' }, { signal: 1 }], message: 'etcdlite: observe: options.signal must be an AbortSignal, got number' },
  { call: 'snapshot', args: [{ signal: 'x' }], message: 'etcdlite: snapshot: options.signal must be an AbortSignal, got string' },
  { call: 'withToken', args: [5], message: 'etcdlite: withToken: token must be a string, got number' },
]

const STREAM_SENDS: readonly { readonly req: unknown; readonly message: string }[] = [
  { req: { type: 'create', request: { key: 5 } }, message: 'etcdlite: watchStream.send: request.key must be a Uint8Array or a string, got number' },
  { req: { type: 'create', request: { key: 'a', watchId: '1' } }, message: 'etcdlite: watchStream.send: request.watchId must be an integer number, got string' },
  { req: { type: 'create', request: { key: 'a', fragment: 1 } }, message: 'etcdlite: watchStream.send: request.fragment must be a boolean, got number' },
  { req: { type: 'cancel', watchId: 1n }, message: 'etcdlite: watchStream.send: watchId must be an integer number, got bigint' },
  { req: { type: 'create', key: 'a' }, message: 'etcdlite: watchStream.send: request must be an object, got undefined' },
  { req: { type: 'delete' }, message: "etcdlite: watchStream.send: type must be one of 'create', 'cancel', 'progress', got 'delete'" },
  { req: 'create', message: 'etcdlite: watchStream.send: request must be an object, got string' },
]

describe('embedded API: wrong-typed input is refused with a TypeError naming the field', () => {
  it('every promise-returning entry point rejects, and nothing is stored', async () => {
    await using etcd = await openEtcd({ memory: true })
    const before = (await etcd.status()).raftIndex
    const api = loose(etcd)
    for (const r of REFUSALS) {
      const f = api[r.call]
      assert.ok(f !== undefined, r.call)
      let p: unknown
      assert.doesNotThrow(() => (p = f.apply(etcd, [...r.args])), `${r.call} rejects rather than throwing`)
      await assert.rejects(p as Promise<unknown>, (err: unknown) => {
        assert.ok(err instanceof TypeError, `${r.call}: ${String(err)}`)
        assert.equal(err.message, r.message)
        return true
      })
    }
    assert.equal((await etcd.status()).raftIndex, before, 'no write went through')
    assert.equal((await etcd.range({ key: '\0', rangeEnd: '\0' })).count, 0)
  })

  it('entry points that return an iterator or a view throw at the call', async () => {
    await using etcd = await openEtcd({ memory: true })
    const api = loose(etcd)
    for (const r of THROWING) {
      const f = api[r.call]
      assert.ok(f !== undefined, r.call)
      assert.throws(() => f.apply(etcd, [...r.args]), (err: unknown) => {
        assert.ok(err instanceof TypeError, `${r.call}: ${String(err)}`)
        assert.equal(err.message, r.message)
        return true
      })
    }
    const stream = etcd.watchStream()
    for (const s of STREAM_SENDS) {
      assert.throws(() => (stream.send as (r: unknown) => void)(s.req), (err: unknown) => {
        assert.ok(err instanceof TypeError, String(err))
        assert.equal(err.message, s.message)
        return true
      })
    }
    stream.close()
  })

  it('openEtcd and restoreSnapshot refuse options of the wrong type', async () => {
    const OPTIONS: readonly (readonly [unknown, string])[] = [
      [{ dataDir: 5 }, 'dataDir must be a string, got number'],
      [{ memory: 'true' }, 'memory must be a boolean, got string'],
      [{ memory: true, maxTxnOps: '128' }, 'maxTxnOps must be an integer number, got string'],
      [{ memory: true, maxRequestBytes: 1.5 }, 'maxRequestBytes must be an integer number, got 1.5'],
      [{ memory: true, quotaBackendBytes: 2n }, 'quotaBackendBytes must be an integer number, got bigint'],
      [{ memory: true, autoCompactionMode: 'hourly' }, "autoCompactionMode must be one of 'periodic', 'revision', got 'hourly'"],
      [{ memory: true, autoCompactionRetention: 1 }, 'autoCompactionRetention must be a string, got number'],
      [{ memory: true, peerUrls: 'http://a:2380' }, 'peerUrls must be an array, got string'],
      [{ memory: true, advertiseClientUrls: [1] }, 'advertiseClientUrls[0] must be a string, got number'],
      [{ memory: true, logger: console.log }, 'logger must be a Logger (debug, info, warn, error), got function'],
      [{ memory: true, clock: Date }, 'clock must be a Clock (now, after), got function'],
      [{ db: {} }, 'db must be an abstract-level database, got object'],
      [{ memory: true, authToken: 'jwt' }, "authToken must be 'simple' or a JWT options object, got 'jwt'"],
      [{ memory: true, authToken: { type: 'jwt', signMethod: 'RS256', privateKey: 5 } }, 'authToken.privateKey must be a string or a Buffer, got number'],
      [{ memory: true, bcryptCost: '4' }, 'bcryptCost must be an integer number, got string'],
      ['./data', 'options must be an object, got string'],
    ]
    for (const [options, message] of OPTIONS) {
      await assert.rejects((openEtcd as (o: unknown) => Promise<Etcd>)(options), { name: 'TypeError', message: `etcdlite: openEtcd: ${message}` })
    }
    const restore = (f: unknown, o?: unknown): Promise<EtcdOptions> => Etcd.restoreSnapshot(f as string, o as EtcdOptions)
    await assert.rejects(restore('snap.db', { memory: 1 }), { name: 'TypeError', message: 'etcdlite: restoreSnapshot: memory must be a boolean, got number' })
  })

  it('the exported prefixEnd takes a string as UTF-8 and refuses other types', async () => {
    const { prefixEnd } = await import('../../../src/index.js')
    assert.deepEqual(Buffer.from(prefixEnd('app/')), b('app0'))
    assert.deepEqual(Buffer.from(prefixEnd(b('app/'))), b('app0'))
    assert.throws(() => (prefixEnd as (p: unknown) => Uint8Array)(7), {
      name: 'TypeError',
      message: 'etcdlite: prefixEnd: prefix must be a Uint8Array or a string, got number',
    })
  })

  it('restoreSnapshot refuses a file name that is not a string', async () => {
    await assert.rejects(Etcd.restoreSnapshot(5 as unknown as string), {
      name: 'TypeError',
      message: 'etcdlite: restoreSnapshot: file must be a string, got number',
    })
  })

  it('values of the right type but out of etcd range still get etcd errors, as over gRPC', async () => {
    await using etcd = await openEtcd({ memory: true })
    await assert.rejects(etcd.put({ key: '', value: 'v' }), (e: unknown) => e instanceof EtcdError && e.code === 'EMPTY_KEY')
    await assert.rejects(etcd.compact({ revision: 5 }), (e: unknown) => e instanceof EtcdError && e.code === 'FUTURE_REV')
    assert.throws(() => etcd.watch({ key: 'b', rangeEnd: 'a' }), (e: unknown) => e instanceof EtcdError && e.code === 'WATCHER_RANGE_EMPTY')
  })
})

describe('embedded API: strings are taken as UTF-8 bytes in every bytes field', () => {
  it('put, range, deleteRange and txn (compares and nested ops) store and find exactly the UTF-8 bytes', async () => {
    await using etcd = await openEtcd({ memory: true })
    await etcd.put({ key: 'k', value: 'hello' })
    const kv = (await etcd.range({ key: b('k') })).kvs[0]
    assert.deepEqual(Buffer.from(kv?.value ?? []), b('hello'), 'not five NUL bytes')
    await etcd.put({ key: 'clé', value: 'héllo ✓' })
    assert.deepEqual(Buffer.from((await etcd.range({ key: b('clé') })).kvs[0]?.value ?? []), b('héllo ✓'))
    assert.equal((await etcd.range({ key: 'a', rangeEnd: 'z' })).count, 2)
    const t = await etcd.txn({
      compare: [{ key: 'k', target: 'VALUE', result: 'EQUAL', value: 'hello' }],
      success: [
        { type: 'put', request: { key: 'k2', value: 'v2' } },
        { type: 'txn', request: { success: [{ type: 'range', request: { key: 'k', rangeEnd: 'k3' } }] } },
      ],
    })
    assert.equal(t.succeeded, true)
    const inner = t.responses[1]
    assert.ok(inner?.type === 'txn')
    const range = inner.response.responses[0]
    assert.ok(range?.type === 'range')
    assert.deepEqual(range.response.kvs.map((x) => Buffer.from(x.key).toString()), ['k', 'k2'])
    assert.equal((await etcd.deleteRange({ key: 'k', rangeEnd: 'k3' })).deleted, 2)
  })

  it('a gRPC client reads back the UTF-8 bytes of a string put in process', async () => {
    await using etcd = await openEtcd({ memory: true })
    await etcd.put({ key: b('greeting'), value: 'hello' })
    const { endpoint } = await etcd.listen({ port: 0 })
    const c = rawClient(endpoint)
    try {
      const res = await c.kv.Range({ key: b('greeting') })
      const kv = (res['kvs'] as Record<string, unknown>[])[0]
      assert.deepEqual(kv?.['value'], b('hello'))
    } finally {
      c.close()
    }
  })

  it('watch, watchStream, lock, election and auth permissions take strings', async () => {
    await using etcd = await openEtcd({ memory: true })
    const w = etcd.watch({ key: 'w', prefix: true })
    const stream = etcd.watchStream()
    stream.send({ type: 'create', request: { key: 'w', rangeEnd: 'x' } })
    await etcd.put({ key: 'w/1', value: 'x' })
    const ev = (await w.next()).value?.events[0]
    assert.deepEqual(Buffer.from(ev?.kv.key ?? []), b('w/1'))
    let created = false
    for await (const r of stream) {
      if (r.created) created = true
      else {
        assert.deepEqual(Buffer.from(r.events[0]?.kv.value ?? []), b('x'))
        break
      }
    }
    assert.ok(created)
    await w.cancel()

    const l = await etcd.lock({ name: 'L' })
    assert.ok(Buffer.from(l.key).toString().startsWith('L/'))
    await etcd.unlock({ key: Buffer.from(l.key).toString() })
    assert.equal((await etcd.range({ key: 'L/', rangeEnd: 'L0' })).count, 0)

    const c = await etcd.campaign({ name: 'E', value: 'a' })
    await etcd.proclaim({ leader: c.leader, value: 'ä' })
    assert.deepEqual(Buffer.from((await etcd.leader({ name: 'E' })).kv.value), b('ä'))
    const ac = new AbortController()
    for await (const r of etcd.observe({ name: 'E' }, { signal: ac.signal })) {
      assert.deepEqual(Buffer.from(r.kv.value), b('ä'))
      break
    }
    await etcd.resign({ leader: c.leader })

    await etcd.roleAdd({ name: 'r' })
    await etcd.roleGrantPermission({ name: 'r', perm: { permType: 'READ', key: 'a', rangeEnd: 'b' } })
    const perm = (await etcd.roleGet({ role: 'r' })).perm[0]
    assert.deepEqual([Buffer.from(perm?.key ?? []), Buffer.from(perm?.rangeEnd ?? [])], [b('a'), b('b')])
    await etcd.roleRevokePermission({ role: 'r', key: 'a', rangeEnd: 'b' })
    assert.equal((await etcd.roleGet({ role: 'r' })).perm.length, 0)
  })

  it('a request that already has Uint8Array fields reaches the server as the same object (no copy on the put path)', async () => {
    await using etcd = await openEtcd({ memory: true })
    const seen: unknown[] = []
    const server = etcd.server.kvService as unknown as { put: (r: unknown, c: unknown) => Promise<unknown> }
    const real = server.put.bind(server)
    server.put = (r, c) => {
      seen.push(r)
      return real(r, c)
    }
    const typed = { key: b('k'), value: b('v') }
    await etcd.put(typed)
    await etcd.put({ key: 'k', value: 'v' })
    assert.equal(seen[0], typed)
    assert.notEqual(seen[1], undefined)
    assert.ok((seen[1] as { key: unknown }).key instanceof Uint8Array)
  })
})
