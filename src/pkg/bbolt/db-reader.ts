// Reading a bbolt database file (or the first `size` bytes of one, e.g. a snapshot before its SHA-256
// trailer) through a file handle, page by page: the file is never loaded whole. Memory holds one page per
// tree level. Every page id, element offset and key order is checked, so a damaged or hostile file ends
// in a BoltError, never in a crash or an endless walk: keys must strictly increase across a bucket's
// leaves, and only a root leaf may be empty, so no page is read twice in one walk.
import type { FileHandle } from 'node:fs/promises'
import { compareBytes } from '../bytes.js'
import { decodeMeta, type Meta } from './meta.js'
import {
  BoltError, branchElements, BRANCH_PAGE_FLAG, BUCKET_HEADER_SIZE, BUCKET_LEAF_FLAG, DEFAULT_PAGE_SIZE, leafElements,
  LEAF_PAGE_FLAG, PAGE_HEADER_SIZE, readPageHeader, readU64, type LeafElement, type PageHeader,
} from './page.js'

/** Deeper than any real tree (a 4 KiB-page tree of 2^53 keys is about 15 levels). */
const MAX_DEPTH = 64
const MIN_PAGE_SIZE = 512
const MAX_PAGE_SIZE = 1 << 20

/** Where a bucket's entries are: its own tree (root page id), or a page held inline in its parent's value. */
export type BucketRef = { readonly root: number } | { readonly inline: Buffer }

interface Node {
  readonly header: PageHeader
  readonly page: Buffer
}

export class DbReader {
  readonly meta: Meta
  private readonly fh: FileHandle

  private constructor(fh: FileHandle, meta: Meta) {
    this.fh = fh
    this.meta = meta
  }

  /**
   * Read the meta pages of the database in the first `size` bytes of `fh` and pick the current one (the
   * valid meta with the higher transaction id), as bbolt's Open does.
   */
  static async open(fh: FileHandle, size: number): Promise<DbReader> {
    const first = await readAt(fh, 0, Math.min(size, DEFAULT_PAGE_SIZE))
    let m0: Meta | undefined
    let err: unknown
    try {
      m0 = decodeMeta(first)
    } catch (e) {
      err = e
    }
    const pageSize = m0?.pageSize ?? DEFAULT_PAGE_SIZE
    if (pageSize < MIN_PAGE_SIZE || pageSize > MAX_PAGE_SIZE || (pageSize & (pageSize - 1)) !== 0) {
      throw new BoltError(`bbolt: invalid page size ${pageSize}`)
    }
    let m1: Meta | undefined
    try {
      m1 = decodeMeta(await readAt(fh, pageSize, Math.min(Math.max(0, size - pageSize), pageSize)))
    } catch (e) {
      err ??= e
    }
    const meta = m0 !== undefined && (m1 === undefined || m0.txid >= m1.txid) ? m0 : m1
    if (meta === undefined) throw err instanceof BoltError ? err : new BoltError('bbolt: invalid database')
    if (meta.pageSize !== pageSize) throw new BoltError('bbolt: the meta pages disagree on the page size')
    if (meta.pgid * pageSize > size) throw new BoltError(`bbolt: the file is truncated (${size} bytes, ${meta.pgid} pages of ${pageSize})`)
    if (meta.root < 2 || meta.root >= meta.pgid) throw new BoltError(`bbolt: root page ${meta.root} is out of range`)
    return new DbReader(fh, meta)
  }

  /** The database's size as bbolt reports it (Tx.Size): pages in use times the page size. */
  get dbSize(): number {
    return this.meta.pgid * this.meta.pageSize
  }

  /** The top-level buckets: name to where their entries are. */
  async buckets(): Promise<Map<string, BucketRef>> {
    const out = new Map<string, BucketRef>()
    for await (const leaf of this.walk({ root: this.meta.root })) {
      for (const e of leaf) {
        if ((e.flags & BUCKET_LEAF_FLAG) === 0) throw new BoltError('bbolt: the root bucket holds a key that is not a bucket')
        out.set(Buffer.from(e.key).toString('latin1'), bucketRef(e.value))
      }
    }
    return out
  }

