// etcd's v2store NodeExtern: a node as clients see it (a key, its value or child nodes, expiration, TTL and
// indexes), and its JSON with Go's omitempty rules: an empty key, no value, false dir, no expiration, a zero
// TTL, no child nodes and zero indexes are left out (an empty value is shown: it is a pointer in Go).
import { compareBstr } from '../../../pkg/bstr.js'
import type { GoJsonValue } from '../../../pkg/go-json.js'
import { formatRfc3339Nano } from '../../../pkg/go-time.js'

export interface NodeExtern {
  key: string
  /** The value of a key (undefined for a directory). */
  value: string | undefined
  dir: boolean
  /** Expiry in Unix nanoseconds; undefined for a permanent node. */
  expiration: bigint | undefined
  /** Seconds left, rounded up (0 for a permanent node). */
  ttl: number
  /** Child nodes of a directory listing (undefined when not listed). */
  nodes: NodeExtern[] | undefined
  modifiedIndex: number
  createdIndex: number
}

export function newNodeExtern(key: string, modifiedIndex: number, createdIndex: number): NodeExtern {
  return { key, value: undefined, dir: false, expiration: undefined, ttl: 0, nodes: undefined, modifiedIndex, createdIndex }
}

/** Deep copy (etcd's NodeExtern.Clone). */
export function cloneNodeExtern(n: NodeExtern): NodeExtern {
  return { ...n, nodes: n.nodes?.map(cloneNodeExtern) }
}

/** sort.Sort(NodeExterns): by key, in byte order. */
export function sortNodeExterns(nodes: NodeExtern[]): void {
  nodes.sort((a, b) => compareBstr(a.key, b.key))
}

/** Why a node cannot be written as JSON: Go's MarshalJSON refuses an expiry outside years 0..9999. */
export class NodeEncodeError extends Error {
  override name = 'NodeEncodeError'
}

/**
 * The node as Go's encoder writes it, its key and its children's keys with `trim` removed from their start
 * (etcd's trimNodeExternPrefix, applied to a copy). Throws NodeEncodeError for an expiry Go cannot format.
 */
export function nodeExternJson(n: NodeExtern, trim = ''): GoJsonValue {
  const key = trim !== '' && n.key.startsWith(trim) ? n.key.slice(trim.length) : n.key
  let expiration: string | undefined
  if (n.expiration !== undefined) {
    expiration = formatRfc3339Nano(n.expiration)
    if (expiration === undefined) throw new NodeEncodeError('Time.MarshalJSON: year outside of range [0,9999]')
  }
  return {
    key: key === '' ? undefined : key,
    value: n.value,
    dir: n.dir ? true : undefined,
    expiration,
    ttl: n.ttl === 0 ? undefined : n.ttl,
    nodes: n.nodes === undefined || n.nodes.length === 0 ? undefined : n.nodes.map((c) => nodeExternJson(c, trim)),
    modifiedIndex: n.modifiedIndex === 0 ? undefined : n.modifiedIndex,
    createdIndex: n.createdIndex === 0 ? undefined : n.createdIndex,
  }
}
