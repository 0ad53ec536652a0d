// Values in etcd's start-up lines, written exactly as the Go code etcd formats them with, because tools parse
// those lines: go-humanize's Bytes, version.Cluster, embed's parseCompactionRetention, runtime.GOARCH and
// os.Signal's String.
import { GoDuration, parseGoDuration } from '../pkg/duration.js'

/** etcd's DefaultQuotaBytes (2 GiB) and how humanize.Bytes writes it. */
export const DEFAULT_QUOTA_BYTES = 2 * 1024 * 1024 * 1024

/** go-humanize's Bytes: SI units, one decimal below 10 ("2.1 GB", "8.6 GB", "512 MB"). */
export function humanizeBytes(n: number): string {
  if (n < 10) return `${n} B`
  const units = ['B', 'kB', 'MB', 'GB', 'TB', 'PB', 'EB']
  const e = Math.floor(Math.log(n) / Math.log(1000))
  const v = Math.floor((n / 1000 ** e) * 10 + 0.5) / 10
  return v < 10 ? `${v.toFixed(1)} ${units[e] as string}` : `${v.toFixed(0)} ${units[e] as string}`
}

/** etcd's version.Cluster: major.minor of a version. */
export function clusterVersion(v: string): string {
  const parts = v.split('.')
  return parts.length <= 2 ? v : `${parts[0] as string}.${parts[1] as string}`
}

/** etcd's parseCompactionRetention: a bare number is hours (periodic) or revisions (as nanoseconds). */
export function compactionRetention(mode: string, retention: string): GoDuration {
  if (/^\d+$/.test(retention)) return new GoDuration(mode === 'revision' ? Number(retention) : Number(retention) * 3600e9)
  try {
    return new GoDuration(parseGoDuration(retention))
  } catch {
    return new GoDuration(0)
  }
}

/** Go's GOARCH for Node's process.arch. */
export function goArch(arch: string): string {
  return ({ x64: 'amd64', ia32: '386' } as Readonly<Record<string, string>>)[arch] ?? arch
}

/** Go's Signal.String for the signals etcd handles. */
export function goSignalName(signal: NodeJS.Signals): string {
  return signal === 'SIGTERM' ? 'terminated' : signal === 'SIGINT' ? 'interrupt' : signal
}
