// The floors under etcdlite's start-up time and idle memory, each started by bench/run.ts as its own process
// in the same alternation as the two servers. `node`: an empty Node process, which prints "ready" at once.
// `libs`: what every etcdlite server loads before it can serve, and no more: grpc-js and classic-level
// imported, a LevelDB database opened in a temporary directory, a grpc-js server bound on a loopback port;
// then "ready". Either process then idles until it is killed, so that its resident memory can be read.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const mode = process.argv[2]
if (mode !== 'node' && mode !== 'libs') throw new TypeError(`startup-floor: mode must be node or libs, not ${String(mode)}`)
let cleanup = (): void => undefined
if (mode === 'libs') {
  const [grpc, { ClassicLevel }] = await Promise.all([import('@grpc/grpc-js'), import('classic-level')])
  const dir = mkdtempSync(join(tmpdir(), 'startup-floor-'))
  const db = new ClassicLevel(join(dir, 'db'))
  await db.open()
  const server = new grpc.Server()
  await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => (err === null ? resolve(port) : reject(err))))
  cleanup = () => {
    server.forceShutdown()
    rmSync(dir, { recursive: true, force: true })
  }
}
process.stdout.write('ready\n')
process.once('SIGTERM', () => {
  cleanup()
  process.exit(0)
})
setInterval(() => undefined, 60_000)
