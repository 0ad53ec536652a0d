// The import layering of src/ (ARCHITECTURE.md, "Layers"), checked from the source text: each folder imports only
// from folders to its left, grpc never reaches into mvcc or backend, wire takes from above it only the domain types it
// decodes into, and there are no import cycles.
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const SRC = fileURLToPath(new URL('../../../src', import.meta.url))
/**
 * Layers from the bottom up. embed (the in-process API) and client (the same API over gRPC, connect()) are
 * one layer: they share the EtcdClient interface and the input checks, and the cycle check below still
 * keeps them from needing each other at run time.
 */
const ORDER: ReadonlyArray<string | readonly string[]> = ['pkg', 'wire', 'backend', 'lease', 'auth', 'mvcc', 'etcdserver', 'grpc', 'gateway', ['embed', 'client'], 'workqueue', 'informer', 'controller', 'etcdmain', 'bin', 'index.ts']
const rank = (layer: string): number => ORDER.findIndex((l) => l === layer || (Array.isArray(l) && l.includes(layer)))
/**
 * Type-only imports allowed beyond "only to the left": wire (etcd's messages on the wire) decodes into and
 * encodes from the domain requests and responses, so it names their types; they erase at compile time, so
 * at run time wire still needs nothing but pkg.
 */
const TYPES_FROM: Readonly<Record<string, readonly string[]>> = {
  wire: ['etcdserver/types/', 'auth/permission.ts'],
}
/** Extra bans beyond "only to the left". */
const FORBIDDEN: Readonly<Record<string, readonly string[]>> = {
  lease: ['auth', 'mvcc'],
  auth: ['lease', 'mvcc'],
  grpc: ['mvcc', 'backend', 'lease', 'auth'],
}

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f)
    if (statSync(p).isDirectory()) return f === 'generated' ? [] : files(p)
    return p.endsWith('.ts') ? [p] : []
  })
}

const layerOf = (file: string): string => relative(SRC, file).split('/')[0] as string

interface Import {
  readonly target: string
  /** `import type` / `export type`: erased at compile time. */
  readonly typeOnly: boolean
}

/** Relative imports of a file. */
function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8')
  const out: Import[] = []
  for (const m of text.matchAll(/^(import type|import|export type|export)\s[^'"]*?from\s+'(\.[^']+)'/gm)) {
    out.push({ target: normalize(join(dirname(file), (m[2] as string).replace(/\.js$/, '.ts'))), typeOnly: (m[1] as string).endsWith('type') })
  }
  return out
}

/** Relative imports of a file; `runtimeOnly` leaves out `import type`, which erases at compile time. */
const imports = (file: string, runtimeOnly = false): string[] =>
  importsOf(file).filter((i) => !runtimeOnly || !i.typeOnly).map((i) => i.target)

/** Whether `from`'s layer may name types of `target` though it lies above. */
const typesAllowed = (from: string, target: string): boolean =>
  TYPES_FROM[from]?.some((prefix) => relative(SRC, target).startsWith(prefix)) === true

it('src/ imports only leftwards, and grpc never reaches below etcdserver', () => {
  const problems: string[] = []
  for (const file of files(SRC)) {
    const from = layerOf(file)
    for (const { target, typeOnly } of importsOf(file)) {
      if (target.includes('/generated/')) continue
      const to = layerOf(target)
      if (to === from) continue
      if (typeOnly && typesAllowed(from, target)) continue
      if (rank(from) < 0 || rank(to) > rank(from) || FORBIDDEN[from]?.includes(to)) {
        problems.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`)
      }
    }
  }
  assert.deepEqual(problems, [])
})

it('src/ has no runtime import cycles', () => {
  const graph = new Map(files(SRC).map((f) => [f, imports(f, true).filter((t) => !t.includes('/generated/'))]))
  const state = new Map<string, 'visiting' | 'done'>()
  const cycles: string[] = []
  const visit = (f: string, path: string[]): void => {
    if (state.get(f) === 'done') return
    if (state.get(f) === 'visiting') {
      cycles.push([...path.slice(path.indexOf(f)), f].map((p) => relative(SRC, p)).join(' -> '))
      return
    }
    state.set(f, 'visiting')
    for (const t of graph.get(f) ?? []) visit(t, [...path, f])
    state.set(f, 'done')
  }
  for (const f of graph.keys()) visit(f, [])
  assert.deepEqual(cycles, [])
})
