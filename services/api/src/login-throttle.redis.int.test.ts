/** Two API replicas, each with its own Redis client, share one set of login counters. */
import { randomUUID } from 'node:crypto'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { createRedisCache } from '@svc/shared/cache/redis'
import type { Cache } from '@svc/shared/cache/types'
import { createLogger } from '@svc/shared/log'
import { loginThrottle } from './login-throttle.js'

const caches: Cache[] = []
afterAll(async () => {
  for (const c of caches) await c.close()
})

describe('login limits on Redis', () => {
  it('count attempts made through either replica against the same limit', async () => {
    const limits = { maxFailuresPerAccount: 4, maxFailuresPerAddress: 1000, windowSeconds: 900 }
    const replica = async () => {
      const cache = await createRedisCache(inject('redisUrl'), createLogger({ level: 'silent' }))
      caches.push(cache)
      return loginThrottle(cache, limits)
    }
    const [a, b] = [await replica(), await replica()]
    const email = `${randomUUID()}@replicas.test`
    const results = await Promise.all([a, b, a, b].map((t, i) => t.attempt(email, `198.51.100.${i}`)))
    expect(results.map((r) => r.retryAfterSeconds)).toEqual([null, null, null, null])
    expect((await a.attempt(email, '198.51.100.9')).retryAfterSeconds).toBeGreaterThan(0)
    expect((await b.attempt(email, '198.51.100.9')).retryAfterSeconds).toBeGreaterThan(0)
  })
})
