import { limitConcurrency } from '../concurrency.js'
import { DEFAULT_SCRYPT, hashPassword, needsRehash, randomToken, verifyPassword, type ScryptParams } from './secrets.js'

/** Password hashing as a login and an invitation need it, at one cost. */
export interface PasswordHasher {
  readonly params: ScryptParams
  hash(password: string): Promise<string>
  /**
   * Whether the password matches the stored hash. With no stored hash (an unknown
   * account, or one without a password) it verifies against a dummy hash of the same
   * cost and answers false, so a login takes as long whether or not the account exists.
   */
  verify(password: string, stored: string | null): Promise<boolean>
  /** The stored hash was made with other parameters: a successful login replaces it. */
  needsRehash(stored: string): boolean
}

/** At most this many hashes at once per process: each holds 128·N·r bytes (128 MiB at the default cost). */
const CONCURRENT_HASHES = 2

export function passwordHasher(params: ScryptParams = DEFAULT_SCRYPT, opts: { verify?: typeof verifyPassword } = {}): PasswordHasher {
  const check = opts.verify ?? verifyPassword
  const slot = limitConcurrency(CONCURRENT_HASHES)
  let dummy: Promise<string> | undefined
  return {
    params,
    hash: (password) => slot(() => hashPassword(password, params)),
    async verify(password, stored) {
      if (stored !== null) return slot(() => check(password, stored))
      dummy ??= slot(() => hashPassword(randomToken(24), params))
      const against = await dummy
      await slot(() => check(password, against))
      return false
    },
    needsRehash: (stored) => needsRehash(stored, params),
  }
}
