// Mirrors Go 1.19's sort.Sort (src/sort/zsortinterface.go: pattern-defeating quicksort), the unstable sort
// etcd 3.4.23 (built with go1.19.8) runs over a role's permissions in RoleGrantPermission. Ported step for
// step so that permissions with EQUAL keys (the sort compares keys only) end up in the same order as in
// etcd: that order is what RoleGet returns, what RoleGrantPermission's "same key and range end" lookup sees,
// and the order the permission cache inserts intervals in.

/** Go's sortedHint. */
type Hint = 'unknown' | 'increasing' | 'decreasing'

const MASK64 = (1n << 64n) - 1n

/** Go's `xorshift` (Go 1.19 constants 13, 17, 5), seeded with the slice length in breakPatterns. */
class XorShift {
  private s: bigint
  constructor(seed: number) {
    this.s = BigInt(seed)
  }
  next(): bigint {
    this.s ^= (this.s << 13n) & MASK64
    this.s ^= this.s >> 17n
    this.s ^= (this.s << 5n) & MASK64
    return this.s
  }
}

/** Go's bits.Len for 0 <= n < 2^31. */
const bitsLen = (n: number): number => 32 - Math.clz32(n)

/**
 * Sort `data` in place exactly as Go 1.19's `sort.Sort` would with `Less(i, j) = less(data[i], data[j])`
 * and `Swap` exchanging two elements: not stable, but deterministic, so equal elements land where Go puts
 * them.
 */
export function goSort<T>(data: T[], less: (a: T, b: T) => boolean): void {
  const n = data.length
  if (n <= 1) return
  new GoSorter(data, less).pdqsort(0, n, bitsLen(n))
}

class GoSorter<T> {
  constructor(
    private readonly data: T[],
    private readonly lessFn: (a: T, b: T) => boolean,
  ) {}

  private less(i: number, j: number): boolean {
    return this.lessFn(this.data[i] as T, this.data[j] as T)
  }

  private swap(i: number, j: number): void {
    const t = this.data[i] as T
    this.data[i] = this.data[j] as T
    this.data[j] = t
  }

  private insertionSort(a: number, b: number): void {
    for (let i = a + 1; i < b; i++) {
      for (let j = i; j > a && this.less(j, j - 1); j--) this.swap(j, j - 1)
    }
  }

  private siftDown(lo: number, hi: number, first: number): void {
    let root = lo
    for (;;) {
      let child = 2 * root + 1
      if (child >= hi) return
      if (child + 1 < hi && this.less(first + child, first + child + 1)) child++
      if (!this.less(first + root, first + child)) return
      this.swap(first + root, first + child)
      root = child
    }
  }

  private heapSort(a: number, b: number): void {
    const first = a
    const hi = b - a
    for (let i = Math.trunc((hi - 1) / 2); i >= 0; i--) this.siftDown(i, hi, first)
    for (let i = hi - 1; i >= 0; i--) {
      this.swap(first, first + i)
      this.siftDown(0, i, first)
    }
  }

  pdqsort(a: number, b: number, limit: number): void {
    const maxInsertion = 12
    let wasBalanced = true
    let wasPartitioned = true
    for (;;) {
      const length = b - a
      if (length <= maxInsertion) {
        this.insertionSort(a, b)
        return
      }
      if (limit === 0) {
        this.heapSort(a, b)
        return
      }
      if (!wasBalanced) {
        this.breakPatterns(a, b)
        limit--
      }
      let [pivot, hint] = this.choosePivot(a, b)
      if (hint === 'decreasing') {
        this.reverseRange(a, b)
        pivot = b - 1 - (pivot - a)
        hint = 'increasing'
      }
      if (wasBalanced && wasPartitioned && hint === 'increasing') {
        if (this.partialInsertionSort(a, b)) return
      }
      if (a > 0 && !this.less(a - 1, pivot)) {
        a = this.partitionEqual(a, b, pivot)
        continue
      }
      const [mid, alreadyPartitioned] = this.partition(a, b, pivot)
      wasPartitioned = alreadyPartitioned
      const leftLen = mid - a
      const rightLen = b - mid
      const balanceThreshold = Math.trunc(length / 8)
      if (leftLen < rightLen) {
        wasBalanced = leftLen >= balanceThreshold
        this.pdqsort(a, mid, limit)
        a = mid + 1
      } else {
        wasBalanced = rightLen >= balanceThreshold
        this.pdqsort(mid + 1, b, limit)
        b = mid
      }
    }
  }

