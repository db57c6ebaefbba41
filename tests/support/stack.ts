import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inject } from 'vitest'
import { startAll, type RunningStack } from '@svc/all-in-one/start-all'
import { loadConfig } from '@svc/shared/config'
import { createLogger } from '@svc/shared/log'
import { operatorSecrets } from './secrets.js'

export type BusMode = 'embedded' | 'kafka'

export const TEST_KEY = 'dr_e2eTestKey0000000000000000000000000001'
export const TEST_PASSWORD = 'correct horse battery staple'

/**
 * Starts every service in this process on real adapters: the embedded log or the
 * Kafka broker (plus Redis) from the global setup, and embedded ClickHouse in a
 * fresh data dir. Topic and group names get a unique prefix so test files sharing
 * the broker never see each other's records. `extraEnv` overrides any setting: pass
 * a stack's own `env` back to restart it on the same data (dir, topics).
 */
export async function startTestStack(mode: BusMode, extraEnv: Record<string, string> = {}): Promise<RunningStack & { dataDir: string; env: Record<string, string>; ingestUrl: string; apiUrl: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), `svc-${mode}-`))
  const env: Record<string, string> = {
    SVC_BUS: mode,
    SVC_DATA_DIR: dataDir,
    SVC_HOST: '127.0.0.1',
    SVC_INGEST_PORT: '0',
    SVC_API_PORT: '0',
    SVC_CLICKHOUSE_HTTP_PORT: '0',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
    SVC_INIT_ORG_SLUG: 'acme',
    SVC_INIT_WORKSPACE_SLUG: 'agents',
    SVC_INIT_PROJECT_ID: 'checkout-bot',
    SVC_INIT_API_KEY: TEST_KEY,
    SVC_INIT_USER_EMAIL: 'owner@acme.test',
    SVC_INIT_USER_PASSWORD: TEST_PASSWORD,
    SVC_TRACE_QUIET_MS: '500',
    SVC_QUIET_BOOTSTRAP: 'true',
    // Password hashes at a test cost (the default is checked in control/secrets.test.ts).
    SVC_PASSWORD_SCRYPT_N: '1024',
    // The tests' model and search servers listen on loopback, which the egress guard refuses by default.
    SVC_EGRESS_ALLOW_PRIVATE: 'true',
  }
  if (mode === 'kafka') {
    env.KAFKA_BROKERS = inject('kafkaBrokers')
    env.REDIS_URL = inject('redisUrl')
    env.KAFKA_TOPIC_PREFIX = `${inject('kafkaTopicRoot')}t${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}.`
    env.KAFKA_TOPIC_PARTITIONS = '3'
    Object.assign(env, operatorSecrets())
  }
  Object.assign(env, extraEnv)
  const config = loadConfig(env)
  const log = createLogger({ level: config.LOG_LEVEL, name: `test-${mode}` })
  const stack = await startAll(config, log)
  return { ...stack, dataDir: env.SVC_DATA_DIR!, env, ingestUrl: `http://127.0.0.1:${stack.ingestPort}`, apiUrl: `http://127.0.0.1:${stack.apiPort}` }
}

export { eventually } from '@svc/shared/test-support/eventually'
