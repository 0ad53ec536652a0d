// The import layering of src/ (ARCHITECTURE.md's "Layout" paragraph), checked from the source text: each folder imports only
// from folders to its left, grpc never reaches into mvcc or backend, and there are no import cycles.
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
const ORDER: ReadonlyArray<string | readonly string[]> = ['pkg', 'backend', 'lease', 'auth', 'mvcc', 'etcdserver', 'grpc', 'gateway', ['embed', 'client'], 'workqueue', 'informer', 'controller', 'etcdmain', 'bin', 'index.ts']
const rank = (layer: string): number => ORDER.findIndex((l) => l === layer || (Array.isArray(l) && l.includes(layer)))
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

/** Relative imports of a file; `runtimeOnly` leaves out `import type`, which erases at compile time. */
function imports(file: string, runtimeOnly = false): string[] {
  const text = readFileSync(file, 'utf8')
  const out: string[] = []
  for (const m of text.matchAll(/^(import type|import|export type|export)\s[^'"]*?from\s+'(\.[^']+)'/gm)) {
    if (runtimeOnly && (m[1] as string).endsWith('type')) continue
    out.push(normalize(join(dirname(file), (m[2] as string).replace(/\.js$/, '.ts'))))
  }
  return out
}

it('src/ imports only leftwards, and grpc never reaches below etcdserver', () => {
  const problems: string[] = []
  for (const file of files(SRC)) {
    const from = layerOf(file)
    for (const target of imports(file)) {
      if (target.includes('/generated/')) continue
      const to = layerOf(target)
      if (to === from) continue
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
