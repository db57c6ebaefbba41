/**
 * The service's own secrets in Kafka mode, on the real Redis and broker: nothing
 * is written to Redis when they are resolved, and a process started without them
 * refuses to start with a message that says how to generate them.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createRedisCache } from '@svc/shared/cache/redis'
import type { Cache } from '@svc/shared/cache/types'
import { ConfigError, loadConfig } from '@svc/shared/config'
import { jwtSecretFor, masterKeyFor } from '@svc/shared/control/service-secrets'
import { createLogger } from '@svc/shared/log'
import { exited, spawnAllInOne } from '../support/process.js'

const log = createLogger({ level: 'silent' })
const LEGACY = ['svc:master-key', 'svc:jwt-secret']

describe('service secrets in Kafka mode (real Redis)', () => {
  let redis: Cache
  const writes: string[] = []
  /** The real Redis cache, every write call recorded on its way through. */
  let recorded: Cache
  beforeAll(async () => {
    redis = await createRedisCache(inject('redisUrl'), log)
    recorded = {
      kind: redis.kind,
      get: (k) => redis.get(k),
      set: (k, v, ttl) => (writes.push(k), redis.set(k, v, ttl)),
      setIfAbsent: (k, v, ttl) => (writes.push(k), redis.setIfAbsent(k, v, ttl)),
      del: (k) => (writes.push(k), redis.del(k)),
      incrBy: (k, by, ttl) => (writes.push(k), redis.incrBy(k, by, ttl)),
      close: () => redis.close(),
    }
  })
  afterAll(async () => {
    await redis?.close()
  })

  const config = (env: Record<string, string> = {}) =>
    loadConfig({ SVC_BUS: 'kafka', KAFKA_BROKERS: inject('kafkaBrokers'), REDIS_URL: inject('redisUrl'), SVC_DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-secrets-')), ...env })

  it('resolves them from the environment and writes nothing to Redis; without them, refuses and still writes nothing', async () => {
    const before = await Promise.all(LEGACY.map((k) => redis.get(k)))
    const raw = randomBytes(32)
    const withSecrets = config({ SVC_MASTER_KEY: raw.toString('base64'), SVC_JWT_SECRET: 'an-operator-secret' })
    expect((await masterKeyFor(withSecrets, recorded, log)).key).toEqual(raw)
    expect(await jwtSecretFor(withSecrets, recorded, log)).toBe('an-operator-secret')
    if (before.every((v) => v === null)) {
      await expect(masterKeyFor(config(), recorded, log)).rejects.toBeInstanceOf(ConfigError)
      await expect(jwtSecretFor(config(), recorded, log)).rejects.toBeInstanceOf(ConfigError)
    }
    expect(writes).toEqual([])
    expect(await Promise.all(LEGACY.map((k) => redis.get(k)))).toEqual(before)
  })

  it('the all-in-one process in Kafka mode without them exits 2 with how to generate them', async () => {
    const child = spawnAllInOne({
      SVC_BUS: 'kafka',
      KAFKA_BROKERS: inject('kafkaBrokers'),
      REDIS_URL: inject('redisUrl'),
      KAFKA_TOPIC_PREFIX: `${inject('kafkaTopicRoot')}secrets-${process.pid}-${Date.now()}.`,
      SVC_DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-secrets-aio-')),
      SVC_HOST: '127.0.0.1',
      SVC_INGEST_PORT: '0',
      SVC_API_PORT: '0',
      SVC_MASTER_KEY: '',
      SVC_JWT_SECRET: '',
      SVC_QUIET_BOOTSTRAP: 'true',
      LOG_LEVEL: 'error',
    })
    try {
      // A process that does start never exits by itself: give up on it after a minute.
      await Promise.race([exited(child), new Promise((r) => setTimeout(r, 60_000).unref())])
      expect(child.exitCode, child.output()).toBe(2)
      expect(child.output()).toMatch(/(SVC_MASTER_KEY|SVC_JWT_SECRET) is (required when SVC_BUS=kafka|not set, and an earlier version kept)/)
      expect(child.output()).toMatch(/openssl rand -base64 32|redis-cli/)
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    }
  })
})
