// Patroni (Debian's patroni, etcd3 DCS over the JSON gateway) manages three PostgreSQL instances on one
// etcdlite: bootstrap with a leader race, replication, a patronictl switchover and a failover after the
// leader's Patroni is killed (scenario.ts; about a minute). `npm run test:patroni -- --etcd /usr/bin/etcd`
// runs the same scenario against the real etcd.
import { it } from 'node:test'
import { spawnSync } from 'node:child_process'
import { startEtcdliteProcess } from '../helpers/processes.js'
import { postgresBinDir } from './config.js'
import { runScenario } from './scenario.js'

const havePatroni = spawnSync('patroni', ['--version'], { stdio: 'ignore' }).status === 0
const skip = !havePatroni ? 'patroni is not on PATH (Debian package patroni)' : postgresBinDir() === undefined ? 'no PostgreSQL server under /usr/lib/postgresql (Debian package postgresql)' : false

it('Patroni keeps a PostgreSQL cluster on etcdlite through bootstrap, switchover and failover', { skip, timeout: 600_000 }, async (t) => {
  const server = await startEtcdliteProcess({ memory: true })
  try {
    await runScenario(server.endpoint, { size: 3, log: (line) => t.diagnostic(line) })
  } finally {
    await server.dispose()
  }
})
