// Command-line helpers shared by the bench programs.
import { KV_CLIENTS, type LoadParams } from './workloads.js'

/** The number a flag `--name` was given, at least `min`; anything else stops the program with a clear message. */
export function numberArg(name: string, v: string | undefined, min: number): number {
  const n = Number(v)
  if (!Number.isFinite(n) || n < min) throw new Error(`--${name} must be a number ≥ ${min}, got ${String(v)}`)
  return n
}

/** The flags of the load parameters (LoadParams), shared by the runner, the KV client and the RPC ceiling. */
export const LOAD_PARAM_OPTIONS = {
  client: { type: 'string', default: 'grpc-js' },
  seconds: { type: 'string', default: '5' },
  warmup: { type: 'string', default: '1' },
  'key-size': { type: 'string', default: '16' },
  'value-size': { type: 'string', default: '64' },
  'key-space': { type: 'string', default: '100000' },
  serializable: { type: 'boolean', default: false },
} as const

/** The parsed values of LOAD_PARAM_OPTIONS (`seconds` may be left without a default by a caller). */
export interface LoadParamValues {
  readonly client: string
  readonly seconds?: string | undefined
  readonly warmup: string
  readonly 'key-size': string
  readonly 'value-size': string
  readonly 'key-space': string
  readonly serializable: boolean
}

/** LoadParams from the flags, each checked (`seconds` as given, defaulting to 5). */
export function loadParamsOf(values: LoadParamValues): LoadParams {
  const client = KV_CLIENTS.find((c) => c === values.client)
  if (client === undefined) throw new Error(`--client must be one of ${KV_CLIENTS.join(', ')}, got ${values.client}`)
  return {
    client,
    seconds: numberArg('seconds', values.seconds ?? '5', 0.1),
    warmupSeconds: numberArg('warmup', values.warmup, 0),
    keySize: Math.floor(numberArg('key-size', values['key-size'], 2)),
    valueSize: Math.floor(numberArg('value-size', values['value-size'], 0)),
    keySpace: Math.floor(numberArg('key-space', values['key-space'], 1)),
    serializable: values.serializable,
  }
}

/** The flags that hand `p` on to bench/client.js (serializable as the workload asks, else as `p` says). */
export function loadParamArgs(p: LoadParams, serializable = p.serializable): string[] {
  return [
    '--client', p.client, '--seconds', String(p.seconds), '--warmup', String(p.warmupSeconds), '--key-size', String(p.keySize),
    '--value-size', String(p.valueSize), '--key-space', String(p.keySpace), ...(serializable ? ['--serializable'] : []),
  ]
}
