// Bundles what the package ships: its entry point (build/dist/index.js) and its CLI (build/dist/etcdlite.js),
// from tsc's output under build/src, with esbuild. Run by `npm run build` after tsc.
//
// Why bundle: Node's ESM loader resolves, opens, compiles and links every module on its own. For
// etcdlite's ~170 small modules that costs more than their code: about 160 ms of an `import('etcdlite')`
// from tsc's output against about 45 ms bundled, and a fifth of a CLI start. One module per entry point,
// with a chunk for each module etcdlite imports lazily (a listener, the gateway, JWT tokens...), keeps the
// laziness and drops the per-module cost.
//
// Packages stay external: they are resolved from node_modules as before, so their versions are the
// lockfile's and the CommonJS ones load as CommonJS. tsc's source maps are carried through, so
// `node --enable-source-maps` maps stack traces to the TypeScript source.
//
//   node build/scripts/bundle.js
import { chmodSync, rmSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** Where the bundles go, relative to the repository; package.json's main, exports and bin point here. */
const DIST = 'build/dist'

rmSync(`${ROOT}${DIST}`, { recursive: true, force: true })
// One build per entry point: built together, the modules both reach would sit in chunks shared by the two,
// and an import('etcdlite') would load about 30 files where its own build loads about 17 (some 20 ms).
for (const [name, entry] of [['index', 'build/src/index.js'], ['etcdlite', 'build/src/bin/etcdlite.js']] as const) {
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: { [name]: entry },
    outdir: DIST,
    chunkNames: `chunks/${name}/[name]-[hash]`,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    // tsc's output is already ES2022 for Node 20; esbuild only joins it. Names stay, for stack traces and logs.
    minify: false,
    logLevel: 'warning',
  })
  if (result.errors.length > 0 || result.warnings.length > 0) process.exit(1)
}
// esbuild keeps the entry's #! line; npm makes a bin executable on install, a checkout needs it here.
chmodSync(`${ROOT}${DIST}/etcdlite.js`, 0o755)
