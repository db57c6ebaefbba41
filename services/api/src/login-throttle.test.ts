import { describe, expect, it } from 'vitest'
import { createMemoryCache } from '@svc/shared/cache/memory'
import { loginThrottle, windowOf } from './login-throttle.js'

const LIMITS = { maxFailuresPerAccount: 3, maxFailuresPerAddress: 5, windowSeconds: 60 }

describe('windowOf', () => {
  it('names fixed clock-aligned windows and the whole seconds left in one', () => {
    expect(windowOf(120_000, 60)).toEqual({ index: 2, retryAfterSeconds: 60 })
    expect(windowOf(179_001, 60)).toEqual({ index: 2, retryAfterSeconds: 1 })
    expect(windowOf(150_500, 60)).toEqual({ index: 2, retryAfterSeconds: 30 })
  })
})

describe('loginThrottle', () => {
  const at = (ms: number) => () => ms

  it('lets an account fail its limit, then refuses it (from any address) until the window ends', async () => {
    const t = loginThrottle(createMemoryCache(), LIMITS, at(1_000_000))
    for (let i = 0; i < 3; i++) expect((await t.attempt('Ann@x.test', `10.0.0.${i}`)).retryAfterSeconds).toBeNull()
    expect((await t.attempt('ann@x.test', '10.0.0.9')).retryAfterSeconds).toBe(20)
    expect((await t.attempt('bob@x.test', '10.0.0.9')).retryAfterSeconds).toBeNull()
    const later = loginThrottle(createMemoryCache(), LIMITS, at(1_020_000))
    expect((await later.attempt('ann@x.test', '10.0.0.9')).retryAfterSeconds).toBeNull()
  })

  it('refuses an address past its limit whatever the account', async () => {
    const t = loginThrottle(createMemoryCache(), LIMITS, at(0))
    for (let i = 0; i < 5; i++) expect((await t.attempt(`user${i}@x.test`, '192.0.2.1')).retryAfterSeconds).toBeNull()
    expect((await t.attempt('fresh@x.test', '192.0.2.1')).retryAfterSeconds).toBe(60)
    expect((await t.attempt('fresh@x.test', '192.0.2.2')).retryAfterSeconds).toBeNull()
  })

  it('a success resets the account and does not count against the address', async () => {
    const t = loginThrottle(createMemoryCache(), LIMITS, at(0))
    for (let i = 0; i < 2; i++) await t.attempt('ann@x.test', '192.0.2.1')
    await t.succeeded(await t.attempt('ann@x.test', '192.0.2.1'))
    for (let i = 0; i < 3; i++) expect((await t.attempt('ann@x.test', '192.0.2.1')).retryAfterSeconds).toBeNull()
    // 2 + 3 failures: the address is at its limit, not over it (the success did not count).
    expect((await t.attempt('ann@x.test', '192.0.2.1')).retryAfterSeconds).toBe(60)
  })
})
