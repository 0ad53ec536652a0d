// Hand-encoded TxnRequests nested as deep as a test likes: protobufjs cannot encode one past 50 levels.

/** `n` as a protobuf base-128 varint. */
export function varint(n: number): number[] {
  const out: number[] = []
  while (n >= 0x80) {
    out.push((n % 128) | 0x80)
    n = Math.floor(n / 128)
  }
  out.push(n)
  return out
}

/**
 * `levels` TxnRequests, each holding the next in its success (TxnRequest.success = 2 holding
 * RequestOp.request_txn = 4), around `inner`, the innermost TxnRequest's own bytes. Every level only wraps
 * the next, so the message is the levels' heads, outermost first, then `inner`.
 */
export function wrapTxn(levels: number, inner: Buffer): Buffer {
  const heads: Buffer[] = []
  let size = inner.length
  for (let i = 0; i < levels; i++) {
    const op = [0x22, ...varint(size)]
    const head = Buffer.from([0x12, ...varint(op.length + size), ...op])
    size += head.length
    heads.push(head)
  }
  return Buffer.concat([...heads.reverse(), inner])
}

/** A TxnRequest whose success puts `key` = "v": TxnRequest { success: RequestOp { request_put: PutRequest } }. */
export function putTxn(key: string): Buffer {
  const k = Buffer.from(key)
  const put = Buffer.from([0x0a, ...varint(k.length), ...k, 0x12, 0x01, 0x76])
  const op = Buffer.from([0x12, ...varint(put.length), ...put])
  return Buffer.from([0x12, ...varint(op.length), ...op])
}
