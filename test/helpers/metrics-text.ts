// Reading a Prometheus text exposition (etcd's or etcdlite's /metrics) for the metrics tests: families with
// their TYPE, HELP, label names and bucket bounds, and every series' value.
import { request } from 'node:http'

/** GET /metrics from `endpoint` (host:port) over a fresh connection. */
export function scrape(endpoint: string): Promise<string> {
  const i = endpoint.lastIndexOf(':')
  return new Promise((resolve, reject) => {
    const req = request({ host: endpoint.slice(0, i), port: Number(endpoint.slice(i + 1)), path: '/metrics', agent: false }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (d: string) => (body += d))
      res.on('end', () => resolve(body))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

export interface Family {
  readonly type: string
  readonly help: string
  /** Label names seen on its series, sorted, without `le` and `quantile`. */
  readonly labelNames: string[]
  /** A histogram's `le` values, in the order of its first series. */
  readonly bounds: string[]
}

export interface Exposition {
  readonly families: Map<string, Family>
  /** Series as printed (`name{a="x",b="y"}`) -> value. */
  readonly series: Map<string, number>
}

/** The labels of a series, parsed from `{a="x",b="y"}` with the text format's escapes. */
function parseLabels(text: string): [string, string][] {
  const out: [string, string][] = []
  const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g
  for (const m of text.matchAll(re)) out.push([m[1] ?? '', (m[2] ?? '').replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c))])
  return out
}

/** Parse an exposition. A sample belongs to the family whose TYPE line came last before it. */
export function parseExposition(text: string): Exposition {
  const families = new Map<string, Family>()
  const series = new Map<string, number>()
  const helps = new Map<string, string>()
  let current: Family | undefined
  let firstSeries = ''
  for (const line of text.split('\n')) {
    if (line === '') continue
    const help = /^# HELP (\S+) (.*)$/.exec(line)
    if (help !== null) {
      helps.set(help[1] ?? '', help[2] ?? '')
      continue
    }
    const type = /^# TYPE (\S+) (\S+)$/.exec(line)
    if (type !== null) {
      const name = type[1] ?? ''
      current = { type: type[2] ?? '', help: helps.get(name) ?? '', labelNames: [], bounds: [] }
      families.set(name, current)
      firstSeries = ''
      continue
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)$/.exec(line)
    if (sample === null || current === undefined) throw new Error(`unparsed line: ${line}`)
    const [, name = '', labelText = '', value = ''] = sample
    series.set(`${name}${labelText}`, Number(value))
    const labels = parseLabels(labelText)
    for (const [n, v] of labels) {
      if (n === 'le') {
        const key = labelText.replace(/,?le="[^"]*"/, '')
        if (firstSeries === '') firstSeries = key
        if (key === firstSeries) current.bounds.push(v)
      } else if (n !== 'quantile' && !current.labelNames.includes(n)) {
        current.labelNames.push(n)
        current.labelNames.sort()
      }
    }
  }
  return { families, series }
}
