import { describe, expect, it } from 'vitest'
import { loadConfig } from '../config.js'
import { createLogger } from '../log.js'
import { createCache } from './index.js'
import { createMemoryCache } from './memory.js'
import { cacheContract } from './contract.testkit.js'

cacheContract('memory', async () => createMemoryCache())

describe('createCache', () => {
  it('is in-process when REDIS_URL is unset', async () => {
    const cache = await createCache(loadConfig({}), createLogger({ level: 'silent' }))
    expect(cache.kind).toBe('memory')
    await cache.close()
  })
})
