// Mirrors grpc-go's health/server.go (the grpc.health.v1.Health server etcd registers in v3rpc/grpc.go):
// a status per service name, Check answers it or NOT_FOUND "unknown service", Watch streams it. Like
// etcd, only "" (the server as a whole) is registered, as SERVING.
import {
  status, Metadata, type ServerUnaryCall, type ServerWritableStream, type sendUnaryData, type UntypedServiceImplementation,
} from '@grpc/grpc-js'

export type ServingStatus = 'UNKNOWN' | 'SERVING' | 'NOT_SERVING' | 'SERVICE_UNKNOWN'

/** grpc.health.v1.HealthCheckRequest as proto-loader gives it (LOADER_OPTIONS: defaults on). */
export interface HealthCheckRequest {
  readonly service: string
}

/** grpc.health.v1.HealthCheckResponse (enums as strings). */
export interface HealthCheckResponse {
  readonly status: ServingStatus
}

interface HealthWatch {
  readonly service: string
  readonly call: ServerWritableStream<HealthCheckRequest, HealthCheckResponse>
  last: ServingStatus | undefined
}

/**
 * The health server of one gRPC server.
 *
 *   SERVING ──shutdown()──▶ NOT_SERVING (every service; later setServingStatus calls are ignored)
 *
 * `isDown` is also consulted on every answer, so a closed EtcdServer reads NOT_SERVING even before the
 * gRPC server is told.
 */
export class HealthService {
  private readonly statuses = new Map<string, ServingStatus>([['', 'SERVING']])
  private readonly watches = new Set<HealthWatch>()
  private readonly isDown: () => boolean
  private down = false

  constructor(isDown: () => boolean = () => false) {
    this.isDown = isDown
  }

  /** Set a service's status (grpc-go SetServingStatus); ignored after shutdown(). Watchers hear the change. */
  setServingStatus(service: string, s: ServingStatus): void {
    if (this.down) return
    this.statuses.set(service, s)
    this.notify()
  }

  /** The status Check answers; undefined for an unregistered service. */
  statusOf(service: string): ServingStatus | undefined {
    const s = this.statuses.get(service)
    if (s === undefined) return undefined
    return this.down || this.isDown() ? 'NOT_SERVING' : s
  }

  /**
   * Server shutdown: every service becomes NOT_SERVING (grpc-go Shutdown), open Watch calls hear it and
   * then end with OK, so a graceful stop does not wait on them.
   */
  shutdown(): void {
    if (this.down) return
    this.down = true
    this.notify()
    for (const w of [...this.watches]) {
      this.watches.delete(w)
      w.call.end()
    }
  }

  handlers(): UntypedServiceImplementation {
    const check = (call: ServerUnaryCall<HealthCheckRequest, HealthCheckResponse>, cb: sendUnaryData<HealthCheckResponse>): void => {
      const s = this.statusOf(call.request.service)
      if (s === undefined) {
        cb({ code: status.NOT_FOUND, details: 'unknown service', metadata: new Metadata() })
        return
      }
      cb(null, { status: s })
    }
    const watch = (call: ServerWritableStream<HealthCheckRequest, HealthCheckResponse>): void => {
      if (this.down) {
        call.write({ status: this.statusOf(call.request.service) ?? 'SERVICE_UNKNOWN' })
        call.end()
        return
      }
      const w: HealthWatch = { service: call.request.service, call, last: undefined }
      this.watches.add(w)
      const drop = (): void => {
        this.watches.delete(w)
      }
      call.on('cancelled', drop)
      call.on('close', drop)
      call.on('error', drop)
      this.send(w)
    }
    return { Check: check, Watch: watch }
  }

  private notify(): void {
    for (const w of this.watches) this.send(w)
  }

  /** Write the watched status if it changed since the last write (grpc-go sends only changes). */
  private send(w: HealthWatch): void {
    const s = this.statusOf(w.service) ?? 'SERVICE_UNKNOWN'
    if (s === w.last) return
    w.last = s
    w.call.write({ status: s })
  }
}
