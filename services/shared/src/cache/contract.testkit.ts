import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Cache } from './types.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * The Cache contract, run against every implementation (cache.test.ts for memory,
 * cache.redis.int.test.ts for Redis) so both behave the same to their callers.
 */
export function cacheContract(name: string, make: () => Promise<Cache>): void {
  describe(`Cache contract: ${name}`, () => {
    let cache: Cache
    // Keys are unique per run: a shared Redis may hold keys of earlier runs.
    const k = (s: string) => `test:${randomUUID()}:${s}`

    beforeAll(async () => {
      cache = await make()
    })
    afterAll(async () => {
      await cache?.close()
    })

    it('get of a missing key is null', async () => {
      expect(await cache.get(k('missing'))).toBeNull()
    })

    it('set then get, overwrite, del', async () => {
      const key = k('a')
      await cache.set(key, 'one')
      expect(await cache.get(key)).toBe('one')
      await cache.set(key, 'two')
      expect(await cache.get(key)).toBe('two')
      await cache.del(key)
      expect(await cache.get(key)).toBeNull()
      await cache.del(key)
    })

    it('set with a ttl expires', async () => {
      const key = k('ttl')
      await cache.set(key, 'v', 80)
      expect(await cache.get(key)).toBe('v')
      await sleep(150)
      expect(await cache.get(key)).toBeNull()
    })

    it('setIfAbsent sets once, and again after expiry', async () => {
      const key = k('lock')
      expect(await cache.setIfAbsent(key, 'a', 80)).toBe(true)
      expect(await cache.setIfAbsent(key, 'b', 80)).toBe(false)
      expect(await cache.get(key)).toBe('a')
      await sleep(150)
      expect(await cache.setIfAbsent(key, 'c', 5000)).toBe(true)
      expect(await cache.get(key)).toBe('c')
    })

    it('setIfAbsent without a ttl keeps the key for good', async () => {
      const key = k('forever')
      expect(await cache.setIfAbsent(key, 'a')).toBe(true)
      expect(await cache.setIfAbsent(key, 'b', 0)).toBe(false)
      await sleep(100)
      expect(await cache.get(key)).toBe('a')
    })

    it('setIfAbsent is exclusive under concurrency', async () => {
      const key = k('race')
      const wins = await Promise.all(Array.from({ length: 20 }, (_, i) => cache.setIfAbsent(key, String(i), 5000)))
      expect(wins.filter(Boolean)).toHaveLength(1)
    })

    it('incrBy starts at 0, adds, accepts negatives, and is atomic', async () => {
      const key = k('n')
      expect(await cache.incrBy(key, 5)).toBe(5)
      expect(await cache.incrBy(key, -2)).toBe(3)
      const results = await Promise.all(Array.from({ length: 50 }, () => cache.incrBy(key, 1)))
      expect(new Set(results).size).toBe(50)
      expect(await cache.get(key)).toBe('53')
    })

    it('incrBy with a ttl expires the counter', async () => {
      const key = k('window')
      expect(await cache.incrBy(key, 1, 100)).toBe(1)
      expect(await cache.incrBy(key, 1, 100)).toBe(2)
      await sleep(180)
      expect(await cache.get(key)).toBeNull()
      expect(await cache.incrBy(key, 1, 100)).toBe(1)
    })

    it('incrBy without a ttl keeps an existing expiry', async () => {
      const key = k('keep')
      await cache.incrBy(key, 1, 100)
      await cache.incrBy(key, 1)
      await sleep(180)
      expect(await cache.get(key)).toBeNull()
    })
  })
}
