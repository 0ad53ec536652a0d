// What etcd checks when a member starts on an empty data dir (embed.StartEtcd and etcdserver.NewServer):
// the initial cluster (PeerURLsMapAndToken), that it names this member with the URLs it advertises
// (VerifyBootstrap / VerifyJoinExisting, advertiseMatchesCluster with netutil.URLStringsEqual), then
// joining: etcdlite serves one member, so a larger cluster, a discovery service or the v2 proxy is refused
// with a message of its own. A data dir that already holds a member skips all of it, as in etcd. Also the
// member and cluster IDs a new cluster gets, as etcd computes them for its initial members
// (membership.NewMember's computeMemberId, with no time suffix, and RaftCluster.genID).
import { createHash } from 'node:crypto'
import { lookup } from 'node:dns/promises'
import { StartError } from './errors.js'
import { goQuote } from '../pkg/go-quote.js'
import { parseGoUrl, type GoUrl } from '../pkg/go-url.js'
import { isGoIp, splitHostPort } from '../pkg/transport/host-port.js'
import { newUrlsMap, urlsMapString, type UrlsMap } from './urls.js'

/** What the bootstrap checks read of the configuration (see Config). */
export interface BootstrapConfig {
  readonly name: string
  readonly initialCluster: string
  readonly initialClusterToken: string
  readonly initialClusterState: 'new' | 'existing'
  readonly initialAdvertisePeerUrls: readonly string[]
  readonly discovery: string
  readonly discoverySrv: string
  readonly proxy: 'off' | 'readonly' | 'on'
}

/** Resolve a host name to one IP address (the first, as Go's resolver order gives it). */
export type Resolver = (host: string) => Promise<string>

export const systemResolver: Resolver = async (host) => (await lookup(host, { verbatim: true })).address

/** Go's %q of a []string: ["a" "b"]. */
const quoteList = (xs: readonly string[]): string => `[${xs.map(goQuote).join(' ')}]`

/** PeerURLsMapAndToken("etcd") for a static initial cluster or --discovery (--discovery-srv is refused first). */
export function peerUrlsMapAndToken(cfg: BootstrapConfig): { urlsmap: UrlsMap; token: string } {
  if (cfg.discovery !== '') {
    return { urlsmap: new Map([[cfg.name, cfg.initialAdvertisePeerUrls.map((text) => ({ url: parseGoUrl(text), text }))]]), token: cfg.discovery }
  }
  try {
    return { urlsmap: newUrlsMap(cfg.initialCluster), token: cfg.initialClusterToken }
  } catch (err) {
    throw new StartError(`error setting up initial cluster: ${err instanceof Error ? err.message : String(err)}`)
  }
}

/** membership.computeMemberId: SHA-1 over the sorted peer URLs joined with nothing, then the cluster token; first 8 bytes. */
export function computeMemberId(peerUrls: readonly string[], token: string): bigint {
  const joined = [...peerUrls].sort().join('')
  return createHash('sha1').update(joined + token, 'utf8').digest().readBigUInt64BE(0)
}

/** RaftCluster.genID: SHA-1 over the sorted member IDs as 8-byte big-endian each; first 8 bytes. */
export function genClusterId(memberIds: readonly bigint[]): bigint {
  const ids = [...memberIds].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const buf = Buffer.alloc(8 * ids.length)
  ids.forEach((id, i) => buf.writeBigUInt64BE(id, 8 * i))
  return createHash('sha1').update(buf).digest().readBigUInt64BE(0)
}

/** The IDs a new cluster built from this configuration has: this member's and the cluster's. */
export function bootstrapIds(cfg: BootstrapConfig, urlsmap: UrlsMap, token: string): { memberId: bigint; clusterId: bigint } {
  const ids = [...urlsmap.values()].map((urls) => computeMemberId(urls.map((u) => u.text), token))
  const own = urlsmap.get(cfg.name)
  const memberId = computeMemberId((own ?? []).map((u) => u.text), token)
  return { memberId, clusterId: genClusterId(ids) }
}

/** config.CheckDuplicateURL: a URL named twice in the whole map. */
function hasDuplicateUrl(m: UrlsMap): boolean {
  const seen = new Set<string>()
  for (const urls of m.values()) {
    for (const u of urls) {
      if (seen.has(u.text)) return true
      seen.add(u.text)
    }
  }
  return false
}

/** netutil's resolveURL: the host:port a URL dials, or '' to keep it (unix sockets, localhost). */
async function resolveUrl(u: GoUrl, resolve: Resolver): Promise<string> {
  if (u.scheme === 'unix' || u.scheme === 'unixs') return ''
  const { host, port } = splitHostPort(u.host)
  if (host === 'localhost') return ''
  const ip = isGoIp(host) ? host : await resolve(host)
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`
}

/** netutil.URLStringsEqual: equal as texts, or after resolving host names. Returns the reason when not. */
async function urlStringsEqual(a: readonly string[], b: readonly string[], resolve: Resolver): Promise<string | undefined> {
  if (a.length !== b.length) return `len(${quoteList(a)}) != len(${quoteList(b)})`
  const parse = (xs: readonly string[]): GoUrl[] =>
    xs.map((s) => {
      try {
        return parseGoUrl(s)
      } catch {
        throw new StartError(`failed to parse string to URL: ${goQuote(s)}`)
      }
    })
  const text = (u: GoUrl): string => `${u.scheme}://${u.host}`
  const sortTexts = (xs: readonly string[]): string[] => [...xs].sort()
  const ua = parse(a)
  const ub = parse(b)
  if (sortTexts(a).every((s, i) => s === sortTexts(b)[i])) return undefined
  const resolved: string[][] = []
  for (const us of [ua, ub]) {
    const out: string[] = []
    for (const u of us) {
      const whole = `${u.scheme}://${u.host}`
      let h: string
      try {
        h = await resolveUrl(u, resolve)
      } catch (err) {
        return `failed to resolve ${goQuote(whole)} (${err instanceof Error ? err.message : String(err)})`
      }
      out.push(h === '' ? text(u) : `${u.scheme}://${h}`)
    }
    resolved.push(out.sort())
  }
  const [ra = [], rb = []] = resolved
  for (let i = 0; i < ra.length; i++) if (ra[i] !== rb[i]) return `resolved urls: ${goQuote(ra[i] ?? '')} != ${goQuote(rb[i] ?? '')}`
  return undefined
}

