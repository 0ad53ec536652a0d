// etcd's v2store ttlKeyHeap: nodes with a TTL, soonest expiry on top, each node's position tracked so it can
// be updated or removed. The sift steps are Go's container/heap, so nodes expiring at the same instant come
// off in the order etcd's heap gives them (each expiry takes the next store index).

/** What the heap needs of a node. */
export interface HeapNode {
  /** Unix nanoseconds; only nodes with an expiry are pushed. */
  expireTime: bigint | undefined
}

export class TtlKeyHeap<N extends HeapNode> {
  private readonly array: N[] = []
  private readonly keyMap = new Map<N, number>()

  get length(): number {
    return this.array.length
  }

  top(): N | undefined {
    return this.array[0]
  }

  push(n: N): void {
    this.keyMap.set(n, this.array.length)
    this.array.push(n)
    this.up(this.array.length - 1)
  }

  pop(): N | undefined {
    const n = this.array.length - 1
    if (n < 0) return undefined
    this.swap(0, n)
    this.down(0, n)
    return this.removeLast()
  }

  update(x: N): void {
    if (this.keyMap.has(x)) {
      this.remove(x)
      this.push(x)
    }
  }

  remove(x: N): void {
    const i = this.keyMap.get(x)
    if (i === undefined) return
    const n = this.array.length - 1
    if (n !== i) {
      this.swap(i, n)
      if (!this.down(i, n)) this.up(i)
    }
    this.removeLast()
  }

  private removeLast(): N | undefined {
    const x = this.array.pop()
    if (x !== undefined) this.keyMap.delete(x)
    return x
  }

  private at(i: number): N {
    return this.array[i] as N
  }

  private less(i: number, j: number): boolean {
    return (this.at(i).expireTime ?? 0n) < (this.at(j).expireTime ?? 0n)
  }

  private swap(i: number, j: number): void {
    const a = this.at(i)
    const b = this.at(j)
    this.array[i] = b
    this.array[j] = a
    this.keyMap.set(b, i)
    this.keyMap.set(a, j)
  }

  private up(j0: number): void {
    let j = j0
    for (;;) {
      const i = Math.floor((j - 1) / 2)
      if (i === j || j <= 0 || !this.less(j, i)) break
      this.swap(i, j)
      j = i
    }
  }

  private down(i0: number, n: number): boolean {
    let i = i0
    for (;;) {
      const j1 = 2 * i + 1
      if (j1 >= n) break
      let j = j1
      const j2 = j1 + 1
      if (j2 < n && this.less(j2, j1)) j = j2
      if (!this.less(j, i)) break
      this.swap(i, j)
      i = j
    }
    return i > i0
  }
}
