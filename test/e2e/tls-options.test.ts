// etcd's further TLS options against the real etcd (3.4, same flags) and etcdlite's listen() with what
// serverTls() makes of the same flags, driven by the real etcdctl and a bare HTTP/2 client:
// - --auto-tls: etcdctl connects with --insecure-skip-tls-verify (etcd's e2e TestCtlV3*ClientAutoTLS) and
//   cannot without; the certificate made is laid out as etcd's, field for field but for the random ones.
// - --client-crl-file and --client-cert-allowed-hostname: the revoked or non-matching client fails as it
//   does against etcd (etcd's e2e TestCtlV3GetRevokedCRL), the others are served.
// - --max-concurrent-streams: the SETTINGS value, and the RST_STREAM codes for streams beyond it, on a
//   plaintext and a TLS port, before and after the client acknowledges the SETTINGS.
// A refused etcdctl fails after its dial timeout with retry warnings whose wording depends on timing, so
// for those only the exit code, stdout and the final `Error:` line are compared.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { X509Certificate } from 'node:crypto'
import { readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { openEtcd, type Etcd } from '../../src/embed/etcd.js'
import type { ListenOptions } from '../../src/embed/options.js'
import { silentLogger } from '../../src/pkg/logger.js'
import { serverTls, type TlsInfoFlags } from '../../src/pkg/transport/server-tls.js'
import { children, readElement, Tag } from '../../src/pkg/transport/der.js'
import { pemBlocks } from '../../src/pkg/transport/pem.js'
import { createPki, type CertFiles, type Pki } from '../helpers/certs.js'
import { crlRevoking } from '../helpers/crl.js'
import { etcdctl, type CtlResult } from '../helpers/etcdctl.js'
import { etcdServingAddress, haveEtcd, haveEtcdctl, referenceEtcdArgs } from '../helpers/processes.js'
import { RawClient } from '../helpers/raw-http2.js'
import { tempDir } from '../helpers/tmp.js'
import { until } from '../helpers/until.js'

const skipCtl = haveEtcdctl() ? false : 'etcdctl is not on PATH'
const skipEtcd = !haveEtcd() ? 'the reference `etcd` binary is not on PATH' : skipCtl

const NO_FLAGS: TlsInfoFlags = {
  certFile: '', keyFile: '', trustedCaFile: '', clientCertAuth: false, crlFile: '', clientCertFile: '', clientKeyFile: '', autoTls: false, allowedHostnames: [],
}

interface Running {
  readonly endpoint: string
  readonly dataDir: string
  close(): Promise<void>
}

/** The real etcd with one client listener on port 0 and these flags. */
async function startEtcd(scheme: 'http' | 'https', flags: readonly string[]): Promise<Running> {
  const dir = await tempDir('etcd-ref-tlsopt-')
  const proc = spawn('etcd', referenceEtcdArgs(dir.path, flags, scheme), { stdio: ['ignore', 'ignore', 'pipe'] })
  const close = async (): Promise<void> => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGKILL')
      await new Promise((resolve) => proc.once('exit', resolve))
    }
    await dir.remove()
  }
  let tail = ''
  try {
    const endpoint = await new Promise<string>((resolve, reject) => {
      proc.once('exit', (code) => reject(new Error(`etcd exited with ${String(code)}:\n${tail}`)))
      proc.stderr?.setEncoding('utf8')
      let pending = ''
      proc.stderr?.on('data', (d: string) => {
        pending += d
        const lines = pending.split('\n')
        pending = lines.pop() ?? ''
        for (const line of lines) {
          tail = (tail + line + '\n').slice(-4000)
          const at = etcdServingAddress(line, scheme === 'https') ?? etcdServingAddress(line)
          if (at !== undefined) resolve(at)
        }
      })
    })
    return { endpoint, dataDir: dir.path, close }
  } catch (e) {
    await close()
    throw e
  }
}

/** etcdlite with one listener on port 0, its TLS made by serverTls() from the same flags etcd gets. */
async function startEtcdlite(scheme: 'http' | 'https', flags: TlsInfoFlags, extra: Omit<ListenOptions, 'tls' | 'port'> = {}): Promise<Running & { etcd: Etcd }> {
  const dir = await tempDir('etcdlite-tlsopt-')
  const tls = await serverTls(flags, {
    logger: silentLogger, dataDir: dir.path, listenUrls: [`${scheme}://127.0.0.1:0`], validityYears: 1, cipherSuites: [], minVersion: '', maxVersion: '',
  })
  const etcd = await openEtcd({ memory: true })
  const l = await etcd.listen({ port: 0, ...extra, ...(tls === undefined ? {} : { tls }) })
  return {
    etcd,
    endpoint: l.endpoint,
    dataDir: dir.path,
    close: async () => {
      await etcd.close()
      await dir.remove()
    },
  }
}

