import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { freePort, REPO_ROOT } from '../support/process.js'
import { operatorSecrets } from '../support/secrets.js'
import { progress } from './stats.js'

/**
 * The environment of a benchmarked all-in-one service: a fresh data dir, one
 * organization/workspace/key, free ports; in Kafka mode a broker and Redis
 * (KAFKA_BROKERS / REDIS_URL when set, else started the way the tests do) and a
 * topic prefix of its own. `stopServices` stops what was started here.
 */
export async function benchServiceEnv(mode: 'embedded' | 'kafka', apiKey: string) {
  const env: Record<string, string> = {
    SVC_BUS: mode,
    SVC_DATA_DIR: mkdtempSync(join(REPO_ROOT, '.bench-data-')),
    SVC_HOST: '127.0.0.1',
    SVC_INIT_ORG_SLUG: 'bench', SVC_INIT_WORKSPACE_SLUG: 'bench', SVC_INIT_API_KEY: apiKey, SVC_INIT_USER_PASSWORD: 'bench-password',
    SVC_QUIET_BOOTSTRAP: 'true', LOG_LEVEL: 'warn',
  }
  let stopServices: () => Promise<void> = async () => {}
  if (mode === 'kafka') {
    const { provideKafka, provideRedis } = await import('../support/services.js')
    progress('starting Kafka and Redis (or using KAFKA_BROKERS / REDIS_URL)')
    const [kafka, redis] = await Promise.all([provideKafka(), provideRedis()])
    Object.assign(env, { KAFKA_BROKERS: kafka.brokers, REDIS_URL: redis.url, KAFKA_TOPIC_PREFIX: `bench${Date.now()}.` }, operatorSecrets())
    stopServices = async () => {
      await kafka.stop()
      await redis.stop()
    }
  }
  const [ingestPort, apiPort] = [await freePort(), await freePort()]
  Object.assign(env, { SVC_INGEST_PORT: String(ingestPort), SVC_API_PORT: String(apiPort) })
  return { env, stopServices, ingestPort, apiPort }
}
