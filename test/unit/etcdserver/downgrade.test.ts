// src/etcdserver/downgrade.ts: go-semver's parsing and etcd's convertToClusterVersion, the stored info's
// encoding (etcd's JSON), and the Downgrade call through the embedded API: the cluster version it answers
// for other reported versions, ENABLE's wait ended by the caller or by close(), and the info carried
// through a snapshot and a restore.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Etcd, openEtcd } from '../../../src/embed/etcd.js'
import {
  allowedDowngradeVersion, decodeDowngradeInfo, encodeDowngradeInfo, parseSemVer, toClusterVersion,
} from '../../../src/etcdserver/downgrade.js'
import { isEtcdError } from '../../../src/pkg/errors.js'
import { tempDir } from '../../helpers/tmp.js'

describe('parseSemVer (coreos/go-semver NewVersion)', () => {
  const cases: readonly (readonly [string, string | undefined])[] = [
    ['3.4.0', '3.4.0'],
    ['3.4.23-rc.1+build.7', '3.4.23-rc.1'],
    ['007.1.2', '7.1.2'],
    ['3.4.0+', '3.4.0'],
    ['3.4.0-', '3.4.0'],
    ['3.4.0-a-b', '3.4.0-a-b'],
    ['9223372036854775807.0.0', '9223372036854775807.0.0'],
    ['9223372036854775808.0.0', undefined],
    ['3.4', undefined],
    ['3.4.0.1', undefined],
    ['3..0', undefined],
    ['3.4.0-rc..1', undefined],
    ['3.4.0+b_1', undefined],
    ['+3.4.0', undefined],
    ['3.4.+0', undefined],
    ['3.4. 0', undefined],
    ['', undefined],
  ]
  for (const [input, want] of cases) {
    it(`${JSON.stringify(input)} -> ${want ?? 'error'}`, () => {
      const v = parseSemVer(input)
      assert.equal(v === undefined ? undefined : `${v.major}.${v.minor}.${v.patch}${v.preRelease === '' ? '' : `-${v.preRelease}`}`, want)
    })
  }
})

describe('toClusterVersion (etcd convertToClusterVersion) and allowedDowngradeVersion', () => {
  const cases: readonly (readonly [string, string])[] = [
    ['3.4', '3.4'],
    ['3.4.9', '3.4'],
    ['3.4.0-rc.0', '3.4'],
    ['10.20', '10.20'],
    ['3', 'WRONG_DOWNGRADE_VERSION_FORMAT'],
    ['3.4-rc', 'WRONG_DOWNGRADE_VERSION_FORMAT'],
    ['3.4+m', 'WRONG_DOWNGRADE_VERSION_FORMAT'],
    ['v3.4', 'WRONG_DOWNGRADE_VERSION_FORMAT'],
  ]
  for (const [input, want] of cases) {
    it(`${JSON.stringify(input)} -> ${want}`, () => {
      let got: string
      try {
        const v = toClusterVersion(input)
        got = `${v.major}.${v.minor}`
      } catch (e) {
        got = isEtcdError(e) ? e.code : String(e)
      }
      assert.equal(got, want)
    })
  }
  it('the allowed target is one minor below, even below zero (etcd does not guard it)', () => {
    assert.deepEqual(allowedDowngradeVersion({ major: 3n, minor: 5n }), { major: 3n, minor: 4n })
    assert.deepEqual(allowedDowngradeVersion({ major: 4n, minor: 0n }), { major: 4n, minor: -1n })
  })
})

describe('the stored downgrade info', () => {
  it("is etcd's encoding/json of membership.DowngradeInfo", () => {
    assert.equal(Buffer.from(encodeDowngradeInfo({ enabled: true, targetVersion: '3.4.0' })).toString(), '{"target-version":"3.4.0","enabled":true}')
    assert.equal(Buffer.from(encodeDowngradeInfo({ enabled: false, targetVersion: '' })).toString(), '{"target-version":"","enabled":false}')
  })
  it('reads back what etcd writes, and refuses what etcd panics on', () => {
    assert.deepEqual(decodeDowngradeInfo(Buffer.from('{"enabled":true,"target-version":"3.4.0"}')), { enabled: true, targetVersion: '3.4.0' })
    assert.deepEqual(decodeDowngradeInfo(Buffer.from('{}')), { enabled: false, targetVersion: '' })
    assert.throws(() => decodeDowngradeInfo(Buffer.from('{"enabled":true,"target-version":"3.4"}')), /unexpected version format/)
    assert.throws(() => decodeDowngradeInfo(Buffer.from('nope')))
    assert.throws(() => decodeDowngradeInfo(Buffer.from('null')), /failed to unmarshal/)
  })
})

