import { Redis } from 'ioredis'
import { redactUrl, type Logger } from '../log.js'
import type { Cache } from './types.js'

/** Redis-backed cache, shared by every process of a Kafka-mode deployment. */
export async function createRedisCache(url: string, log: Logger): Promise<Cache> {
  const clog = log.child({ component: 'redis' })
  const redis = new Redis(url, {
    // Fail commands fast while disconnected instead of queueing them forever.
    maxRetriesPerRequest: 3,
    lazyConnect: true,
  })
  let lastError = ''
  redis.on('error', (err: Error) => {
    // ioredis emits the same error on every reconnect attempt; log each distinct one once.
    if (err.message === lastError) return
    lastError = err.message
    clog.warn({ err }, 'redis connection error')
  })
  redis.on('ready', () => {
    if (lastError) clog.info('redis connection restored')
    lastError = ''
  })
  try {
    // connect() resolves on 'ready' (after the INFO loading check), and rejects on the first failure.
    await redis.connect()
  } catch (err) {
    redis.disconnect()
    throw new Error(`cannot connect to Redis at ${redactUrl(url)}: ${(err as Error).message}`)
  }

  return {
    kind: 'redis',
    async get(key) {
      return redis.get(key)
    },
    async set(key, value, ttlMs) {
      if (ttlMs !== undefined && ttlMs > 0) await redis.set(key, value, 'PX', ttlMs)
      else await redis.set(key, value)
    },
    async setIfAbsent(key, value, ttlMs) {
      const res = ttlMs !== undefined && ttlMs > 0 ? await redis.set(key, value, 'PX', ttlMs, 'NX') : await redis.set(key, value, 'NX')
      return res === 'OK'
    },
    async del(key) {
      await redis.del(key)
    },
    async incrBy(key, by, ttlMs) {
      if (ttlMs === undefined) return redis.incrby(key, by)
      const res = await redis.multi().incrby(key, by).pexpire(key, ttlMs).exec()
      if (!res) throw new Error(`redis transaction on ${key} was aborted`)
      const [err, value] = res[0]!
      if (err) throw err
      return Number(value)
    },
    async close() {
      try {
        await redis.quit()
      } catch {
        redis.disconnect()
      }
    },
  }
}
