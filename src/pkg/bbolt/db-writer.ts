// Writing a whole bbolt database file as a stream of pages, laid out as:
//   page 0, 1   meta pages (the same state; meta 0 has the higher transaction id, as bbolt's Tx.WriteTo)
//   page 2      the freelist, empty: every page is in use
//   page 3...   each bucket's tree, bucket after bucket, leaves before the branches above them
//   last pages  the root tree: bucket names to bucket headers
// The meta pages come first but name the root page and the page count, known only at the end: so the file is
// built twice from the same entries, first as a dry run that only counts pages (DbWriter with no layout),
// then for real with the layout the dry run found. Both runs must see the same entries (a consistent
// snapshot); the second run checks that it ended where the first did.
import { compareBytes } from '../bytes.js'
import { encodeMeta, type Meta } from './meta.js'
import {
  BoltError, BUCKET_HEADER_SIZE, BUCKET_LEAF_FLAG, encodeNode, FREELIST_PAGE_FLAG, LEAF_ELEMENT_SIZE, PAGE_HEADER_SIZE, writePageHeader,
} from './page.js'
import { checkEntry, PageOut, TreeWriter, type Item } from './tree-writer.js'

/** The first page after the two meta pages and the freelist. */
const FIRST_DATA_PAGE = 3

/**
 * One bucket being written. Entries are held until they pass a quarter of a page: a bucket that stays
 * that small is stored inline in its parent, as bbolt stores small buckets; a bigger one gets its own tree.
 */
export class BucketWriter {
  private readonly out: PageOut
  private pending: Item[] = []
  private pendingBytes = PAGE_HEADER_SIZE
  private tree: TreeWriter | undefined

  constructor(out: PageOut) {
    this.out = out
  }

  put(key: Uint8Array, value: Uint8Array): void {
    if (this.tree !== undefined) {
      this.tree.add(key, value)
      return
    }
    checkEntry(key, value)
    const last = this.pending[this.pending.length - 1]
    if (last !== undefined && compareBytes(last.key, key) >= 0) throw new BoltError('bbolt: keys out of order')
    this.pending.push({ key, value })
    this.pendingBytes += LEAF_ELEMENT_SIZE + key.length + value.length
    if (this.pendingBytes > this.out.pageSize / 4) {
      this.tree = new TreeWriter(this.out)
      for (const it of this.pending) this.tree.add(it.key, it.value ?? new Uint8Array(0))
      this.pending = []
    }
  }

  /** Finish the bucket: the value its parent stores under its name. */
  finish(): Uint8Array {
    const header = Buffer.alloc(BUCKET_HEADER_SIZE)
    if (this.tree !== undefined) {
      header.writeBigUInt64LE(BigInt(this.tree.finish()), 0)
      return header
    }
    return Buffer.concat([header, encodeNode(0, true, this.pending, 0)])
  }
}

/** The page layout a dry run found: what the meta pages say. */
export interface Layout {
  readonly root: number
  readonly pgid: number
}

export class DbWriter {
  readonly pageSize: number
  private readonly out: PageOut
  private readonly layout: Layout | undefined
  private readonly buckets = new Map<string, Uint8Array>()
  private open: { name: string; w: BucketWriter } | undefined
  private done: Layout | undefined

  /**
   * With `layout` (from a dry run over the same entries), pages go to `sink` in file order starting with
   * the meta pages; without it, nothing is written and finish() tells the layout.
   */
  constructor(pageSize: number, sink?: (pages: Buffer) => void, layout?: Layout) {
    if (layout !== undefined && sink === undefined) throw new BoltError('bbolt: a layout needs somewhere to write')
    this.pageSize = pageSize
    this.layout = layout
    this.out = new PageOut(pageSize, 0, layout === undefined ? undefined : sink)
    const { root, pgid } = layout ?? { root: 0, pgid: 0 }
    // Meta 0 carries the newer transaction id, meta 1 the one before, as Tx.WriteTo writes them.
    this.out.raw(encodeMeta(0, this.meta(root, pgid, 2n), pageSize))
    this.out.raw(encodeMeta(1, this.meta(root, pgid, 1n), pageSize))
    const freelist = Buffer.alloc(pageSize)
    writePageHeader(freelist, 0, { id: 2, flags: FREELIST_PAGE_FLAG, count: 0, overflow: 0 })
    this.out.raw(freelist)
    if (this.out.next !== FIRST_DATA_PAGE) throw new BoltError('bbolt: unexpected header layout')
  }

  private meta(root: number, pgid: number, txid: bigint): Meta {
    return { pageSize: this.pageSize, flags: 0, root, rootSequence: 0n, freelist: 2, pgid, txid }
  }

  /** Start writing top-level bucket `name` (the previous one is finished first). */
  bucket(name: string): BucketWriter {
    this.closeBucket()
    if (this.buckets.has(name) || name === '') throw new BoltError(`bbolt: bucket ${JSON.stringify(name)} written twice or unnamed`)
    const w = new BucketWriter(this.out)
    this.open = { name, w }
    return w
  }

  private closeBucket(): void {
    if (this.open === undefined) return
    this.buckets.set(this.open.name, this.open.w.finish())
    this.open = undefined
  }

  /** Write the root tree; returns the layout (which, in a real run, must be the dry run's). */
  finish(): Layout {
    if (this.done !== undefined) return this.done
    this.closeBucket()
    const root = new TreeWriter(this.out)
    const names = [...this.buckets.keys()].map((n) => Buffer.from(n, 'utf8')).sort(compareBytes)
    for (const n of names) root.add(n, this.buckets.get(n.toString('utf8')) as Uint8Array, BUCKET_LEAF_FLAG)
    const done = { root: root.finish(), pgid: this.out.next }
    if (this.layout !== undefined && (this.layout.root !== done.root || this.layout.pgid !== done.pgid)) {
      throw new BoltError('bbolt: the entries changed between the two passes')
    }
    this.done = done
    return done
  }

  /** Bytes of the whole file (known after a dry run's finish()). */
  static fileSize(pageSize: number, layout: Layout): number {
    return pageSize * layout.pgid
  }
}
