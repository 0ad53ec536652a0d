// Command-line helpers shared by the bench programs and the soak (test/stress/soak.ts).

/** The number `flag` was given, at least `min`; anything else throws a message naming the flag. */
export function numberArg(flag: string, v: string | undefined, min: number): number {
  const n = Number(v)
  if (v === undefined || v.trim() === '' || !Number.isFinite(n) || n < min) throw new Error(`${flag} must be a number ≥ ${min}, got ${String(v)}`)
  return n
}
