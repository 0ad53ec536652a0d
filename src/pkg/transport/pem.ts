// PEM as Go's encoding/pem reads and writes it: blocks found anywhere in the text (what lies between them
// skipped), optional "Key: value" headers before the base64 body, 64-character lines when writing. Written
// here because etcd's messages name the blocks it skipped and their types, which node:crypto (which takes
// PEM only whole, as one key or certificate) never shows.

export interface PemBlock {
  readonly type: string
  readonly der: Buffer
}

/** Every PEM block in the text, in order (Go's pem.Decode called until it finds no more). */
export function pemBlocks(text: string): PemBlock[] {
  const out: PemBlock[] = []
  for (const m of text.matchAll(/-----BEGIN ([^\r\n]*?)-----\r?\n([\s\S]*?)-----END \1-----/g)) {
    const body = (m[2] ?? '').replace(/^(?:[^\r\n:]+:[^\r\n]*\r?\n)+\r?\n/, '')
    out.push({ type: m[1] ?? '', der: Buffer.from(body.replace(/\s+/g, ''), 'base64') })
  }
  return out
}

/** One block as Go's pem.Encode writes it. */
export function pemEncode(type: string, der: Uint8Array): string {
  const lines = Buffer.from(der).toString('base64').match(/.{1,64}/g) ?? []
  return `-----BEGIN ${type}-----\n${lines.map((l) => `${l}\n`).join('')}-----END ${type}-----\n`
}
