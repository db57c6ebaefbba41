import type { Config } from '../config.js'
import type { Logger } from '../log.js'
import { createMemoryCache } from './memory.js'
import { createRedisCache } from './redis.js'
import type { Cache } from './types.js'

export type { Cache } from './types.js'

/** Redis when REDIS_URL is set (several processes must agree), in-process otherwise. */
export async function createCache(config: Config, log: Logger): Promise<Cache> {
  if (config.REDIS_URL) return createRedisCache(config.REDIS_URL, log)
  return createMemoryCache()
}
