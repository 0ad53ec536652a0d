// Passwords as etcd keeps them: bcrypt hashes in the "$2a$" form Go's bcrypt writes (bcryptjs writes
// "$2b$" for the same algorithm). bcryptjs is pure JavaScript, so it installs on every platform, and its
// async calls work in slices between other callbacks: a check (tens of ms at cost 10) never holds the event
// loop for long. It loads with the first password hashed or checked, not with the store.

/** golang.org/x/crypto/bcrypt's MinCost, MaxCost and DefaultCost. */
export const BCRYPT_MIN_COST = 4
export const BCRYPT_MAX_COST = 31
export const BCRYPT_DEFAULT_COST = 10

/** The cost etcd's NewAuthStore uses for --bcrypt-cost: outside MinCost..MaxCost, the default. */
export function bcryptCostOrDefault(cost: number): number {
  return Number.isInteger(cost) && cost >= BCRYPT_MIN_COST && cost <= BCRYPT_MAX_COST ? cost : BCRYPT_DEFAULT_COST
}

/** bcrypt.GenerateFromPassword: a new salted hash of `password` at `cost`. */
export async function hashPassword(password: string, cost: number): Promise<string> {
  const { genSalt, hash } = await import('bcryptjs')
  const salt = (await genSalt(cost)).replace(/^\$2b\$/, '$2a$')
  return hash(password, salt)
}

/** bcrypt.CompareHashAndPassword succeeds; a malformed hash is a mismatch. */
export async function passwordMatches(password: string, hashed: string): Promise<boolean> {
  const { compare } = await import('bcryptjs')
  return compare(password, hashed).catch(() => false)
}