/** advertiseMatchesCluster: --initial-advertise-peer-urls are this member's URLs in the initial cluster. */
async function advertiseMatchesCluster(cfg: BootstrapConfig, m: UrlsMap, resolve: Resolver): Promise<void> {
  const urls = (m.get(cfg.name) ?? []).map((u) => u.text).sort()
  const apurls = [...cfg.initialAdvertisePeerUrls].sort()
  const why = await urlStringsEqual(apurls, urls, resolve)
  if (why === undefined) return
  const initSet = new Set(urls)
  const apSet = new Set(cfg.initialAdvertisePeerUrls)
  const missing = [...initSet].filter((u) => !apSet.has(u))
  if (missing.length > 0) {
    throw new StartError(`--initial-cluster has ${missing.map((u) => `${cfg.name}=${u}`).join(',')} but missing from --initial-advertise-peer-urls=${apurls.join(',')} (${why})`)
  }
  const extra = [...apSet].filter((u) => !initSet.has(u))
  const own = [...cfg.initialAdvertisePeerUrls].sort().map((u) => `${cfg.name}=${u}`).join(',')
  if (extra.length > 0) throw new StartError(`--initial-advertise-peer-urls has ${extra.join(',')} but missing from --initial-cluster=${own}`)
  throw new StartError(`failed to resolve ${apurls.join(',')} to match --initial-cluster=${own} (${why})`)
}

const hasLocalMember = (cfg: BootstrapConfig, m: UrlsMap): void => {
  if (!m.has(cfg.name)) throw new StartError(`couldn't find local name ${goQuote(cfg.name)} in the initial cluster configuration`)
}

/** NewClusterFromURLsMap's checks: member IDs unique and not 0 (raft.None). */
function checkMemberIds(m: UrlsMap, token: string): void {
  const seen = new Set<bigint>()
  for (const [name, urls] of m) {
    const id = computeMemberId(urls.map((u) => u.text), token)
    if (seen.has(id)) throw new StartError(`member exists with identical ID {ID:${id.toString(16)} RaftAttributes:{PeerURLs:[${urls.map((u) => u.text).join(' ')}] IsLearner:false} Attributes:{Name:${name} ClientURLs:[]}}`)
    if (id === 0n) throw new StartError('cannot use 0 as member id')
    seen.add(id)
  }
}

/** etcdlite's refusal of a cluster of several members: it serves exactly one. */
function refuseOtherMembers(cfg: BootstrapConfig, m: UrlsMap): void {
  if (m.size <= 1) return
  const names = [...m.keys()].sort()
  throw new StartError(
    `etcdlite serves a single member, but the initial cluster names ${m.size} members (${names.join(', ')}); ` +
      `start it with --initial-cluster ${urlsMapString(new Map([[cfg.name, m.get(cfg.name) ?? []]]))} or without --initial-cluster`,
  )
}

/**
 * The checks of a start on an empty data dir, in etcd's order. Throws StartError (etcd's text, or
 * etcdlite's for what it does not do).
 */
export async function verifyBootstrap(cfg: BootstrapConfig, resolve: Resolver): Promise<void> {
  if (cfg.proxy !== 'off') {
    throw new StartError(`etcdlite does not run as etcd's v2 proxy (--proxy ${cfg.proxy}); it serves as a member: start it with --proxy off`)
  }
  if (cfg.discoverySrv !== '') {
    throw new StartError(`etcdlite serves a single member and does not bootstrap from DNS SRV records (--discovery-srv ${cfg.discoverySrv}); give --initial-cluster instead`)
  }
  const { urlsmap, token } = peerUrlsMapAndToken(cfg)
  if (cfg.initialClusterState === 'existing') {
    hasLocalMember(cfg, urlsmap)
    if (hasDuplicateUrl(urlsmap)) throw new StartError(`initial cluster ${urlsMapString(urlsmap)} has duplicate url`)
    if (cfg.discovery !== '') throw new StartError('discovery URL should not be set when joining existing initial cluster')
    checkMemberIds(urlsmap, token)
    refuseOtherMembers(cfg, urlsmap)
    // etcd asks the other members for the cluster; a member alone has no one to ask.
    throw new StartError('cannot fetch cluster info from peer urls: could not retrieve cluster information from the given URLs')
  }
  hasLocalMember(cfg, urlsmap)
  await advertiseMatchesCluster(cfg, urlsmap, resolve)
  if (hasDuplicateUrl(urlsmap)) throw new StartError(`initial cluster ${urlsMapString(urlsmap)} has duplicate url`)
  if (urlsMapString(urlsmap) === '' && cfg.discovery === '') throw new StartError('initial cluster unset and no discovery URL found')
  checkMemberIds(urlsmap, token)
  if (cfg.discovery !== '') {
    throw new StartError(`etcdlite serves a single member and does not join a cluster through a discovery service (--discovery ${cfg.discovery}); give --initial-cluster instead`)
  }
  refuseOtherMembers(cfg, urlsmap)
}
