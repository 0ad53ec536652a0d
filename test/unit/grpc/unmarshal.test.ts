// The unmarshal check answers what etcd 3.4.23 answers for malformed requests. The expected texts are the
// real etcd's (grpc-go's INTERNAL "grpc: error unmarshalling request: " followed by gogoproto's error),
// recorded from it; malformed.differential.test.ts compares with a live etcd at random.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { UnmarshalError } from '../../../src/pkg/errors.js'
import { etcdSchemas, goCamelCase, goUnmarshalCheck } from '../../../src/grpc/unmarshal.js'
import { wrapTxn } from '../../helpers/nested-txn.js'

const hex = (s: string): Buffer => Buffer.from(s.replace(/ /g, ''), 'hex')

/** The Go error text for `bytes` as a `type`, or undefined when etcd unmarshals it. */
function goError(type: string, bytes: Buffer): string | undefined {
  const schemas = etcdSchemas()
  try {
    goUnmarshalCheck(schemas, schemas.get(type), bytes)
    return undefined
  } catch (e) {
    if (e instanceof UnmarshalError) return e.message
    throw e
  }
}

describe('unmarshal check (gogoproto Unmarshal)', () => {
  const cases: readonly [string, string, string | undefined][] = [
    ['etcdserverpb.RangeRequest', '08 01', 'proto: wrong wireType = 0 for field Key'],
    ['etcdserverpb.RangeRequest', '0a 01 61 18 ff', 'unexpected EOF'],
    ['etcdserverpb.RangeRequest', '0a 05 61', 'unexpected EOF'],
    ['etcdserverpb.RangeRequest', '0a 01 61 00', 'proto: RangeRequest: illegal tag 0 (wire type 0)'],
    ['etcdserverpb.RangeRequest', '0a 01 61 0c', 'proto: RangeRequest: wiretype end group for non-group'],
    ['etcdserverpb.RangeRequest', '0a 01 61 18 ff ff ff ff ff ff ff ff ff ff 01', 'proto: integer overflow'],
    ['etcdserverpb.RangeRequest', '0a 01 61 fb 07 08 01 fc 07', undefined],
    ['etcdserverpb.RangeRequest', '0a 01 61 fe 07', 'proto: illegal wireType 6'],
    ['etcdserverpb.RangeRequest', '0a 01 61 12 ff ff ff ff ff ff ff ff ff 01', 'proto: negative length found during unmarshaling'],
    // A field number past int32 wraps in Go: here to a positive unknown field, skipped.
    ['etcdserverpb.RangeRequest', 'fa ff ff ff 0f 00', undefined],
    ['etcdserverpb.TxnRequest', '12 04 0a 02 00 00', 'proto: RangeRequest: illegal tag 0 (wire type 0)'],
    ['etcdserverpb.TxnRequest', '12 04 22 02 1c 00', 'proto: TxnRequest: wiretype end group for non-group'],
    ['etcdserverpb.PutRequest', '0a 01 6b 1a 01 00', 'proto: wrong wireType = 2 for field Lease'],
    ['etcdserverpb.LeaseGrantRequest', '08 80 80 80 80 80 80 80 80 80 80 01', 'proto: integer overflow'],
    // gogoproto does not check UTF-8 in string fields.
    ['etcdserverpb.AuthRoleAddRequest', '0a 02 ff fe', undefined],
  ]
  for (const [type, bytes, want] of cases) {
    it(`${type} ${bytes}: ${want ?? 'accepted'}`, () => {
      assert.equal(goError(type, hex(bytes)), want)
    })
  }

  it('walks a message nested far deeper than the JavaScript stack goes', () => {
    // 300,000 levels of TxnRequest { success: RequestOp { request_txn: ... } }, the innermost with a bad tag.
    const depth = 300_000
    const bytes = wrapTxn(depth, hex('00'))
    assert.equal(goError('etcdserverpb.TxnRequest', bytes), 'proto: TxnRequest: illegal tag 0 (wire type 0)')
  })

  it('names fields as protoc-gen-go does', () => {
    assert.equal(goCamelCase('range_end'), 'RangeEnd')
    assert.equal(goCamelCase('ID'), 'ID')
    assert.equal(goCamelCase('peerURLs'), 'PeerURLs')
    assert.equal(goCamelCase('request_delete_range'), 'RequestDeleteRange')
    assert.equal(goCamelCase('hash_kv2x'), 'HashKv2X')
    assert.equal(goCamelCase('_x'), 'XX')
  })
})
