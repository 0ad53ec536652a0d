// A watch client process that stalls: `node stalled-watch-client.js <endpoint> <streams> <watchers per
// stream> <flow-control window bytes>`. It opens the Watch streams on one grpc-js connection that advertises
// the given HTTP/2 window (grpc-go grows its windows to 16 MiB), creates the watchers on the prefix s/,
// prints "ready" once every create is answered, and from then on reads nothing: each call is paused, so
// grpc-js stops reading its HTTP/2 stream and the server can send only until the window is used up. It runs
// until killed (the soak script and the dead-watch-client test SIGKILL it).
import * as grpc from '@grpc/grpc-js'
import { loadEtcdProto } from '../../src/grpc/proto.js'
import { prefixEnd, type WatchClient } from './lib.js'

const [endpoint, streamsArg = '10', perArg = '10', windowArg = String(16 * 1024 * 1024)] = process.argv.slice(2)
if (endpoint === undefined) throw new Error('usage: stalled-watch-client <endpoint> [streams] [watchers per stream] [window bytes]')
const streams = Number(streamsArg)
const per = Number(perArg)
const proto = loadEtcdProto()
const client = new proto.etcdserverpb.Watch(endpoint, grpc.credentials.createInsecure(), {
  'grpc.use_local_subchannel_pool': 1,
  'grpc.max_receive_message_length': -1,
  'grpc-node.flow_control_window': Number(windowArg),
}) as WatchClient
const prefix = Buffer.from('s/')
let created = 0
for (let s = 0; s < streams; s++) {
  const call = client.Watch()
  call.on('error', () => undefined)
  let mine = 0
  call.on('data', (d: { created?: boolean }) => {
    if (d.created !== true) return
    created++
    // Stop reading once this stream's creates are in: everything after is left unread.
    if (++mine === per) call.pause()
    if (created === streams * per) process.stdout.write('ready\n')
  })
  for (let i = 0; i < per; i++) call.write({ create_request: { key: prefix, range_end: prefixEnd(prefix) } })
}
// Keep the process alive until it is killed.
setInterval(() => undefined, 60_000)
