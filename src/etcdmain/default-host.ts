// etcd's default host (netutil.GetDefaultHost) and Config.UpdateDefaultClusterFromName: a member that
// listens on 0.0.0.0 and advertises etcd's default URLs advertises its machine's address instead, and
// `--name x` alone makes the initial cluster "x=<advertised peer URLs>". Both change the member ID.
import { readFileSync } from 'node:fs'
import { networkInterfaces } from 'node:os'
import { goUrlHostname, goUrlPort, goUrlString, type GoUrl } from '../pkg/go-url.js'
import {
  DEFAULT_ADVERTISE_CLIENT_URLS, DEFAULT_INITIAL_ADVERTISE_PEER_URLS, DEFAULT_NAME, initialClusterFromName, type EmbedConfig,
} from './embed-config.js'

/** The machine's default host, or why there is none (etcd logs "failed to detect default host"). */
export type DefaultHost = { readonly host: string } | { readonly error: string }

/**
 * netutil.GetDefaultHost on Linux: the IPv4 address of the interface the default route leaves by (etcd asks
 * netlink; /proc/net/route holds the same table).
 */
export function getDefaultHost(): DefaultHost {
  let table: string
  try {
    table = readFileSync('/proc/net/route', 'utf8')
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) }
  }
  let best: { iface: string; metric: number } | undefined
  for (const line of table.split('\n').slice(1)) {
    const [iface, destination, , flags, , , metric, mask] = line.trim().split(/\s+/)
    if (iface === undefined || destination !== '00000000' || mask !== '00000000') continue
    // RTF_UP
    if ((Number.parseInt(flags ?? '0', 16) & 1) === 0) continue
    const m = Number(metric)
    if (best === undefined || m < best.metric) best = { iface, metric: m }
  }
  if (best === undefined) return { error: 'could not find default route' }
  const addr = networkInterfaces()[best.iface]?.find((a) => a.family === 'IPv4')
  return addr === undefined ? { error: 'could not find default host' } : { host: addr.address }
}

const withHost = (u: GoUrl, host: string, port: string): GoUrl => ({ ...u, user: undefined, path: '', rawQuery: '', forceQuery: false, fragment: '', host: `${host}:${port}` })

/**
 * Config.UpdateDefaultClusterFromName. Returns the default host when it was used (etcd logs "detected
 * default host for advertise").
 */
export function updateDefaultClusterFromName(cfg: EmbedConfig, defaultInitialCluster: string, dh: DefaultHost): string | undefined {
  const fromName = (): void => {
    if (cfg.name !== DEFAULT_NAME && cfg.initialCluster === defaultInitialCluster) cfg.initialCluster = initialClusterFromName(cfg, cfg.name)
  }
  if (!('host' in dh) || dh.host === '') {
    fromName()
    return undefined
  }
  let used = false
  const lpurl = cfg.listenPeerUrls[0]
  const ap = cfg.advertisePeerUrls
  if (lpurl !== undefined && ap.length === 1 && ap[0]?.text === DEFAULT_INITIAL_ADVERTISE_PEER_URLS && goUrlHostname(lpurl.url) === '0.0.0.0') {
    const url = withHost(ap[0].url, dh.host, goUrlPort(lpurl.url))
    cfg.advertisePeerUrls = [{ url, text: goUrlString(url) }]
    used = true
  }
  fromName()
  const lcurl = cfg.listenClientUrls[0]
  const ac = cfg.advertiseClientUrls
  if (lcurl !== undefined && ac !== undefined && ac.length === 1 && ac[0]?.text === DEFAULT_ADVERTISE_CLIENT_URLS && goUrlHostname(lcurl.url) === '0.0.0.0') {
    const url = withHost(ac[0].url, dh.host, goUrlPort(lcurl.url))
    cfg.advertiseClientUrls = [{ url, text: goUrlString(url) }]
    used = true
  }
  return used ? dh.host : undefined
}
