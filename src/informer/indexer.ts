// The informer's local cache: decoded objects by key, with named indexes (client-go's thread-safe store
// and Indexer). Index values are computed from the object each time it is stored or removed, so index
// functions must be pure.

/** One cached object and the revisions of the key-value it was decoded from. */
export interface CacheEntry<T> {
  readonly key: string
  readonly object: T
  readonly modRevision: number
  readonly createRevision: number
  readonly version: number
}

/** Values under which an object is indexed (client-go's IndexFunc); an empty array: not in the index. */
export type IndexFunc<T> = (object: T, key: string) => readonly string[]

/** The read side of the cache, as handlers and controllers see it. */
export interface Indexer<T> {
  /** The revision the cache reflects: every change up to it is applied. 0 before the first list. */
  readonly revision: number
  readonly size: number
  get(key: string): T | undefined
  getEntry(key: string): CacheEntry<T> | undefined
  has(key: string): boolean
  list(): T[]
  listKeys(): string[]
  entries(): IterableIterator<CacheEntry<T>>
  /** Objects whose index function `name` returned `value`. Throws a TypeError for an unknown index. */
  byIndex(name: string, value: string): T[]
  /** Keys of those objects. */
  indexKeys(name: string, value: string): string[]
  /** Every value index `name` holds. */
  listIndexValues(name: string): string[]
  /** The names of the indexes. */
  indexNames(): string[]
}

/** The cache itself; only the informer writes to it. */
export class CacheIndexer<T> implements Indexer<T> {
  revision = 0
  private readonly items = new Map<string, CacheEntry<T>>()
  private readonly indexers: ReadonlyMap<string, IndexFunc<T>>
  private readonly indices = new Map<string, Map<string, Set<string>>>()

  private readonly onIndexError: (err: unknown, key: string) => void

  /** `onIndexError`: an index function threw; the object is then left out of that index. */
  constructor(indexers: Readonly<Record<string, IndexFunc<T>>> = {}, onIndexError: (err: unknown, key: string) => void = () => undefined) {
    this.onIndexError = onIndexError
    if (typeof indexers !== 'object' || indexers === null) throw new TypeError('indexers must be an object of index functions')
    for (const [name, fn] of Object.entries(indexers)) {
      if (typeof fn !== 'function') throw new TypeError(`indexers.${name} must be a function`)
      this.indices.set(name, new Map())
    }
    this.indexers = new Map(Object.entries(indexers))
  }

  get size(): number {
    return this.items.size
  }

  get(key: string): T | undefined {
    return this.items.get(key)?.object
  }

  getEntry(key: string): CacheEntry<T> | undefined {
    return this.items.get(key)
  }

  has(key: string): boolean {
    return this.items.has(key)
  }

  list(): T[] {
    return Array.from(this.items.values(), (e) => e.object)
  }

  listKeys(): string[] {
    return [...this.items.keys()]
  }

  entries(): IterableIterator<CacheEntry<T>> {
    return this.items.values()
  }

  byIndex(name: string, value: string): T[] {
    return this.indexKeys(name, value).map((k) => (this.items.get(k) as CacheEntry<T>).object)
  }

  indexKeys(name: string, value: string): string[] {
    return [...(this.index(name).get(value) ?? [])]
  }

  listIndexValues(name: string): string[] {
    return [...this.index(name).keys()]
  }

  indexNames(): string[] {
    return [...this.indexers.keys()]
  }

  /** Store `e` (replacing the key's entry); returns the entry it replaced. */
  set(e: CacheEntry<T>): CacheEntry<T> | undefined {
    const old = this.items.get(e.key)
    this.items.set(e.key, e)
    if (this.indexers.size > 0) {
      if (old !== undefined) this.unindex(old)
      this.addToIndex(e)
    }
    return old
  }

  /** Remove a key; returns its entry. */
  delete(key: string): CacheEntry<T> | undefined {
    const old = this.items.get(key)
    if (old === undefined) return undefined
    this.items.delete(key)
    if (this.indexers.size > 0) this.unindex(old)
    return old
  }

  private index(name: string): Map<string, Set<string>> {
    const idx = this.indices.get(name)
    if (idx === undefined) throw new TypeError(`no index named ${JSON.stringify(name)}`)
    return idx
  }

  private addToIndex(e: CacheEntry<T>): void {
    for (const [name, fn] of this.indexers) {
      const idx = this.indices.get(name) as Map<string, Set<string>>
      for (const v of this.values(fn, e)) {
        let keys = idx.get(v)
        if (keys === undefined) idx.set(v, (keys = new Set()))
        keys.add(e.key)
      }
    }
  }

  private values(fn: IndexFunc<T>, e: CacheEntry<T>): readonly string[] {
    try {
      const vs: unknown = fn(e.object, e.key)
      if (!Array.isArray(vs) || vs.some((v) => typeof v !== 'string')) throw new TypeError(`index function must return an array of strings for ${e.key}`)
      return vs as string[]
    } catch (err) {
      this.onIndexError(err, e.key)
      return []
    }
  }

  private unindex(e: CacheEntry<T>): void {
    for (const [name, fn] of this.indexers) {
      const idx = this.indices.get(name) as Map<string, Set<string>>
      for (const v of this.values(fn, e)) {
        const keys = idx.get(v)
        if (keys === undefined) continue
        keys.delete(e.key)
        if (keys.size === 0) idx.delete(v)
      }
    }
  }
}
