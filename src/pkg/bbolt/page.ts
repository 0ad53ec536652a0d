// bbolt's on-disk page (go.etcd.io/bbolt page.go), little-endian as bbolt writes it on every platform etcd
// ships for: a 16-byte header { id u64, flags u16, count u16, overflow u32 }, then `count` fixed-size
// elements, then the keys and values the elements point at. A node larger than one page spans `overflow`
// more pages that follow it.

export const PAGE_HEADER_SIZE = 16
export const BRANCH_ELEMENT_SIZE = 16
export const LEAF_ELEMENT_SIZE = 16
/** The page size etcd's bbolt files use (os.Getpagesize() on amd64 and arm64 Linux). */
export const DEFAULT_PAGE_SIZE = 4096

export const BRANCH_PAGE_FLAG = 0x01
export const LEAF_PAGE_FLAG = 0x02
export const META_PAGE_FLAG = 0x04
export const FREELIST_PAGE_FLAG = 0x10

/** A leaf element's flag for a value that is a nested bucket. */
export const BUCKET_LEAF_FLAG = 0x01
/** A bucket value's header { root pgid u64, sequence u64 }; root 0 means the bucket's page follows inline. */
export const BUCKET_HEADER_SIZE = 16

/** bbolt's limits on keys and values (bucket.go). */
export const MAX_KEY_SIZE = 32768
export const MAX_VALUE_SIZE = 2 ** 31 - 2

/** A malformed bbolt file, or data bbolt cannot store. */
export class BoltError extends Error {
  override name = 'BoltError'
}

export interface PageHeader {
  readonly id: number
  readonly flags: number
  readonly count: number
  readonly overflow: number
}

/** Read a u64 that must fit in a JS number (page ids, counts): larger values are a malformed file. */
export function readU64(b: Buffer, off: number, what: string): number {
  const n = b.readBigUInt64LE(off)
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw new BoltError(`bbolt: ${what} ${n} is out of range`)
  return Number(n)
}

export function readPageHeader(b: Buffer, off = 0): PageHeader {
  return { id: readU64(b, off, 'page id'), flags: b.readUInt16LE(off + 8), count: b.readUInt16LE(off + 10), overflow: b.readUInt32LE(off + 12) }
}

export function writePageHeader(b: Buffer, off: number, h: PageHeader): void {
  b.writeBigUInt64LE(BigInt(h.id), off)
  b.writeUInt16LE(h.flags, off + 8)
  b.writeUInt16LE(h.count, off + 10)
  b.writeUInt32LE(h.overflow, off + 12)
}

/** One element of a leaf page: its flags and where its key and value are (offsets into the page). */
export interface LeafElement {
  readonly flags: number
  readonly key: Uint8Array
  readonly value: Uint8Array
}

/** One element of a branch page: the first key of a child page, and that page. */
export interface BranchElement {
  readonly key: Uint8Array
  readonly pgid: number
}

function span(page: Buffer, elem: number, pos: number, ksize: number, vsize: number, id: number): { key: Uint8Array; value: Uint8Array } {
  const start = elem + pos
  if (pos < 0 || start + ksize + vsize > page.length) throw new BoltError(`bbolt: page ${id}: an element points past the page`)
  return { key: page.subarray(start, start + ksize), value: page.subarray(start + ksize, start + ksize + vsize) }
}

/** The elements of a leaf page held in `page` (header at offset 0); views into `page`. */
export function leafElements(page: Buffer, h: PageHeader): LeafElement[] {
  if (PAGE_HEADER_SIZE + h.count * LEAF_ELEMENT_SIZE > page.length) throw new BoltError(`bbolt: page ${h.id}: ${h.count} elements do not fit`)
  const out: LeafElement[] = []
  for (let i = 0; i < h.count; i++) {
    const e = PAGE_HEADER_SIZE + i * LEAF_ELEMENT_SIZE
    const flags = page.readUInt32LE(e)
    const { key, value } = span(page, e, page.readUInt32LE(e + 4), page.readUInt32LE(e + 8), page.readUInt32LE(e + 12), h.id)
    out.push({ flags, key, value })
  }
  return out
}

/** The elements of a branch page held in `page`; views into `page`. */
export function branchElements(page: Buffer, h: PageHeader): BranchElement[] {
  if (PAGE_HEADER_SIZE + h.count * BRANCH_ELEMENT_SIZE > page.length) throw new BoltError(`bbolt: page ${h.id}: ${h.count} elements do not fit`)
  const out: BranchElement[] = []
  for (let i = 0; i < h.count; i++) {
    const e = PAGE_HEADER_SIZE + i * BRANCH_ELEMENT_SIZE
    const { key } = span(page, e, page.readUInt32LE(e), page.readUInt32LE(e + 4), 0, h.id)
    out.push({ key, pgid: readU64(page, e + 8, 'child page id') })
  }
  return out
}

/** A node's size on a page: header, elements, keys and values (node.go size()). */
export function nodeSize(elements: number, dataBytes: number): number {
  return PAGE_HEADER_SIZE + elements * LEAF_ELEMENT_SIZE + dataBytes
}

/**
 * Encode a leaf or branch node as bbolt's node.write does: elements first, then each element's key (and a
 * leaf's value) in order, on as many pages of `pageSize` as it needs (the first page's overflow counts the
 * others). With `pageSize` 0 the node takes exactly its size and no overflow: a bucket's inline page.
 */
export function encodeNode(
  id: number,
  leaf: boolean,
  items: readonly { readonly key: Uint8Array; readonly value?: Uint8Array; readonly flags?: number; readonly pgid?: number }[],
  pageSize: number,
): Buffer {
  let data = 0
  for (const it of items) data += it.key.length + (it.value?.length ?? 0)
  if (items.length >= 0xffff) throw new BoltError(`bbolt: a node of ${items.length} elements`)
  const size = nodeSize(items.length, data)
  const pages = pageSize === 0 ? 1 : Math.max(1, Math.ceil(size / pageSize))
  const b = Buffer.alloc(pageSize === 0 ? size : pages * pageSize)
  writePageHeader(b, 0, { id, flags: leaf ? LEAF_PAGE_FLAG : BRANCH_PAGE_FLAG, count: items.length, overflow: pages - 1 })
  let off = PAGE_HEADER_SIZE + items.length * LEAF_ELEMENT_SIZE
  items.forEach((it, i) => {
    const e = PAGE_HEADER_SIZE + i * LEAF_ELEMENT_SIZE
    const vlen = it.value?.length ?? 0
    if (leaf) {
      b.writeUInt32LE(it.flags ?? 0, e)
      b.writeUInt32LE(off - e, e + 4)
      b.writeUInt32LE(it.key.length, e + 8)
      b.writeUInt32LE(vlen, e + 12)
    } else {
      b.writeUInt32LE(off - e, e)
      b.writeUInt32LE(it.key.length, e + 4)
      b.writeBigUInt64LE(BigInt(it.pgid ?? 0), e + 8)
    }
    b.set(it.key, off)
    off += it.key.length
    if (it.value !== undefined && leaf) {
      b.set(it.value, off)
      off += vlen
    }
  })
  return b
}
