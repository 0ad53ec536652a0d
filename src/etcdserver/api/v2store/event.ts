// etcd's v2store Event: what a write did (its action, the node after it and before it), the store index when
// it happened, and whether it was a TTL refresh. Its JSON is what a v2 write or watch answers.
import type { GoJsonValue } from '../../../pkg/go-json.js'
import { cloneNodeExtern, newNodeExtern, nodeExternJson, type NodeExtern } from './node-extern.js'

/** etcd's event actions (v2store.Get, Create, Set, ...), as their JSON spells them. */
export type Action = 'get' | 'create' | 'set' | 'update' | 'delete' | 'compareAndSwap' | 'compareAndDelete' | 'expire'

export interface V2Event {
  action: Action
  /** Undefined only once a response drops it (noValueOnSuccess). */
  node: NodeExtern | undefined
  prevNode: NodeExtern | undefined
  /** The store index the event is reported at (the X-Etcd-Index header); not in its JSON. */
  etcdIndex: number
  refresh: boolean
}

export function newEvent(action: Action, key: string, modifiedIndex: number, createdIndex: number): V2Event {
  return { action, node: newNodeExtern(key, modifiedIndex, createdIndex), prevNode: undefined, etcdIndex: 0, refresh: false }
}

/** The event's index: its node's modified index. */
export const eventIndex = (e: V2Event): number => e.node?.modifiedIndex ?? 0

/** Set, with no node before it, or Create. */
export const isCreated = (e: V2Event): boolean => e.action === 'create' || (e.action === 'set' && e.prevNode === undefined)

/** etcd's Event.Clone: a deep copy (the refresh flag is not copied, as in etcd). */
export function cloneEvent(e: V2Event): V2Event {
  return {
    action: e.action,
    node: e.node === undefined ? undefined : cloneNodeExtern(e.node),
    prevNode: e.prevNode === undefined ? undefined : cloneNodeExtern(e.prevNode),
    etcdIndex: e.etcdIndex,
    refresh: false,
  }
}

/**
 * The event's JSON as etcd's handlers write it, keys with `trim` removed from their start (trimEventPrefix).
 * Never with "refresh": the handlers write a Clone of the event, and Clone drops the flag.
 */
export function eventJson(e: V2Event, trim = ''): GoJsonValue {
  return {
    action: e.action,
    node: e.node === undefined ? undefined : nodeExternJson(e.node, trim),
    prevNode: e.prevNode === undefined ? undefined : nodeExternJson(e.prevNode, trim),
  }
}
