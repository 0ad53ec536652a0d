// The scalar mappings every protobuf <-> domain converter (convert-<service>.ts) shares. Converters take and
// give proto-loader's objects: the server's direction reads requests and builds responses, the client's
// (connect()) builds requests and reads responses. int64 fields arrive as decimal strings (LOADER_OPTIONS
// longs: String) and become numbers: revisions, versions, counts and limits are safe integers in practice
// and the conversion is monotone, so out-of-range inputs still order and fail as in etcd. IDs become bigint.
// The enums' numbers are wire/enums.ts's, shared with the hand-written codecs.

export const num = (s: string | undefined): number => (s === undefined || s === '' ? 0 : Number(s))
export const big = (s: string | undefined): bigint => (s === undefined || s === '' ? 0n : BigInt(s))
/** uint64 IDs: protobufjs hands them over as unsigned decimal strings. */
export const u64 = (s: string | undefined): bigint => BigInt.asUintN(64, big(s))

/** Map an enum value protobufjs left numeric (unknown to our proto) or named, onto the domain union. */
export function enumOf<T extends string>(names: readonly T[], v: string | number, fallback: T): T {
  if (typeof v === 'number') return names[v] ?? fallback
  return (names as readonly string[]).includes(v) ? (v as T) : fallback
}

/** `{ [k]: v }`, or nothing when v is undefined: a field the domain leaves absent stays absent on the wire. */
export function opt<K extends string, V>(k: K, v: V | undefined): { [P in K]?: V } {
  return (v === undefined ? {} : { [k]: v }) as { [P in K]?: V }
}

/** An optional int64 ID as proto-loader takes it (a decimal string). */
export const id = (v: bigint | undefined): string | undefined => v?.toString()

/**
 * A range_end goes on the wire only when it has bytes. The domain reads absent and empty alike (the single
 * key); on the wire etcd tells a range_end sent empty from one not sent, and reads the former as "no upper
 * bound" in a read.
 */
export const rangeEnd = (b: Uint8Array | undefined): { range_end?: Uint8Array } => (b === undefined || b.length === 0 ? {} : { range_end: b })
