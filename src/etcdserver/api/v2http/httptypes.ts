// etcd's v2http/httptypes: HTTPError ({"message"} with a status, written without a trailing newline), the
// member JSON of /v2/members, and the peer URL checks of a member request (types.NewURLs).
import { goJsonMarshal, type GoJsonValue } from '../../../pkg/go-json.js'
import type { GoResponse } from './go-http.js'

export class HTTPError extends Error {
  override name = 'HTTPError'
  readonly code: number

  constructor(code: number, message: string) {
    super(message)
    this.code = code
  }

  writeTo(w: GoResponse): void {
    w.setHeader('Content-Type', 'application/json')
    w.writeHeader(this.code)
    w.write(goJsonMarshal({ message: this.message }))
  }
}

/** A member as /v2/members shows it. */
export interface MemberJson {
  readonly id: string
  readonly name: string
  readonly peerURLs: readonly string[]
  readonly clientURLs: readonly string[]
}

export const memberJson = (m: MemberJson): GoJsonValue => ({ id: m.id, name: m.name, peerURLs: [...m.peerURLs], clientURLs: [...m.clientURLs] })

/** types.NewURLs: the refusal text for a list of peer URLs, or undefined when they are valid. */
export function checkPeerUrls(strs: readonly string[]): string | undefined {
  if (strs.length === 0) return 'no valid URLs given'
  for (const raw of strs) {
    const s = raw.trim()
    const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$/.exec(s)
    const scheme = m?.[1]?.toLowerCase() ?? ''
    const rest = m?.[2] ?? s
    if (scheme === 'http' || scheme === 'https') {
      const auth = /^\/\/([^/?#]*)(.*)$/.exec(rest)
      const host = auth?.[1] ?? ''
      if (!/^(\[[^\]]*\]|[^:[\]]*):[^:]*$/.test(host)) return `URL address does not have the form "host:port": ${s}`
      if ((auth?.[2] ?? rest).replace(/[?#].*$/, '') !== '') return `URL must not contain a path: ${s}`
    } else if (scheme !== 'unix' && scheme !== 'unixs') {
      return `URL scheme must be http, https, unix, or unixs: ${s}`
    }
  }
  return undefined
}
