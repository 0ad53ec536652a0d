// The client TLS flags (--cert-file, --key-file, --trusted-ca-file, --client-cert-auth) and https:// URLs:
// what parses, and etcd's errors for what does not (the certificate files are checked as the server starts,
// by serverTls: see e2e/etcd-flags.test.ts).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseArgs } from '../../../src/etcdmain/config.js'
import type { ClientTlsFlags, Config } from '../../../src/etcdmain/server-config.js'

const NO_HOST = { defaultHost: () => ({ error: 'no default host in tests' }) }

async function config(args: readonly string[]): Promise<Config> {
  const r = await parseArgs(args, NO_HOST)
  assert.equal(r.kind, 'run')
  if (r.kind !== 'run') throw new Error('unreachable')
  return r.config
}

const CERT = ['--cert-file', '/c.pem', '--key-file', '/k.pem']

/** The client TLS settings these flags leave at their defaults. */
const tls = (t: Pick<ClientTlsFlags, 'certFile' | 'keyFile' | 'trustedCaFile' | 'clientCertAuth'>): ClientTlsFlags => ({
  ...t, crlFile: '', clientCertFile: '', clientKeyFile: '', autoTls: false, allowedHostnames: [],
})

describe('client TLS flags', () => {
  const ok: ReadonlyArray<{ name: string; args: readonly string[]; want: Pick<Config, 'clientTls'> & { secure: readonly boolean[] } }> = [
    {
      name: 'defaults: plaintext, no TLS files',
      args: [],
      want: { secure: [false], clientTls: tls({ certFile: '', keyFile: '', trustedCaFile: '', clientCertAuth: false }) },
    },
    {
      name: 'an https:// URL with --cert-file and --key-file',
      args: ['--listen-client-urls', 'https://127.0.0.1:2379', ...CERT],
      want: { secure: [true], clientTls: tls({ certFile: '/c.pem', keyFile: '/k.pem', trustedCaFile: '', clientCertAuth: false }) },
    },
    {
      name: 'mutual TLS: --trusted-ca-file and --client-cert-auth',
      args: ['--listen-client-urls=https://127.0.0.1:2379', ...CERT, '--trusted-ca-file', '/ca.pem', '--client-cert-auth'],
      want: { secure: [true], clientTls: tls({ certFile: '/c.pem', keyFile: '/k.pem', trustedCaFile: '/ca.pem', clientCertAuth: true }) },
    },
    {
      name: 'http:// and https:// listeners side by side',
      args: ['--listen-client-urls', 'http://127.0.0.1:2379,https://127.0.0.1:2380', ...CERT],
      want: { secure: [false, true], clientTls: tls({ certFile: '/c.pem', keyFile: '/k.pem', trustedCaFile: '', clientCertAuth: false }) },
    },
    {
      // etcd only warns: an http:// URL ignores the TLS flags.
      name: 'http:// URLs with TLS flags (ignored, as etcd does)',
      args: [...CERT, '--client-cert-auth'],
      want: { secure: [false], clientTls: tls({ certFile: '/c.pem', keyFile: '/k.pem', trustedCaFile: '', clientCertAuth: true }) },
    },
    {
      name: '--client-cert-auth without --trusted-ca-file (etcd verifies against the system roots)',
      args: ['--listen-client-urls', 'https://127.0.0.1:2379', ...CERT, '--client-cert-auth=true'],
      want: { secure: [true], clientTls: tls({ certFile: '/c.pem', keyFile: '/k.pem', trustedCaFile: '', clientCertAuth: true }) },
    },
  ]
  for (const c of ok) {
    it(c.name, async () => {
      const cfg = await config(c.args)
      assert.deepEqual({ secure: cfg.listenClientUrls.map((u) => u.secure), clientTls: cfg.clientTls }, c.want)
    })
  }

  const bad: ReadonlyArray<{ name: string; args: readonly string[]; error: string; message: string }> = [
    {
      name: 'an https:// metrics URL (metrics listeners are plaintext)',
      args: ['--listen-metrics-urls', 'https://127.0.0.1:2381', ...CERT],
      error: 'StartError',
      message: 'etcdlite cannot listen on https://127.0.0.1:2381 (--listen-metrics-urls): it serves http:// URLs only',
    },
    {
      name: 'a unix socket (etcd takes it; etcdlite listens on TCP only)',
      args: ['--listen-client-urls', 'unixs://x:1', '--advertise-client-urls', 'http://127.0.0.1:2379'],
      error: 'StartError',
      message: 'etcdlite cannot listen on unixs://x:1 (--listen-client-urls): it serves http:// and https:// URLs only',
    },
    {
      name: 'a --client-cert-auth that is not a boolean',
      args: ['--client-cert-auth=maybe'],
      error: 'FlagParseError',
      message: 'invalid boolean value "maybe" for -client-cert-auth: parse error',
    },
  ]
  for (const c of bad) {
    it(`refused: ${c.name}`, async () => {
      await assert.rejects(parseArgs(c.args, NO_HOST), { name: c.error, message: c.message })
    })
  }

  it('--advertise-client-urls takes https:// URLs, sorted as etcd sorts them', async () => {
    assert.deepEqual((await config(['--advertise-client-urls', 'https://node1.example:2379,http://node1.example:2380'])).advertiseClientUrls, [
      'http://node1.example:2380',
      'https://node1.example:2379',
    ])
  })
})
