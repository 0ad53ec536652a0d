// etcdlite's own package directory: the nearest one above this module that holds a package.json. Found by
// walking up rather than by a fixed relative path because the same module runs from tsc's output
// (build/src/pkg/) and from the bundles (build/dist/ and build/dist/chunks/<entry>/), at different depths.
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

let root: string | undefined

/** The directory of etcdlite's package.json (the repository, or node_modules/etcdlite when installed). */
export function packageRoot(): string {
  if (root !== undefined) return root
  let dir = dirname(fileURLToPath(import.meta.url))
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir)
    if (up === dir) throw new Error(`etcdlite: no package.json above ${fileURLToPath(import.meta.url)}`)
    dir = up
  }
  root = dir
  return root
}
