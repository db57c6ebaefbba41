import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { freePort, REPO_ROOT } from '../support/process.js'
import { operatorSecrets } from '../support/secrets.js'
import { progress } from './stats.js'

/**
 * Microseconds to create one empty file in a new directory under `root`: what each of
 * ClickHouse's part files costs the kernel there. On ext4 without a journal (this
 * project's reference machines) a new inode skips every free one of its group deleted
 * in the last minutes, so near recent deletions (a previous run's data directory, a
 * store's merged-away parts) a create costs ~0.3-1 ms instead of ~25 µs, and ClickHouse
 * makes a few hundred files a second under load: benchmarks print it so runs on disks
 * in different states are not compared as if they were one.
 */
export function fileCreateMicros(root: string, files = 300): number {
  const dir = mkdtempSync(join(root, '.bench-create-'))
  try {
    const t0 = performance.now()
    for (let i = 0; i < files; i++) closeSync(openSync(join(dir, String(i)), 'wx'))
    return ((performance.now() - t0) * 1000) / files
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * The environment of a benchmarked all-in-one service: a fresh data dir (under
 * `dataRoot`, default the repository), one
 * organization/workspace/key, free ports; in Kafka mode a broker and Redis
 * (KAFKA_BROKERS / REDIS_URL when set, else started the way the tests do) and a
 * topic prefix of its own. `stopServices` deletes the run's topics and stops what was started here.
 */
export async function benchServiceEnv(mode: 'embedded' | 'kafka', apiKey: string, dataRoot = REPO_ROOT) {
  const env: Record<string, string> = {
    SVC_BUS: mode,
    SVC_DATA_DIR: mkdtempSync(join(dataRoot, '.bench-data-')),
    SVC_HOST: '127.0.0.1',
    SVC_INIT_ORG_SLUG: 'bench', SVC_INIT_WORKSPACE_SLUG: 'bench', SVC_INIT_API_KEY: apiKey, SVC_INIT_USER_PASSWORD: 'bench-password',
    SVC_QUIET_BOOTSTRAP: 'true', LOG_LEVEL: 'warn',
  }
  let stopServices: () => Promise<void> = async () => {}
  if (mode === 'kafka') {
    const { deleteTopicsWithPrefix, provideKafka, provideRedis } = await import('../support/services.js')
    progress('starting Kafka and Redis (or using KAFKA_BROKERS / REDIS_URL)')
    const [kafka, redis] = await Promise.all([provideKafka(), provideRedis()])
    const prefix = `bench${Date.now()}.`
    Object.assign(env, { KAFKA_BROKERS: kafka.brokers, REDIS_URL: redis.url, KAFKA_TOPIC_PREFIX: prefix }, operatorSecrets())
    stopServices = async () => {
      // The run's topics go with it: a broker of KAFKA_BROKERS outlives the run.
      const deleted = await deleteTopicsWithPrefix(kafka.brokers, prefix).catch((err: Error) => (progress(`could not delete the run's topics (${prefix}*): ${err.message}`), 0))
      if (deleted) progress(`deleted the run's ${deleted} topics (${prefix}*)`)
      await kafka.stop()
      await redis.stop()
    }
  }
  const [ingestPort, apiPort] = [await freePort(), await freePort()]
  Object.assign(env, { SVC_INGEST_PORT: String(ingestPort), SVC_API_PORT: String(apiPort) })
  return { env, stopServices, ingestPort, apiPort }
}