  /**
   * A bucket's entries in key order, one leaf page at a time; each element's key and value are views of
   * a page buffer of its own (not reused). Nested buckets come as elements with BUCKET_LEAF_FLAG.
   */
  async *walk(ref: BucketRef): AsyncGenerator<LeafElement[]> {
    const last: { key: Uint8Array | undefined } = { key: undefined }
    if ('inline' in ref) {
      const h = readPageHeader(ref.inline)
      if ((h.flags & LEAF_PAGE_FLAG) === 0) throw new BoltError('bbolt: an inline bucket is not a leaf page')
      const elems = leafElements(ref.inline, h)
      checkOrder(elems.map((e) => e.key), last)
      yield elems
      return
    }
    yield* this.walkPage(ref.root, 0, last)
  }

  private async *walkPage(pgid: number, depth: number, last: { key: Uint8Array | undefined }): AsyncGenerator<LeafElement[]> {
    if (depth > MAX_DEPTH) throw new BoltError('bbolt: the tree is too deep (a page cycle?)')
    const { header, page } = await this.node(pgid)
    if ((header.flags & LEAF_PAGE_FLAG) !== 0) {
      if (header.count === 0 && depth > 0) throw new BoltError(`bbolt: page ${pgid}: an empty leaf below a branch`)
      const elems = leafElements(page, header)
      checkOrder(elems.map((e) => e.key), last)
      yield elems
      return
    }
    if ((header.flags & BRANCH_PAGE_FLAG) === 0) throw new BoltError(`bbolt: page ${pgid}: not a branch or leaf page (flags ${header.flags})`)
    if (header.count === 0) throw new BoltError(`bbolt: page ${pgid}: an empty branch page`)
    for (const child of branchElements(page, header)) yield* this.walkPage(child.pgid, depth + 1, last)
  }

  private async node(pgid: number): Promise<Node> {
    const ps = this.meta.pageSize
    if (pgid < 2 || pgid >= this.meta.pgid) throw new BoltError(`bbolt: page ${pgid} is out of range (${this.meta.pgid} pages)`)
    let page = await readAt(this.fh, pgid * ps, ps)
    const header = readPageHeader(page)
    if (header.id !== pgid) throw new BoltError(`bbolt: page ${pgid} says it is page ${header.id}`)
    if (header.overflow > 0) {
      if (pgid + header.overflow >= this.meta.pgid) throw new BoltError(`bbolt: page ${pgid} overflows past the end`)
      page = await readAt(this.fh, pgid * ps, (header.overflow + 1) * ps)
    }
    return { header, page }
  }
}

/** A bucket value's reference: its own root page, or the page inline after the 16-byte header. */
export function bucketRef(value: Uint8Array): BucketRef {
  if (value.length < BUCKET_HEADER_SIZE) throw new BoltError('bbolt: a bucket value is too short')
  const b = Buffer.from(value.buffer, value.byteOffset, value.byteLength)
  const root = readU64(b, 0, 'bucket root')
  if (root !== 0) return { root }
  if (b.length < BUCKET_HEADER_SIZE + PAGE_HEADER_SIZE) throw new BoltError('bbolt: an inline bucket is too short')
  return { inline: b.subarray(BUCKET_HEADER_SIZE) }
}

function checkOrder(keys: readonly Uint8Array[], last: { key: Uint8Array | undefined }): void {
  for (const k of keys) {
    if (last.key !== undefined && compareBytes(last.key, k) >= 0) throw new BoltError('bbolt: keys out of order (a damaged tree)')
    last.key = k
  }
}

async function readAt(fh: FileHandle, pos: number, n: number): Promise<Buffer> {
  const b = Buffer.alloc(n)
  let off = 0
  while (off < n) {
    const { bytesRead } = await fh.read(b, off, n - off, pos + off)
    if (bytesRead === 0) throw new BoltError(`bbolt: the file ends at byte ${pos + off}, inside a page`)
    off += bytesRead
  }
  return b
}