/** What is compared of an etcdctl run: everything, or for a refused connection the exit code, stdout and the last line. */
function outcome(r: CtlResult, refused: boolean): unknown {
  if (!refused) return r
  return { code: r.code, stdout: r.stdout, last: r.stderr.trim().split('\n').at(-1) }
}

let pki: Pki
let alice: CertFiles
before(async () => {
  pki = await createPki()
  alice = await pki.client('alice')
})
after(async () => {
  await pki.remove()
})

describe('--auto-tls', { skip: skipCtl }, () => {
  const steps: ReadonlyArray<{ name: string; args: readonly string[]; refused?: boolean }> = [
    { name: 'put, not verifying the server', args: ['--insecure-transport=false', '--insecure-skip-tls-verify', 'put', 'k', 'v'] },
    { name: 'get, not verifying the server', args: ['--insecure-transport=false', '--insecure-skip-tls-verify', 'get', 'k'] },
    { name: 'put, verifying the server against the system roots: refused', args: ['--insecure-transport=false', 'put', 'k', 'v'], refused: true },
  ]

  it('etcdctl talks to etcdlite as to etcd', async () => {
    const lite = await startEtcdlite('https', { ...NO_FLAGS, autoTls: true })
    const ref = skipEtcd === false ? await startEtcd('https', ['--auto-tls']) : undefined
    try {
      for (const s of steps) {
        const got = outcome(await etcdctl(`https://${lite.endpoint}`, s.args), s.refused === true)
        if (ref !== undefined) assert.deepEqual(got, outcome(await etcdctl(`https://${ref.endpoint}`, s.args), s.refused === true), s.name)
        else assert.equal((got as { code: number }).code, s.refused === true ? 1 : 0, s.name)
      }
    } finally {
      await Promise.all([lite.close(), ref?.close()])
    }
  })

  it('makes the certificate and key etcd makes, in the same files with the same modes', { skip: skipEtcd }, async () => {
    const lite = await startEtcdlite('https', { ...NO_FLAGS, autoTls: true })
    const ref = await startEtcd('https', ['--auto-tls'])
    try {
      const files = async (dataDir: string): Promise<{ cert: string; key: string; certMode: number; keyMode: number; dirMode: number }> => {
        const dir = join(dataDir, 'fixtures', 'client')
        return {
          cert: await readFile(join(dir, 'cert.pem'), 'latin1'),
          key: await readFile(join(dir, 'key.pem'), 'latin1'),
          certMode: (await stat(join(dir, 'cert.pem'))).mode & 0o777,
          keyMode: (await stat(join(dir, 'key.pem'))).mode & 0o777,
          dirMode: (await stat(dir)).mode & 0o777,
        }
      }
      const [ours, theirs] = await Promise.all([files(lite.dataDir), files(ref.dataDir)])
      assert.deepEqual([ours.certMode, ours.keyMode, ours.dirMode], [theirs.certMode, theirs.keyMode, theirs.dirMode])
      assert.deepEqual(skeleton(ours.cert), skeleton(theirs.cert))
      assert.deepEqual(pemBlocks(ours.key).map((b) => [b.type, b.der.length]), pemBlocks(theirs.key).map((b) => [b.type, b.der.length]))
      const [a, b] = [new X509Certificate(ours.cert), new X509Certificate(theirs.cert)]
      assert.deepEqual([a.subject, a.issuer, a.subjectAltName, a.keyUsage, a.ca], [b.subject, b.issuer, b.subjectAltName, b.keyUsage, b.ca])
      assert.equal(Date.parse(a.validTo) - Date.parse(a.validFrom), Date.parse(b.validTo) - Date.parse(b.validFrom))
    } finally {
      await Promise.all([lite.close(), ref.close()])
    }
  })
})

/**
 * A certificate's DER as a list of [depth, tag, content] with the content only where it does not differ
 * from one certificate to the next (serial, times, public key and signature are random or the clock's).
 */
function skeleton(pem: string): string[] {
  const out: string[] = []
  const walk = (buf: Buffer, depth: number): void => {
    for (const e of children(buf)) {
      const constructed = (e.tag & 0x20) !== 0
      const varies = e.tag === Tag.UTC_TIME || e.tag === Tag.GENERALIZED_TIME || e.tag === Tag.BIT_STRING || (e.tag === Tag.INTEGER && e.content.length > 1)
      out.push(`${depth} ${e.tag.toString(16)}${constructed || varies ? '' : ` ${e.content.toString('hex')}`}`)
      if (constructed) walk(e.content, depth + 1)
    }
  }
  const der = pemBlocks(pem)[0]?.der ?? Buffer.alloc(0)
  walk(readElement(der).raw, 0)
  return out
}

