// The durability floor of a write: how many synced commits per second one writer can reach on this disk,
// appending a put-sized record and fdatasync-ing it before the next, for --seconds each, in the temp dir
// the servers' data dirs are made in:
//   growing       the file grows with every record, as LevelDB's log does (etcdlite's store), so each
//                 sync also commits the file's new size;
//   preallocated  the records overwrite a file written full of zeros and synced beforehand, as etcd's WAL
//                 writes into a preallocated segment, so each sync has only the data to flush.
// A server with one client in flight waits for one such sync per put: this is put-1's ceiling.
// Prints one JSON line each:  node build/bench/ceiling/sync-floor.js [--seconds 2] [--round 1]
import { closeSync, fdatasyncSync, fsyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { numberArg } from '../../test/helpers/args.js'
import type { SyncFloorRecord } from '../lib/records.js'

/** A put of the tool's (8-byte key, 256-byte value) with its log framing and revision: about this size. */
const RECORD_BYTES = 320
/** etcd's WAL segment size. */
const SEGMENT_BYTES = 64 * 1024 * 1024

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '2' }, round: { type: 'string', default: '1' } } })
const seconds = numberArg('--seconds', values.seconds, 0.01)
const round = Math.floor(numberArg('--round', values.round, 1))

function measure(file: SyncFloorRecord['file'], path: string): number {
  const fd = openSync(path, file === 'growing' ? 'a' : 'r+')
  const record = Buffer.alloc(RECORD_BYTES, 0x61)
  let n = 0
  const t0 = performance.now()
  const end = t0 + seconds * 1000
  try {
    for (; performance.now() < end; n++) {
      if (file === 'growing') writeSync(fd, record)
      else writeSync(fd, record, 0, RECORD_BYTES, (n * RECORD_BYTES) % (SEGMENT_BYTES - RECORD_BYTES))
      fdatasyncSync(fd)
    }
  } finally {
    closeSync(fd)
  }
  return n / ((performance.now() - t0) / 1000)
}

const dir = mkdtempSync(join(tmpdir(), 'sync-floor-'))
try {
  const segment = join(dir, 'segment')
  const fd = openSync(segment, 'w')
  const zeros = Buffer.alloc(1024 * 1024)
  for (let i = 0; i < SEGMENT_BYTES / zeros.length; i++) writeSync(fd, zeros)
  fsyncSync(fd)
  closeSync(fd)
  for (const [file, path] of [['growing', join(dir, 'log')], ['preallocated', segment]] as const) {
    const rec: SyncFloorRecord = { type: 'sync-floor', round, file, recordBytes: RECORD_BYTES, syncsPerSec: measure(file, path) }
    process.stdout.write(`${JSON.stringify(rec)}\n`)
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
