"""Drive python3-etcd3gw's whole API against one server's JSON gateway and print a transcript.

Usage: etcd3gw_session.py HOST PORT

One JSON object per line, {"step": name, "result": value}. What differs between any two servers (cluster
and member IDs, lease IDs, the data size, wall-clock lease countdowns) is reduced here to what a client can
rely on, so the transcripts of the real etcd and of etcdlite are comparable line by line. Everything else
(values, revisions, versions, booleans, error bodies, watch events) is printed as etcd3gw returns it.
"""
import json
import sys

import etcd3gw
from etcd3gw import exceptions

HOST, PORT = sys.argv[1], int(sys.argv[2])
URL = 'http://%s:%d' % (HOST, PORT)
# etcd3gw defaults to /v3alpha/, which etcd 3.4 and later no longer serve.
client = etcd3gw.Etcd3Client(host=HOST, port=PORT, api_path='/v3/', timeout=10)

lease_names = {}


def lease_name(lease_id):
    """A lease ID as the order the session granted it in: etcd picks IDs at random."""
    key = str(lease_id)
    if key not in lease_names:
        lease_names[key] = 'lease#%d' % len(lease_names)
    return lease_names[key]


def plain(value):
    """bytes as text (latin-1, as etcd3gw encodes), lease IDs by name, tuples as lists, recursively."""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode('latin-1')
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: (lease_name(v) if k == 'lease' and v not in (None, '0', 0) else plain(v))
                for k, v in sorted(value.items())}
    return value


def emit(step, result):
    print(json.dumps({'step': step, 'result': plain(result)}, sort_keys=True), flush=True)


def attempt(step, call):
    """Run a call that may fail: its result, or the exception's class and the gateway's error body."""
    try:
        emit(step, {'ok': call()})
    except exceptions.Etcd3Exception as e:
        body = e.detail_text
        try:
            body = json.loads(body)
        except (TypeError, ValueError):
            pass
        emit(step, {'error': type(e).__name__, 'body': body})


def revision():
    return int(client.post(client.get_url('/kv/range'), json={'key': etcd3gw.utils._encode('none')})['header']['revision'])


def ttl_near(ttl, granted):
    """A lease countdown read some wall-clock time after the grant or refresh."""
    return ttl if ttl <= 0 else ('within 3 s of %d' % granted if granted - 3 <= ttl <= granted else ttl)


# Maintenance and cluster.
status = client.status()
emit('status fields', sorted(status.keys()))
emit('status header fields', sorted(status['header'].keys()))
emit('status version', status['version'])
emit('status leader is this member', status['leader'] == status['header']['member_id'])
emit('status raftTerm matches the header', status['raftTerm'] == status['header']['raft_term'])
emit('status dbSize is a positive int64 string', int(status['dbSize']) > 0)
members = client.members()
emit('members count', len(members))
emit('member fields', sorted(members[0].keys()))
emit('member name', members[0].get('name'))
emit('member clientURLs', members[0].get('clientURLs') == [URL])
emit('member ID is the status member_id', members[0]['ID'] == status['header']['member_id'])

# KV: put, get, get with metadata, sorted prefix ranges, get_all, limits and counts.
emit('put foo', client.put('foo', 'bar'))
emit('get foo', client.get('foo'))
emit('get foo with metadata', client.get('foo', metadata=True))
emit('get missing', client.get('missing'))
for i, v in enumerate(['c', 'a', 'b', 'a']):
    client.put('dir/k%d' % i, v)
client.put('dir/k1', 'z')
client.put('dis', 'outside the prefix')
emit('get_prefix dir/', client.get_prefix('dir/'))
emit('get_prefix descend', client.get_prefix('dir/', sort_order='descend'))
emit('get_prefix by value', [m['key'] for _, m in client.get_prefix('dir/', sort_order='ascend', sort_target='value')])
emit('get_prefix by version descend', [m['key'] for _, m in client.get_prefix('dir/', sort_order='descend', sort_target='version')])
emit('get_prefix by mod', [m['key'] for _, m in client.get_prefix('dir/', sort_order='ascend', sort_target='mod')])
emit('get_prefix nothing', client.get_prefix('nothing/'))
emit('get_all', client.get_all())
emit('get_all descend', client.get_all(sort_order='descend'))
emit('get limit 2', client.get('dir/', metadata=True, range_end=etcd3gw.utils._encode('dir0'), limit=2))
emit('raw range count_only', client.post(client.get_url('/kv/range'), json={
    'key': etcd3gw.utils._encode('dir/'), 'range_end': etcd3gw.utils._encode('dir0'), 'count_only': True})['count'])
raw = client.post(client.get_url('/kv/range'), json={
    'key': etcd3gw.utils._encode('dir/'), 'range_end': etcd3gw.utils._encode('dir0'), 'limit': 1})
emit('raw range limit 1 fields', sorted(raw.keys()))
emit('raw range limit 1 more and count', [raw.get('more'), raw.get('count')])
try:
    client.get('foo', sort_order='up')
    emit('bad sort_order', 'accepted')
except ValueError as e:
    emit('bad sort_order', str(e))

