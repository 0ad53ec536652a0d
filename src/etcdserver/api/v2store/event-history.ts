// etcd's v2store EventHistory: the last `capacity` (1000) events in a ring, which a watch with a waitIndex
// scans for the first event at or after that index on its key (or under it, recursively).
import { clean } from '../../../pkg/go-path.js'
import { EcodeEventIndexCleared, V2Error } from '../v2error/error.js'
import { eventIndex, type V2Event } from './event.js'

export class EventHistory {
  readonly capacity: number
  private readonly events: (V2Event | undefined)[]
  private front = 0
  private back = 0
  private size = 0
  startIndex = 0
  lastIndex = 0

  constructor(capacity: number) {
    this.capacity = capacity
    this.events = new Array<V2Event | undefined>(capacity).fill(undefined)
  }

  /** Append an event; returns the event the ring dropped to make room, if it was full. */
  addEvent(e: V2Event): V2Event | undefined {
    const dropped = this.size === this.capacity ? this.events[this.front] : undefined
    this.events[this.back] = e
    this.back = (this.back + 1) % this.capacity
    if (this.size === this.capacity) this.front = (this.front + 1) % this.capacity
    else this.size++
    this.lastIndex = eventIndex(e)
    this.startIndex = eventIndex(this.events[this.front] as V2Event)
    return dropped
  }

  /** The events held, oldest first. */
  all(): V2Event[] {
    const out: V2Event[] = []
    for (let k = 0; k < this.size; k++) out.push(this.events[(this.front + k) % this.capacity] as V2Event)
    return out
  }

  /**
   * The first event at or after `index` for `key` (or under it when `recursive`; or a deleted or expired
   * directory holding it), skipping TTL refreshes. Undefined when there is none yet; EventIndexCleared
   * when `index` fell out of the history.
   */
  scan(key: string, recursive: boolean, index: bigint): V2Event | undefined | V2Error {
    if (index < BigInt(this.startIndex)) {
      return new V2Error(EcodeEventIndexCleared, `the requested history has been cleared [${this.startIndex}/${index}]`, 0)
    }
    if (index > BigInt(this.lastIndex)) return undefined
    let i = (this.front + Number(index - BigInt(this.startIndex))) % this.capacity
    for (;;) {
      const e = this.events[i] as V2Event
      const node = e.node
      if (!e.refresh && node !== undefined) {
        let ok = node.key === key
        if (recursive) {
          let nkey = clean(key)
          if (!nkey.endsWith('/')) nkey += '/'
          ok ||= node.key.startsWith(nkey)
        }
        if ((e.action === 'delete' || e.action === 'expire') && e.prevNode?.dir === true) ok ||= key.startsWith(e.prevNode.key)
        if (ok) return e
      }
      i = (i + 1) % this.capacity
      if (i === this.back) return undefined
    }
  }
}