  private partition(a: number, b: number, pivot: number): [number, boolean] {
    this.swap(a, pivot)
    let i = a + 1
    let j = b - 1
    while (i <= j && this.less(i, a)) i++
    while (i <= j && !this.less(j, a)) j--
    if (i > j) {
      this.swap(j, a)
      return [j, true]
    }
    this.swap(i, j)
    i++
    j--
    for (;;) {
      while (i <= j && this.less(i, a)) i++
      while (i <= j && !this.less(j, a)) j--
      if (i > j) break
      this.swap(i, j)
      i++
      j--
    }
    this.swap(j, a)
    return [j, false]
  }

  private partitionEqual(a: number, b: number, pivot: number): number {
    this.swap(a, pivot)
    let i = a + 1
    let j = b - 1
    for (;;) {
      while (i <= j && !this.less(a, i)) i++
      while (i <= j && this.less(a, j)) j--
      if (i > j) break
      this.swap(i, j)
      i++
      j--
    }
    return i
  }

  private partialInsertionSort(a: number, b: number): boolean {
    const maxSteps = 5
    const shortestShifting = 50
    let i = a + 1
    for (let step = 0; step < maxSteps; step++) {
      while (i < b && !this.less(i, i - 1)) i++
      if (i === b) return true
      if (b - a < shortestShifting) return false
      this.swap(i, i - 1)
      // Shift the smaller one to the left (Go's loop runs down to index 1, not to a).
      if (i - a >= 2) {
        for (let j = i - 1; j >= 1; j--) {
          if (!this.less(j, j - 1)) break
          this.swap(j, j - 1)
        }
      }
      // Shift the greater one to the right.
      if (b - i >= 2) {
        for (let j = i + 1; j < b; j++) {
          if (!this.less(j, j - 1)) break
          this.swap(j, j - 1)
        }
      }
    }
    return false
  }

  private breakPatterns(a: number, b: number): void {
    const length = b - a
    if (length < 8) return
    const random = new XorShift(length)
    const modulus = 2 ** bitsLen(length)
    const mask = BigInt(modulus - 1)
    const from = a + Math.trunc(length / 4) * 2 - 1
    for (let idx = from; idx <= from + 2; idx++) {
      let other = Number(random.next() & mask)
      if (other >= length) other -= length
      this.swap(idx, a + other)
    }
  }

  private choosePivot(a: number, b: number): [number, Hint] {
    const shortestNinther = 50
    const maxSwaps = 4 * 3
    const l = b - a
    const swaps = { n: 0 }
    let i = a + Math.trunc(l / 4) * 1
    let j = a + Math.trunc(l / 4) * 2
    let k = a + Math.trunc(l / 4) * 3
    if (l >= 8) {
      if (l >= shortestNinther) {
        i = this.medianAdjacent(i, swaps)
        j = this.medianAdjacent(j, swaps)
        k = this.medianAdjacent(k, swaps)
      }
      j = this.median(i, j, k, swaps)
    }
    if (swaps.n === 0) return [j, 'increasing']
    if (swaps.n === maxSwaps) return [j, 'decreasing']
    return [j, 'unknown']
  }

  private order2(a: number, b: number, swaps: { n: number }): [number, number] {
    if (this.less(b, a)) {
      swaps.n++
      return [b, a]
    }
    return [a, b]
  }

  private median(a: number, b: number, c: number, swaps: { n: number }): number {
    const [a1, b1] = this.order2(a, b, swaps)
    const [b2] = this.order2(b1, c, swaps)
    return this.order2(a1, b2, swaps)[1]
  }

  private medianAdjacent(a: number, swaps: { n: number }): number {
    return this.median(a - 1, a, a + 1, swaps)
  }

  private reverseRange(a: number, b: number): void {
    let i = a
    let j = b - 1
    while (i < j) {
      this.swap(i, j)
      i++
      j--
    }
  }
}