# Transactions: create and replace, then etcd3gw's raw transaction().
emit('create new', client.create('created', 'first'))
emit('create existing', client.create('created', 'second'))
emit('get created', client.get('created'))
emit('replace matching', client.replace('created', 'first', 'third'))
emit('replace not matching', client.replace('created', 'first', 'fourth'))
emit('get replaced', client.get('created'))
txn = client.transaction({
    'compare': [{'key': etcd3gw.utils._encode('foo'), 'result': 'EQUAL', 'target': 'VALUE', 'value': etcd3gw.utils._encode('bar')}],
    'success': [{'request_range': {'key': etcd3gw.utils._encode('foo')}}, {'request_put': {'key': etcd3gw.utils._encode('t'), 'value': etcd3gw.utils._encode('1'), 'prev_kv': True}}],
    'failure': [],
})
txn.pop('header')
emit('transaction', txn)
txn = client.transaction({
    'compare': [{'key': etcd3gw.utils._encode('foo'), 'result': 'GREATER', 'target': 'MOD', 'mod_revision': 1000}],
    'success': [],
    'failure': [{'request_delete_range': {'key': etcd3gw.utils._encode('t'), 'prev_kv': True}}],
})
txn.pop('header')
emit('transaction failure branch', txn)

# Errors the gateway turns into HTTP statuses and bodies.
attempt('put empty key', lambda: client.put('', 'v'))
attempt('put with an unknown lease', lambda: client.put('k', 'v', lease=etcd3gw.Lease(123456789, client)))
attempt('transaction with a duplicate put', lambda: client.transaction({
    'success': [{'request_put': {'key': etcd3gw.utils._encode('d'), 'value': ''}},
                {'request_put': {'key': etcd3gw.utils._encode('d'), 'value': ''}}]}))
attempt('unknown JSON field', lambda: client.post(client.get_url('/kv/range'), json={'nokey': 1}))

# Delete.
emit('delete foo', client.delete('foo'))
emit('delete foo again', client.delete('foo'))
emit('get foo after delete', client.get('foo'))
emit('delete_prefix dir/', client.delete_prefix('dir/'))
emit('get_prefix after delete_prefix', client.get_prefix('dir/'))
emit('delete_prefix nothing', client.delete_prefix('dir/'))
emit('get dis survives', client.get('dis'))

# Leases: grant, ttl, refresh, keys, revoke.
lease = client.lease(60)
emit('lease granted', lease_name(lease.id))
emit('lease ttl', ttl_near(lease.ttl(), 60))
emit('lease refresh', ttl_near(lease.refresh(), 60))
emit('put with lease', client.put('leased/a', 'x', lease=lease))
emit('create with lease', client.create('leased/b', 'y', lease=lease))
emit('lease keys', sorted(k.decode('latin-1') for k in lease.keys()))
emit('leased key metadata', client.get('leased/a', metadata=True))
emit('lease revoke', lease.revoke())
emit('lease ttl after revoke', lease.ttl())
emit('lease keys after revoke', lease.keys())
emit('lease refresh after revoke', lease.refresh())
emit('leased keys after revoke', client.get_prefix('leased/'))
attempt('revoke a revoked lease', lease.revoke)

# Locks: etcd3gw's Lock is a lease plus create-if-absent transaction.
lock = client.lock('resource', ttl=60)
emit('lock acquire', lock.acquire())
emit('lock is_acquired', lock.is_acquired())
other = client.lock('resource', ttl=60)
emit('second lock acquire', other.acquire())
emit('second lock is_acquired', other.is_acquired())
emit('second lock release (not held)', other.release())
emit('lock refresh', ttl_near(lock.refresh(), 60))
emit('lock key value is the holder uuid', client.get('/locks/resource') == [lock.uuid.encode('latin-1')])
emit('lock release', lock.release())
emit('lock is_acquired after release', lock.is_acquired())
emit('second lock acquire after release', other.acquire())
emit('second lock release', other.release())
with client.lock('ctx', ttl=60) as held:
    emit('lock as context manager', held.is_acquired())
emit('context lock released', client.get('/locks/ctx'))
other.lease.revoke()
lock.lease.revoke()

# Watches, streamed over /v3/watch: the stream is open (the watch created) once watch() returns.
events, cancel = client.watch('w/key')
client.put('w/key', 'one')
client.put('w/other', 'ignored')
client.delete('w/key')
emit('watch put', next(events))
emit('watch delete', next(events))
cancel()
events, cancel = client.watch_prefix('w/', prev_kv=True)
client.put('w/a', '1')
client.put('w/a', '2')
client.put('wx', 'outside')
client.delete_prefix('w/')
emit('watch_prefix with prev_kv', [next(events) for _ in range(4)])
cancel()
start = revision()
client.put('w/hist', 'h1')
client.put('w/hist', 'h2')
events, cancel = client.watch('w/hist', start_revision=start + 1)
emit('watch from history', [next(events), next(events)])
cancel()
events, cancel = client.watch_prefix('w/', filters=['NOPUT'])
client.put('w/f', 'put, filtered out')
client.delete('w/f')
emit('watch with NOPUT filter', next(events))
cancel()
# watch_once reads history here: a put timed to land after the watch is created would race its creation.
client.put('w/once', 'now')
emit('watch_once', client.watch_once('w/once', timeout=10, start_revision=revision()))
client.put('w/p/once', 'now')
emit('watch_prefix_once', client.watch_prefix_once('w/p/', timeout=10, start_revision=revision()))
try:
    client.watch_once('w/never', timeout=0.5)
    emit('watch_once timeout', 'an event')
except exceptions.WatchTimedOut:
    emit('watch_once timeout', 'WatchTimedOut')
emit('final revision', revision())
