// What a process holds open, from /proc (Linux): its file descriptors and the TCP states of its sockets,
// to see a server that leaks connections (sockets left in CLOSE-WAIT after the client closed them).
import { existsSync } from 'node:fs'
import { readdir, readFile, readlink } from 'node:fs/promises'

/** True where /proc shows processes' descriptors and TCP sockets (Linux). */
export function haveProcNet(): boolean {
  return existsSync(`/proc/${process.pid}/fd`) && existsSync('/proc/net/tcp')
}

export interface SocketStats {
  /** Open file descriptors. */
  readonly fds: number
  /** TCP sockets in CLOSE-WAIT: the peer closed its side and the process has not closed its own. */
  readonly closeWait: number
  /** Every TCP socket it holds, by state name. */
  readonly tcp: Readonly<Record<string, number>>
}

/** The kernel's TCP state numbers (include/net/tcp_states.h) as /proc/net/tcp prints them, in hex. */
const TCP_STATES: Readonly<Record<string, string>> = {
  '01': 'ESTABLISHED', '02': 'SYN_SENT', '03': 'SYN_RECV', '04': 'FIN_WAIT1', '05': 'FIN_WAIT2', '06': 'TIME_WAIT',
  '07': 'CLOSE', '08': 'CLOSE_WAIT', '09': 'LAST_ACK', '0A': 'LISTEN', '0B': 'CLOSING',
}

/** The descriptors of process `pid`, and the inodes of those that are sockets. */
async function socketInodes(pid: number): Promise<{ fds: number; inodes: Set<string> }> {
  const inodes = new Set<string>()
  const fds = await readdir(`/proc/${pid}/fd`)
  for (const fd of fds) {
    // A descriptor closed between readdir and readlink is simply not counted as a socket.
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')
    const m = /^socket:\[(\d+)\]$/.exec(target)
    if (m?.[1] !== undefined) inodes.add(m[1])
  }
  return { fds: fds.length, inodes }
}

/** The TCP ports process `pid` listens on (IPv4 and IPv6), ascending. */
export async function listeningPorts(pid: number): Promise<number[]> {
  const { inodes } = await socketInodes(pid)
  const ports = new Set<number>()
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(table, 'utf8').catch(() => '')
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/)
      const [local, st, inode] = [cols[1], cols[3], cols[9]]
      if (local === undefined || st !== '0A' || inode === undefined || !inodes.has(inode)) continue
      ports.add(parseInt(local.slice(local.lastIndexOf(':') + 1), 16))
    }
  }
  return [...ports].sort((a, b) => a - b)
}

/** The descriptors of process `pid` and the states of its TCP sockets (IPv4 and IPv6). */
export async function socketStats(pid: number): Promise<SocketStats> {
  const { fds, inodes } = await socketInodes(pid)
  const tcp: Record<string, number> = {}
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(table, 'utf8').catch(() => '')
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ...
      const cols = line.trim().split(/\s+/)
      const [st, inode] = [cols[3], cols[9]]
      if (st === undefined || inode === undefined || !inodes.has(inode)) continue
      const name = TCP_STATES[st] ?? st
      tcp[name] = (tcp[name] ?? 0) + 1
    }
  }
  return { fds, closeWait: tcp['CLOSE_WAIT'] ?? 0, tcp }
}
