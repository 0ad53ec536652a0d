// Summarize a V8 .cpuprofile (from node --cpu-prof, e.g. via `npm run bench -- --etcdlite-node-args=...`):
// the functions with the most self time, and the same grouped by package/file. Idle time is left out of
// the percentages.
//
//   node build/bench/prof-top.js prof/CPU.*.cpuprofile [--top 30] [--last 5]
//
// --last N keeps only the samples of the profile's last N seconds (a bench measurement ends shortly
// before the server is stopped, so this cuts out start-up and setup such as catch-up's history writes).
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'

interface CallFrame {
  readonly functionName: string
  readonly url: string
  readonly lineNumber: number
}

interface ProfileNode {
  readonly id: number
  readonly callFrame: CallFrame
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[]
  readonly samples: readonly number[]
  readonly timeDeltas: readonly number[]
  readonly endTime: number
  readonly startTime: number
}

function load(file: string): CpuProfile {
  const p = JSON.parse(readFileSync(file, 'utf8')) as unknown
  if (typeof p !== 'object' || p === null || !('nodes' in p) || !('samples' in p) || !('timeDeltas' in p)) throw new Error(`${file}: not a .cpuprofile`)
  return p as CpuProfile
}

/** A short place name: the path below node_modules or the project's build/ dir, or a node: builtin. */
function place(url: string): string {
  if (url === '') return '(native)'
  const nm = url.lastIndexOf('/node_modules/')
  if (nm >= 0) return url.slice(nm + '/node_modules/'.length)
  const b = url.indexOf('/build/')
  if (b >= 0) return url.slice(b + '/build/'.length)
  return url.replace(/^file:\/\//, '')
}

/** The package (or project dir) a place belongs to. */
function group(p: string): string {
  if (p.startsWith('node:')) return p
  if (p.startsWith('@')) return p.split('/').slice(0, 2).join('/')
  const parts = p.split('/')
  return parts[0] === 'src' ? parts.slice(0, 2).join('/') : (parts[0] ?? p)
}

function main(): void {
  const { values, positionals } = parseArgs({
    options: { top: { type: 'string', default: '30' }, last: { type: 'string' } }, allowPositionals: true, strict: true,
  })
  const top = Number(values.top)
  const lastUs = values.last === undefined ? Number.POSITIVE_INFINITY : Number(values.last) * 1e6
  const self = new Map<string, number>()
  const byGroup = new Map<string, number>()
  let total = 0
  let idle = 0
  for (const file of positionals) {
    const prof = load(file)
    const byId = new Map<number, ProfileNode>()
    for (const n of prof.nodes) byId.set(n.id, n)
    const from = prof.endTime - lastUs
    let t = prof.startTime
    for (let i = 0; i < prof.samples.length; i++) {
      const n = byId.get(prof.samples[i] ?? -1)
      const dt = prof.timeDeltas[i] ?? 0
      t += dt
      if (n === undefined || t < from) continue
      const f = n.callFrame
      if (f.functionName === '(idle)') {
        idle += dt
        continue
      }
      total += dt
      const p = place(f.url)
      const key = `${f.functionName === '' ? '(anonymous)' : f.functionName}  ${p}${f.url === '' ? '' : `:${f.lineNumber + 1}`}`
      self.set(key, (self.get(key) ?? 0) + dt)
      const g = f.url === '' ? f.functionName : group(p)
      byGroup.set(g, (byGroup.get(g) ?? 0) + dt)
    }
  }
  const out = process.stdout
  out.write(`busy ${(total / 1e6).toFixed(2)} s, idle ${(idle / 1e6).toFixed(2)} s (percentages of busy time)\n\nself time by function:\n`)
  for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) out.write(`${((v / total) * 100).toFixed(1).padStart(5)}%  ${k}\n`)
  out.write('\nself time by package / source dir:\n')
  for (const [k, v] of [...byGroup].sort((a, b) => b[1] - a[1]).slice(0, top)) out.write(`${((v / total) * 100).toFixed(1).padStart(5)}%  ${k}\n`)
}

main()
