// Go's package path (slash-separated paths, purely lexical): Clean, Join and Split, which etcd's v2 store
// and HTTP handlers apply to keys. node:path's posix functions differ (normalize keeps a trailing slash and
// join keeps empty results as "."), and the v2 API's answers depend on Go's exact results.

/** path.Clean: the shortest equivalent path ("." for an empty one). */
export function clean(p: string): string {
  if (p === '') return '.'
  const rooted = p.startsWith('/')
  const out: string[] = []
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue
    if (part === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop()
      else if (!rooted) out.push('..')
      continue
    }
    out.push(part)
  }
  const body = out.join('/')
  if (rooted) return `/${body}`
  return body === '' ? '.' : body
}

/** path.Join: the non-empty elements joined by slashes, cleaned; "" when every element is empty. */
export function join(...elems: string[]): string {
  const parts = elems.filter((e) => e !== '')
  return parts.length === 0 ? '' : clean(parts.join('/'))
}

/** path.Split: [dir, file] split after the last slash (dir keeps it). */
export function split(p: string): [string, string] {
  const i = p.lastIndexOf('/')
  return [p.slice(0, i + 1), p.slice(i + 1)]
}

/** path.Dir: everything but the last element, cleaned. */
export function dir(p: string): string {
  return clean(split(p)[0])
}
