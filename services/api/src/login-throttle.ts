/**
 * Login rate limits, per account (email) and per client address, counted in the
 * Cache (Redis in Kafka mode), so every API replica shares them. Windows are fixed
 * and aligned to the clock: a counter's key names its window, so an atomic
 * increment-with-expiry is all it takes and Retry-After is the rest of the window.
 * Every attempt counts when it starts (concurrent guesses cannot slip past the limit);
 * a success then clears the account and takes its attempt back from the address.
 */
import { createHash } from 'node:crypto'
import type { Cache } from '@svc/shared/cache/types'
import type { Config } from '@svc/shared/config'

export interface LoginLimits {
  maxFailuresPerAccount: number
  maxFailuresPerAddress: number
  windowSeconds: number
}

export const loginLimitsFrom = (config: Config): LoginLimits => ({
  maxFailuresPerAccount: config.SVC_LOGIN_MAX_FAILURES_PER_ACCOUNT,
  maxFailuresPerAddress: config.SVC_LOGIN_MAX_FAILURES_PER_ADDRESS,
  windowSeconds: config.SVC_LOGIN_WINDOW_SECONDS,
})

/** The clock-aligned window holding `nowMs`, and the whole seconds left in it (at least 1). */
export function windowOf(nowMs: number, windowSeconds: number): { index: number; retryAfterSeconds: number } {
  const ms = windowSeconds * 1000
  const index = Math.floor(nowMs / ms)
  return { index, retryAfterSeconds: Math.max(1, Math.ceil(((index + 1) * ms - nowMs) / 1000)) }
}

export interface LoginAttempt {
  keys: { account: string; address: string }
  /** Over a limit: wait this long (the attempt must not be checked). */
  retryAfterSeconds: number | null
}

export function loginThrottle(cache: Cache, limits: LoginLimits, now: () => number = Date.now) {
  const ttlMs = limits.windowSeconds * 1000
  return {
    async attempt(email: string, address: string): Promise<LoginAttempt> {
      const w = windowOf(now(), limits.windowSeconds)
      // Hashed: no address book in the cache, and a bounded key whatever was typed.
      const account = createHash('sha256').update(email.trim().toLowerCase()).digest('hex')
      const keys = { account: `svc:login:account:${account}:${w.index}`, address: `svc:login:address:${address.slice(0, 100)}:${w.index}` }
      const [byAccount, byAddress] = await Promise.all([cache.incrBy(keys.account, 1, ttlMs), cache.incrBy(keys.address, 1, ttlMs)])
      const over = byAccount > limits.maxFailuresPerAccount || byAddress > limits.maxFailuresPerAddress
      return { keys, retryAfterSeconds: over ? w.retryAfterSeconds : null }
    },
    async succeeded({ keys }: LoginAttempt): Promise<void> {
      await Promise.all([cache.del(keys.account), cache.incrBy(keys.address, -1)])
    },
  }
}