describe('client certificate checks, as etcdctl meets them', { skip: skipEtcd }, () => {
  const base = (): TlsInfoFlags => ({ ...NO_FLAGS, certFile: pki.server.certFile, keyFile: pki.server.keyFile, trustedCaFile: pki.caFile, clientCertAuth: true })
  const etcdFlags = (t: TlsInfoFlags): string[] => [
    '--cert-file', t.certFile, '--key-file', t.keyFile, '--trusted-ca-file', t.trustedCaFile, '--client-cert-auth',
    ...(t.crlFile === '' ? [] : ['--client-crl-file', t.crlFile]),
    ...t.allowedHostnames.flatMap((h) => ['--client-cert-allowed-hostname', h]),
  ]
  const asClient = (c: CertFiles): string[] => ['--cacert', pki.caFile, '--cert', c.certFile, '--key', c.keyFile]

  const compare = async (flags: TlsInfoFlags, cases: ReadonlyArray<{ who: () => CertFiles; refused: boolean }>): Promise<void> => {
    const lite = await startEtcdlite('https', flags)
    const ref = await startEtcd('https', etcdFlags(flags))
    try {
      for (const c of cases) {
        const args = [...asClient(c.who()), 'put', 'k', 'v']
        const [ours, theirs] = [await etcdctl(`https://${lite.endpoint}`, args), await etcdctl(`https://${ref.endpoint}`, args)]
        assert.deepEqual(outcome(ours, c.refused), outcome(theirs, c.refused))
        assert.equal(ours.code, c.refused ? 1 : 0)
      }
    } finally {
      await Promise.all([lite.close(), ref.close()])
    }
  }

  it('--client-crl-file: the revoked client fails as against etcd, the others are served', async () => {
    const crlFile = join(pki.dir, 'e2e.crl')
    await writeFile(crlFile, crlRevoking(alice.cert))
    await compare({ ...base(), crlFile }, [{ who: () => alice, refused: true }, { who: () => pki.server, refused: false }])
  })

  it('--client-cert-allowed-hostname: a certificate that does not match fails as against etcd', async () => {
    await compare({ ...base(), allowedHostnames: ['localhost'] }, [{ who: () => alice, refused: true }, { who: () => pki.server, refused: false }])
  })
})

describe('--max-concurrent-streams, with a client that ignores it', { skip: skipEtcd }, () => {
  /** What a client gets opening three streams on a port limited to two: the SETTINGS value and the reset codes. */
  const probe = async (port: number, ca: string | undefined, ack: boolean): Promise<unknown> => {
    const c = await RawClient.open(port, ca)
    try {
      await c.serverSettings()
      if (ack) c.ack()
      // HEADERS only: to DATA on a stream it refused, Go's net/http2 (etcd's TLS port) answers with a further
      // RST_STREAM(STREAM_CLOSED) per frame, which nghttp2 does not.
      c.open(1, 'watch')
      c.open(3, 'watch')
      c.open(5, 'watch')
      await until(() => c.resets().has(5), 'the third stream reset')
      return { maxStreams: c.setting(3), resets: c.frames.filter((f) => f.type === 3).map((f) => [f.stream, f.payload.readUInt32BE(0)]), goaway: c.goaway() }
    } finally {
      c.close()
    }
  }

  for (const scheme of ['http', 'https'] as const) {
    it(`${scheme}: the same SETTINGS and the same RST_STREAM codes as etcd`, async () => {
      const flags = scheme === 'http' ? NO_FLAGS : { ...NO_FLAGS, certFile: pki.server.certFile, keyFile: pki.server.keyFile }
      const lite = await startEtcdlite(scheme, flags, { maxConcurrentStreams: 2 })
      const ref = await startEtcd(scheme, ['--max-concurrent-streams', '2', ...(scheme === 'http' ? [] : ['--cert-file', flags.certFile, '--key-file', flags.keyFile])])
      const port = (endpoint: string): number => Number(endpoint.slice(endpoint.lastIndexOf(':') + 1))
      const ca = scheme === 'http' ? undefined : pki.ca
      try {
        for (const ack of [false, true]) {
          assert.deepEqual(await probe(port(lite.endpoint), ca, ack), await probe(port(ref.endpoint), ca, ack), `SETTINGS acknowledged: ${String(ack)}`)
        }
      } finally {
        await Promise.all([lite.close(), ref.close()])
      }
    })
  }
})
