// Regenerate bench/RESULTS.md and bench/results/*.svg from a saved run:
//   npm run bench 2>/dev/null | tee results.jsonl
//   node build/bench/report.js results.jsonl [--out DIR] [--meta meta.json]
// --out defaults to where the run itself writes: bench/, or bench/unsafe-no-fsync/ for a --unsafe-no-fsync run.
// Lines that are not JSON objects (the runner's tables) are ignored. The run's metadata (command, etcd
// version, durability, machine, date) comes from --meta, else from a `"type":"meta"` line in the file,
// else it is marked unknown (machine and versions then describe this machine, now).
import { readFileSync, statSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { writeReport } from './lib/report.js'
import { reportDirFor } from './lib/report-sections.js'
import { etcdVersionLine, parseJsonLines, parseMeta, type ReportMeta } from './lib/report-meta.js'

const USAGE = 'usage: node build/bench/report.js <results.jsonl> [--out DIR (default: bench, or bench/unsafe-no-fsync for a --unsafe-no-fsync run)] [--meta meta.json]'

function main(argv: readonly string[]): number {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: { out: { type: 'string' }, meta: { type: 'string' }, help: { type: 'boolean', default: false } },
    allowPositionals: true,
    strict: true,
  })
  const file = positionals[0]
  if (values.help || file === undefined || positionals.length > 1) {
    process.stdout.write(`${USAGE}\n`)
    return values.help ? 0 : 2
  }
  const lines = parseJsonLines(readFileSync(file, 'utf8'))
  let meta: ReportMeta | undefined
  if (values.meta !== undefined) {
    meta = parseMeta(JSON.parse(readFileSync(values.meta, 'utf8')))
    if (meta === undefined) throw new Error(`${values.meta}: not a report meta object (needs at least "command")`)
  } else {
    for (const l of lines) if ('type' in l && l.type === 'meta') meta = parseMeta(l) ?? meta
  }
  meta ??= { command: `unknown (regenerated from ${file})`, etcdVersion: etcdVersionLine(), unsafeNoFsync: null, date: statSync(file).mtime.toISOString() }
  for (const p of writeReport(lines, meta, values.out ?? reportDirFor(meta.unsafeNoFsync === true))) process.stderr.write(`report: wrote ${p}\n`)
  return 0
}

try {
  process.exitCode = main(process.argv.slice(2))
} catch (err: unknown) {
  process.stderr.write(`report: ${err instanceof Error ? err.message : String(err)}\n${USAGE}\n`)
  process.exitCode = 1
}
