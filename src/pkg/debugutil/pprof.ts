// etcd's --enable-pprof (and --log-level=debug): Go's net/http/pprof under /debug/pprof/ on the client URLs,
// answering `go tool pprof` with this Node process's profiles in pprof's own format, made by
// @datadog/pprof (a maintained binding to V8's sampling profilers that writes profile.proto):
//
// - profile?seconds=N (default 30): V8's sampling CPU profile of the JavaScript thread;
// - heap and allocs: V8's sampling heap profile of live objects (sampled every 512 KiB, Go's
//   MemProfileRate, from the first request on; `gc` is ignored, as Node exposes no GC to call);
// - cmdline: the command line, NUL-separated;
// - symbol: "num_symbols: 0", there being no Go program counters to name;
// - goroutine, threadcreate, block, mutex and trace are Go runtime profiles a Node process does not have:
//   they answer as Go answers an unknown profile.
//
// The profiler module loads on the first request (it is a native addon, and a plain start must not pay
// for it).
import type { IncomingMessage, ServerResponse } from 'node:http'
import type * as PprofModule from '@datadog/pprof'

import { HTTP_PREFIX_PPROF } from './pprof-path.js'
import { errorMessage } from '../as-error.js'

type Pprof = typeof PprofModule

/** Go's runtime.MemProfileRate: one heap sample per this many bytes allocated. */
const MEM_PROFILE_RATE = 512 * 1024
/** Frames kept per heap sample (Go keeps 32; V8 allows more). */
const HEAP_STACK_DEPTH = 64

let loaded: Promise<Pprof> | undefined
/** A CPU profile is being taken: a second one is refused, as Go refuses it. */
let cpuBusy = false

function load(): Promise<Pprof> {
  loaded ??= import('@datadog/pprof').then((m) => {
    m.heap.start(MEM_PROFILE_RATE, HEAP_STACK_DEPTH)
    return m
  })
  return loaded
}

const DESCRIPTIONS: ReadonlyArray<readonly [string, string]> = [
  ['allocs', 'A sampling of all past memory allocations'],
  ['cmdline', 'The command line invocation of the current program'],
  ['heap', 'A sampling of memory allocations of live objects. You can specify the gc GET parameter to run GC before taking the heap sample.'],
  ['profile', 'CPU profile. You can specify the duration in the seconds GET parameter. After you get the profile file, use the go tool pprof command to investigate the profile.'],
]

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** Go's pprof.Index page, listing the profiles served here. */
function index(res: ServerResponse): void {
  let b = `<html>
<head>
<title>/debug/pprof/</title>
<style>
.profile-name{
\tdisplay:inline-block;
\twidth:6rem;
}
</style>
</head>
<body>
/debug/pprof/<br>
<br>
Types of profiles available:
<table>
<thead><td>Count</td><td>Profile</td></thead>
`
  for (const [name] of DESCRIPTIONS) b += `<tr><td>0</td><td><a href='${name}?debug=1'>${escapeHtml(name)}</a></td></tr>\n`
  b += `</table>
<br>
<p>
Profile Descriptions:
<ul>
`
  for (const [name, desc] of DESCRIPTIONS) b += `<li><div class=profile-name>${escapeHtml(name)}: </div> ${escapeHtml(desc)}</li>\n`
  b += `</ul>
</p>
</body>
</html>`
  res.writeHead(200, { 'X-Content-Type-Options': 'nosniff', 'Content-Type': 'text/html; charset=utf-8' })
  res.end(b)
}

/** Go's serveError. */
function serveError(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Go-Pprof': '1' })
  res.end(`${text}\n`)
}

/** A profile.proto (gzipped) as Go sends one. */
function sendProfile(res: ServerResponse, name: string, body: Buffer): void {
  res.writeHead(200, { 'X-Content-Type-Options': 'nosniff', 'Content-Type': 'application/octet-stream', 'Content-Disposition': `attachment; filename="${name}"` })
  res.end(body)
}

/** Go's strconv.ParseInt of `seconds`, 30 when missing, invalid or not positive. */
function seconds(url: URL): number {
  const v = url.searchParams.get('seconds') ?? ''
  const n = /^[+-]?\d+$/.test(v) ? Number(v) : NaN
  return Number.isSafeInteger(n) && n > 0 ? n : 30
}

/** The CPU profile over `sec` seconds; cut short when the client goes away, as Go's sleep ends with the request. */
async function cpuProfile(req: IncomingMessage, res: ServerResponse, sec: number): Promise<void> {
  if (cpuBusy) {
    serveError(res, 500, 'Could not enable CPU profiling: cpu profiling already in use')
    return
  }
  cpuBusy = true
  try {
    const pprof = await load()
    pprof.time.start({ intervalMicros: 10_000 })
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, sec * 1000)
      req.socket.once('close', () => {
        clearTimeout(timer)
        resolve()
      })
    })
    const profile = pprof.time.stop()
    if (!res.destroyed) sendProfile(res, 'profile', await pprof.encode(profile))
  } finally {
    cpuBusy = false
  }
}

/** Serve `pathname` under /debug/pprof (its prefix included). */
export async function servePprof(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const name = url.pathname === HTTP_PREFIX_PPROF ? undefined : url.pathname.slice(HTTP_PREFIX_PPROF.length + 1)
  if (name === undefined) {
    // Go's ServeMux sends the subtree's root to its slash form.
    res.writeHead(301, { Location: `${HTTP_PREFIX_PPROF}/${url.search}`, 'Content-Type': 'text/html; charset=utf-8' })
    res.end(`<a href="${HTTP_PREFIX_PPROF}/${escapeHtml(url.search)}">Moved Permanently</a>.\n\n`)
    return
  }
  try {
    switch (name) {
      case '':
        index(res)
        return
      case 'profile':
        await cpuProfile(req, res, seconds(url))
        return
      case 'heap':
      case 'allocs': {
        const pprof = await load()
        sendProfile(res, name, await pprof.encode(pprof.heap.profile()))
        return
      }
      case 'cmdline':
        res.writeHead(200, { 'X-Content-Type-Options': 'nosniff', 'Content-Type': 'text/plain; charset=utf-8' })
        res.end([process.argv[1] ?? process.argv0, ...process.argv.slice(2)].join('\x00'))
        return
      case 'symbol':
        res.writeHead(200, { 'X-Content-Type-Options': 'nosniff', 'Content-Type': 'text/plain; charset=utf-8' })
        res.end('num_symbols: 0\n')
        return
      default:
        serveError(res, 404, 'Unknown profile')
    }
  } catch (err) {
    if (!res.headersSent) serveError(res, 500, `Could not take profile: ${errorMessage(err)}`)
    else res.destroy()
  }
}
