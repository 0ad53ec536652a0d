// Matching a written key against range watchers: the interval tree's stab (every range that holds the
// key) over 10,000 prefix ranges, and the insert and delete of a watcher's range.
import { prefixEnd } from '../../src/pkg/bytes.js'
import { IntervalTree } from '../../src/pkg/interval-tree.js'
import { seeded, utf8, type MicroSuite } from './suite.js'

const RANGES = 10_000

export const intervalTree: MicroSuite = {
  name: 'interval-tree',
  tasks: () => {
    const rnd = seeded(7)
    const tree = new IntervalTree<number>()
    // Prefixes of 1 to 3 path segments, as watchers of a directory-like key space have.
    const prefix = (): string => Array.from({ length: 1 + rnd(3) }, () => `d${rnd(40)}/`).join('')
    for (let i = 0; i < RANGES; i++) {
      const p = utf8(prefix())
      tree.insert(p, prefixEnd(p), i)
    }
    const points = Array.from({ length: 1024 }, () => utf8(`${prefix()}key-${rnd(1000)}`))
    const fresh = Array.from({ length: 1024 }, (_, i) => utf8(`new/${i}/`))
    let n = 0
    let hits = 0
    const count = (): void => void hits++
    return [
      { name: `stab a key, ${RANGES.toLocaleString('en-US')} prefix ranges`, batch: 100, fn: () => { for (let i = 0; i < 100; i++) tree.stab(points[n++ & 1023] as Uint8Array, count) } },
      {
        name: `insert + delete a range, ${RANGES.toLocaleString('en-US')} ranges`, batch: 100, fn: () => {
          for (let i = 0; i < 100; i++) {
            const p = fresh[n++ & 1023] as Uint8Array
            tree.insert(p, prefixEnd(p), -1)
            tree.delete(p, prefixEnd(p), -1)
          }
        },
      },
    ]
  },
}
