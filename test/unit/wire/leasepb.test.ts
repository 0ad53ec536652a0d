// The stored lease (src/wire/leasepb.ts) against protobufjs over etcd's leasepb.Lease (lease/leasepb/
// lease.proto: ID int64 = 1, TTL int64 = 2, RemainingTTL int64 = 3), declared here as our protos leave it
// out: the same bytes for negative, zero and 64-bit values, round trips, unknown fields skipped, and the
// bucket key as etcd's int64ToBytes writes it.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import protobuf from 'protobufjs'
import { decodeLease, encodeLease, leaseIdKey, type LeaseRecord } from '../../../src/wire/leasepb.js'

const Lease = new protobuf.Type('Lease')
  .add(new protobuf.Field('ID', 1, 'int64'))
  .add(new protobuf.Field('TTL', 2, 'int64'))
  .add(new protobuf.Field('RemainingTTL', 3, 'int64'))
new protobuf.Root().define('leasepb').add(Lease)

describe('stored lease codec', () => {
  const cases: LeaseRecord[] = [
    { id: 0n, ttl: 0, remainingTtl: 0 },
    { id: 1n, ttl: 5, remainingTtl: 0 },
    { id: 0x7fff_ffff_ffff_ffffn, ttl: 9_000_000_000, remainingTtl: 3 },
    { id: -1n, ttl: -1, remainingTtl: -2 },
  ]
  for (const rec of cases) {
    it(`ID ${rec.id}, TTL ${rec.ttl}, remaining ${rec.remainingTtl}: byte-identical to protobufjs and round-trips`, () => {
      // Go (gogoproto) omits proto3 zero values; protobufjs writes whatever is set, so set only non-zero fields.
      const obj: Record<string, string> = {}
      if (rec.id !== 0n) obj['ID'] = rec.id.toString()
      if (rec.ttl !== 0) obj['TTL'] = String(rec.ttl)
      if (rec.remainingTtl !== 0) obj['RemainingTTL'] = String(rec.remainingTtl)
      const ours = encodeLease(rec)
      assert.deepEqual(Buffer.from(ours), Buffer.from(Lease.encode(Lease.fromObject(obj)).finish()))
      assert.deepEqual(decodeLease(ours), rec)
    })
  }

  it('skips unknown fields', () => {
    // ID 7, an unknown string field 4, TTL 10.
    assert.deepEqual(decodeLease(Uint8Array.from([0x08, 7, 0x22, 1, 0x61, 0x10, 10])), { id: 7n, ttl: 10, remainingTtl: 0 })
  })

  it('keys a lease by its ID as a signed 64-bit big-endian integer', () => {
    assert.deepEqual(Buffer.from(leaseIdKey(1n)), Buffer.from([0, 0, 0, 0, 0, 0, 0, 1]))
    assert.deepEqual(Buffer.from(leaseIdKey(-1n)), Buffer.alloc(8, 0xff))
  })
})
