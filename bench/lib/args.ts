// Command-line helpers shared by the bench programs.

/** The number a flag `--name` was given, at least `min`; anything else stops the program with a clear message. */
export function numberArg(name: string, v: string | undefined, min: number): number {
  const n = Number(v)
  if (!Number.isFinite(n) || n < min) throw new Error(`--${name} must be a number ≥ ${min}, got ${String(v)}`)
  return n
}
