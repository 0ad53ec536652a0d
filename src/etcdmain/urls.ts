// etcd's types.URLs and types.URLsMap (client/pkg/types): lists of peer or client URLs and the
// "name=url,name=url" initial-cluster syntax, with etcd's checks, sorting and error texts.
import { goUrlString, parseGoUrl, type GoUrl } from '../pkg/go-url.js'
import { splitHostPort } from '../pkg/transport/host-port.js'

/** A URL etcd accepted, with the text etcd prints, sorts and hashes (Go's URL.String()). */
export interface EtcdUrl {
  readonly url: GoUrl
  readonly text: string
}

/** Why types.NewURLs refused a list (url.Parse's own errors included). */
export class UrlsError extends Error {
  override name = 'UrlsError'
}

/**
 * types.NewURLs: each trimmed, parsed, http/https with host:port and no path (unix/unixs as they are), then
 * sorted by their text. An empty list is "no valid URLs given".
 */
export function newUrls(strs: readonly string[]): EtcdUrl[] {
  if (strs.length === 0) throw new UrlsError('no valid URLs given')
  const all = strs.map((raw): EtcdUrl => {
    const input = raw.trim()
    let u: GoUrl
    try {
      u = parseGoUrl(input)
    } catch (err) {
      throw new UrlsError(err instanceof Error ? err.message : String(err))
    }
    switch (u.scheme) {
      case 'http':
      case 'https':
        try {
          splitHostPort(u.host)
        } catch {
          throw new UrlsError(`URL address does not have the form "host:port": ${input}`)
        }
        if (u.path !== '') throw new UrlsError(`URL must not contain a path: ${input}`)
        break
      case 'unix':
      case 'unixs':
        break
      default:
        throw new UrlsError(`URL scheme must be http, https, unix, or unixs: ${input}`)
    }
    return { url: u, text: goUrlString(u) }
  })
  return sortUrls(all)
}

/** types.URLs.Sort: by text. */
export function sortUrls(us: readonly EtcdUrl[]): EtcdUrl[] {
  return [...us].sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0))
}

/** types.URLsMap: member name to its URLs. */
export type UrlsMap = ReadonlyMap<string, readonly EtcdUrl[]>

/**
 * types.NewURLsMap: "name=url" pairs split at commas (empty pairs skipped, a name may repeat and gathers
 * its URLs); each name's URLs go through newUrls. A pair without "=" is a name with the URL "".
 */
export function newUrlsMap(s: string): Map<string, EtcdUrl[]> {
  const raw = new Map<string, string[]>()
  for (const pair of s.split(',')) {
    if (pair === '') continue
    const eq = pair.indexOf('=')
    const key = eq === -1 ? pair : pair.slice(0, eq)
    const value = eq === -1 ? '' : pair.slice(eq + 1)
    raw.set(key, [...(raw.get(key) ?? []), value])
  }
  const out = new Map<string, EtcdUrl[]>()
  for (const [name, urls] of raw) out.set(name, newUrls(urls))
  return out
}

/** URLsMap.String(): "name=url" pairs sorted. */
export function urlsMapString(m: UrlsMap): string {
  const pairs: string[] = []
  for (const [name, urls] of m) for (const u of urls) pairs.push(`${name}=${u.text}`)
  return pairs.sort().join(',')
}
