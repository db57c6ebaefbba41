import type { TestProject } from 'vitest/node'
import { deleteTopicsWithPrefix, provideKafka, provideRedis } from './services.js'

declare module 'vitest' {
  export interface ProvidedContext {
    kafkaBrokers: string
    /** What every topic prefix of this run starts with: its topics are deleted at the end of the run. */
    kafkaTopicRoot: string
    redisUrl: string
  }
}

/**
 * globalSetup of the integration project: one Kafka broker and one Redis for the
 * whole run (test files isolate themselves with unique topic prefixes and keys).
 * Every prefix starts with the run's `kafkaTopicRoot`, and the run's topics are
 * deleted when it ends, so a broker that outlives it (KAFKA_BROKERS) does not
 * collect every run's topics.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const [kafka, redis] = await Promise.allSettled([provideKafka(), provideRedis()])
  const stops: (() => Promise<void>)[] = []
  const root = `run${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}-`
  if (kafka.status === 'fulfilled') {
    const { brokers, stop } = kafka.value
    stops.push(async () => {
      await deleteTopicsWithPrefix(brokers, root).catch((err: Error) => process.stderr.write(`[test services] could not delete this run's topics (${root}*): ${err.message}\n`))
      await stop()
    })
  }
  if (redis.status === 'fulfilled') stops.push(redis.value.stop)
  const teardown = async () => {
    await Promise.allSettled(stops.map((s) => s()))
  }
  if (kafka.status === 'rejected' || redis.status === 'rejected') {
    await teardown()
    throw kafka.status === 'rejected' ? kafka.reason : (redis as PromiseRejectedResult).reason
  }
  project.provide('kafkaBrokers', kafka.value.brokers)
  project.provide('kafkaTopicRoot', root)
  project.provide('redisUrl', redis.value.url)
  return teardown
}
