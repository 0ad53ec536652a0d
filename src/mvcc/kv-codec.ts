// The stored value of a revision is an encoded mvccpb.KeyValue, as in etcd's bbolt `key` bucket.
export { decodeIndexFields, decodeKeyValue, encodeKeyValue } from '../pkg/keyvalue-wire.js'
