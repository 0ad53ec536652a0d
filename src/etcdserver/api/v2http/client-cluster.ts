// etcd's v2http/client.go membersHandler, machinesHandler and statsHandler (3.5.17): what this member says
// about itself and its cluster of one. Member requests are read and refused as etcd reads and refuses them.
import { utf8ToBstr } from '../../../pkg/bstr.js'
import { goJsonEncode } from '../../../pkg/go-json.js'
import type { V2Server } from '../../v2-server.js'
import { hasWriteRootAccess, writeNoAuth } from './client-auth.js'
import { httpError, type GoRequest, type GoResponse } from './go-http.js'
import { allowMethod, writeError } from './http.js'
import { HTTPError, checkPeerUrls, memberJson } from './httptypes.js'

export const MACHINES_PREFIX = '/v2/machines'
export const MEMBERS_PREFIX = '/v2/members'
export const STATS_PREFIX = '/v2/stats'

/** /v2/machines: this member's client URLs. */
export function serveMachines(v2: V2Server, r: GoRequest, w: GoResponse): void {
  if (!allowMethod(w, r.method, 'GET', 'HEAD')) return
  w.write(Buffer.from([...v2.server.member.clientUrls].sort().join(', '), 'utf8'))
}

/** /v2/stats/{store,self,leader}: the JSON `body` gives. */
export function serveStats(r: GoRequest, w: GoResponse, body: () => string): void {
  if (!allowMethod(w, r.method, 'GET')) return
  w.setHeader('Content-Type', 'application/json')
  w.write(body())
}

/** This member as /v2/members shows it. */
function self(v2: V2Server): ReturnType<typeof memberJson> {
  const m = v2.server.member
  return memberJson({ id: v2.server.memberId.toString(16), name: utf8ToBstr(m.name), peerURLs: m.peerUrls.map(utf8ToBstr), clientURLs: m.clientUrls.map(utf8ToBstr) })
}

/** unmarshalRequest of a member request: JSON content type, then {"peerURLs": [...]} that NewURLs accepts. */
async function memberRequest(r: GoRequest, w: GoResponse): Promise<boolean> {
  let ctype = r.header('Content-Type')
  const semi = ctype.indexOf(';')
  if (semi !== -1) ctype = ctype.slice(0, semi).trim().toLowerCase()
  if (ctype !== 'application/json') {
    writeError(w, new HTTPError(415, `Bad Content-Type ${utf8ToBstr(ctype)}, accept application/json`))
    return false
  }
  const body = (await r.readBody()).toString('utf8')
  let v: unknown
  try {
    v = JSON.parse(body) as unknown
  } catch {
    // Go's texts for the two common cases; its wording for other syntax errors names the offending byte.
    const c = body.trim()[0]
    writeError(w, new HTTPError(400, c === undefined || c === '{' || c === '[' || c === '"' ? 'unexpected end of JSON input' : utf8ToBstr(`invalid character '${c}' looking for beginning of value`)))
    return false
  }
  const raw: unknown = typeof v === 'object' && v !== null && !Array.isArray(v) ? Object.entries(v as Record<string, unknown>).find(([k]) => k.toLowerCase() === 'peerurls')?.[1] : undefined
  if (raw !== undefined && raw !== null && !(Array.isArray(raw) && raw.every((x: unknown) => typeof x === 'string'))) {
    writeError(w, new HTTPError(400, 'json: cannot unmarshal into Go struct field .peerURLs of type []string'))
    return false
  }
  const bad = checkPeerUrls(Array.isArray(raw) ? raw : [])
  if (bad !== undefined) {
    writeError(w, new HTTPError(400, utf8ToBstr(bad)))
    return false
  }
  return true
}

/** getID: the member ID at the end of the path (hexadecimal), or the refusal already written. */
function memberId(r: GoRequest, w: GoResponse): bigint | undefined {
  const idStr = r.path.slice(MEMBERS_PREFIX.length).replace(/^\//, '')
  if (idStr === '') {
    httpError(w, 'Method Not Allowed', 405)
    return undefined
  }
  if (!/^[0-9a-fA-F]+$/.test(idStr) || BigInt(`0x${idStr}`) >= 1n << 64n) {
    writeError(w, new HTTPError(404, `No such member: ${idStr}`))
    return undefined
  }
  return BigInt(`0x${idStr}`)
}

/** /v2/members (etcd's membersHandler): this one member; membership changes are refused. */
export async function serveMembers(v2: V2Server, r: GoRequest, w: GoResponse, report: (err: unknown) => void): Promise<void> {
  if (!allowMethod(w, r.method, 'GET', 'POST', 'DELETE', 'PUT')) return
  if (!(await hasWriteRootAccess(v2.auth, r))) return writeNoAuth(w)
  w.setHeader('X-Etcd-Cluster-Id', v2.clusterIdString())
  // etcdlite is one member whose membership cannot change. Removing this member fails in etcd too (not
  // enough started members: a 500); an add or an update of this member, which etcd applies, fails alike.
  const refuse = (): void => writeError(w, new Error('etcdserver: etcdlite is a single-member server; cluster membership cannot change'), report)
  switch (r.method) {
    case 'GET': {
      const sub = r.path.slice(MEMBERS_PREFIX.length).replace(/^\//, '')
      if (sub === '') {
        w.setHeader('Content-Type', 'application/json')
        w.write(goJsonEncode({ members: [self(v2)] }))
      } else if (sub === 'leader') {
        w.setHeader('Content-Type', 'application/json')
        w.write(goJsonEncode(self(v2)))
      } else {
        writeError(w, new HTTPError(404, 'Not found'))
      }
      return
    }
    case 'POST':
      if (await memberRequest(r, w)) refuse()
      return
    case 'DELETE':
    case 'PUT': {
      const id = memberId(r, w)
      if (id === undefined || (r.method === 'PUT' && !(await memberRequest(r, w)))) return
      if (id === v2.server.memberId) return refuse()
      await v2.rejectedConfChange()
      writeError(w, new HTTPError(404, `No such member: ${id.toString(16)}`))
      return
    }
  }
}
