import { describe, expect, inject, it } from 'vitest'
import { loadConfig } from '../config.js'
import { createLogger } from '../log.js'
import { createCache } from './index.js'
import { createRedisCache } from './redis.js'
import { cacheContract } from './contract.testkit.js'

const log = createLogger({ level: 'silent' })

cacheContract('redis', () => createRedisCache(inject('redisUrl'), log))

describe('createCache with REDIS_URL', () => {
  it('is Redis', async () => {
    const cache = await createCache(loadConfig({ REDIS_URL: inject('redisUrl') }), log)
    expect(cache.kind).toBe('redis')
    await cache.close()
  })

  it('fails clearly when Redis is unreachable', async () => {
    await expect(createRedisCache('redis://127.0.0.1:1', log)).rejects.toThrow(/cannot connect to Redis/)
  })
})