const code = (e: unknown): string => (isEtcdError(e) ? e.code : e instanceof Error ? `${e.name}: ${e.message}` : String(e))

async function outcome(p: Promise<{ version: string }>): Promise<string> {
  try {
    return `ok ${(await p).version}`
  } catch (e) {
    return code(e)
  }
}

describe('Etcd.downgrade', () => {
  const byVersion: readonly (readonly [string, string, string])[] = [
    ['3.5.17', '3.4', 'ok 3.5.0'],
    ['3.4.23', '3.3', 'ok 3.4.0'],
    ['3.4.23', '3.4', 'INVALID_DOWNGRADE_TARGET_VERSION'],
    ['3.6.0-rc.1', '3.5.17', 'ok 3.6.0'],
    ['etcd', '3.4', 'CLUSTER_VERSION_UNAVAILABLE'],
  ]
  for (const [etcdVersion, target, want] of byVersion) {
    it(`a server reporting ${etcdVersion}: validate ${target} -> ${want}`, async () => {
      await using etcd = await openEtcd({ memory: true, etcdVersion })
      assert.equal(await outcome(etcd.downgrade({ version: target })), want)
    })
  }

  it('takes action names only, and checks its arguments', async () => {
    await using etcd = await openEtcd({ memory: true })
    await assert.rejects(etcd.downgrade({ action: 'DOWNGRADE' as 'ENABLE', version: '3.4' }), TypeError)
    await assert.rejects(etcd.downgrade({ version: 3.4 as unknown as string }), TypeError)
  })

  it('ENABLE takes effect and answers with the cluster version, as etcd 3.6 does (3.5 times out)', async () => {
    await using etcd = await openEtcd({ memory: true })
    const rev = (await etcd.status()).raftIndex
    assert.equal(await outcome(etcd.downgrade({ action: 'ENABLE', version: '3.4' })), 'ok 3.5.0')
    assert.equal(await outcome(etcd.downgrade({ version: '3.4' })), 'DOWNGRADE_IN_PROCESS')
    assert.equal(await outcome(etcd.downgrade({ action: 'ENABLE', version: '3.4' })), 'DOWNGRADE_IN_PROCESS')
    assert.deepEqual(etcd.server.maintenance.downgradeInfo(), { enabled: true, targetVersion: '3.4.0' })
    assert.equal((await etcd.status()).raftIndex, rev + 1, 'an applied request, as a raft entry')
  })

  it('CANCEL ends it, and the cancel stands after a restart', async () => {
    const dir = await tempDir('etcdlite-downgrade-')
    try {
      const dataDir = join(dir.path, 'd')
      {
        await using etcd = await openEtcd({ dataDir })
        assert.equal(await outcome(etcd.downgrade({ action: 'ENABLE', version: '3.4.5' })), 'ok 3.5.0')
        assert.equal(await outcome(etcd.downgrade({ action: 'CANCEL' })), 'ok 3.5.0')
      }
      await using etcd = await openEtcd({ dataDir })
      assert.deepEqual(etcd.server.maintenance.downgradeInfo(), { enabled: false, targetVersion: '' })
      assert.equal(await outcome(etcd.downgrade({ action: 'CANCEL' })), 'NO_INFLIGHT_DOWNGRADE')
      assert.equal(await outcome(etcd.downgrade({ version: '3.4' })), 'ok 3.5.0')
    } finally {
      await dir.remove()
    }
  })

  it('a snapshot carries an enabled downgrade, and a restore keeps it', async () => {
    const dir = await tempDir('etcdlite-downgrade-')
    try {
      const file = join(dir.path, 'snap.db')
      {
        await using etcd = await openEtcd({ memory: true })
        assert.equal(await outcome(etcd.downgrade({ action: 'ENABLE', version: '3.4' })), 'ok 3.5.0')
        const chunks: Uint8Array[] = []
        for await (const c of etcd.snapshot()) chunks.push(c)
        await writeFile(file, Buffer.concat(chunks))
        assert.ok(Buffer.concat(chunks).includes('{"target-version":"3.4.0","enabled":true}'))
      }
      await using restored = await openEtcd(await Etcd.restoreSnapshot(file, { memory: true }))
      assert.deepEqual(restored.server.maintenance.downgradeInfo(), { enabled: true, targetVersion: '3.4.0' })
      assert.equal(await outcome(restored.downgrade({ version: '3.4' })), 'DOWNGRADE_IN_PROCESS')
    } finally {
      await dir.remove()
    }
  })
})
