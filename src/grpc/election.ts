// The Election service (etcd's v3election): Campaign waits for leadership and Observe streams leaders;
// both end on the client's cancel (or deadline) and on server shutdown. Observe writes with backpressure.
import { once } from 'node:events'
import type { ServiceDefinition, UntypedServiceImplementation } from '@grpc/grpc-js'
import type { EtcdServer } from '../etcdserver/etcd-server.js'
import { ElectionServer } from '../etcdserver/v3election.js'
import { asCaller } from '../etcdserver/concurrency.js'
import { credentialsOf } from './interceptor.js'
import type { ElectionHandlers } from './generated/v3electionpb/Election.js'
import {
  toDomainCampaign, toDomainLeader, toDomainProclaim, toDomainResign, toPbCampaignResponse, toPbLeaderResponse,
  toPbProclaimResponse, toPbResignResponse,
} from './convert-concurrency.js'
import { reply, replyLong, toConcurrencyServiceError, withCallSignal } from './concurrency-call.js'
import type { ErrorReporter } from './status.js'
import type { WatchCalls } from './watch.js'

/** `calls`: the server's long-lived calls, so shutdown ends waiting Campaigns and open Observes. */
export function electionHandlers(def: ServiceDefinition, server: EtcdServer, report: ErrorReporter, calls?: WatchCalls): UntypedServiceImplementation {
  void def
  // Each call acts with its caller's credentials (v3election runs as the client that called it).
  const elections = (call: Parameters<typeof credentialsOf>[0]): ElectionServer => new ElectionServer(asCaller(server, credentialsOf(call)))
  const handlers: ElectionHandlers = {
    Campaign(call, cb) {
      replyLong(call, cb, calls, report, (signal) => elections(call).campaign(toDomainCampaign(call.request), { signal }).then(toPbCampaignResponse))
    },
    Proclaim(call, cb) {
      reply(cb, report, () => elections(call).proclaim(toDomainProclaim(call.request)).then(toPbProclaimResponse))
    },
    Leader(call, cb) {
      reply(cb, report, () => toPbLeaderResponse(elections(call).leader(toDomainLeader(call.request))))
    },
    Resign(call, cb) {
      reply(cb, report, () => elections(call).resign(toDomainResign(call.request)).then(toPbResignResponse))
    },
    Observe(call) {
      withCallSignal(call, calls, (signal, done) => {
        const run = async (): Promise<void> => {
          for await (const resp of elections(call).observe(toDomainLeader(call.request), { signal })) {
            if (!call.write(toPbLeaderResponse(resp))) await once(call, 'drain', { signal })
          }
        }
        run().then(
          () => {
            done()
            call.end()
          },
          (err: unknown) => {
            done()
            // A client that canceled reads nothing more.
            if (!call.cancelled) call.emit('error', toConcurrencyServiceError(signal.aborted ? signal.reason : err, report))
          },
        )
      })
    },
  }
  return handlers
}
