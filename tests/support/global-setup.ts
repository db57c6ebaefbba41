import type { TestProject } from 'vitest/node'
import { provideKafka, provideRedis } from './services.js'

declare module 'vitest' {
  export interface ProvidedContext {
    kafkaBrokers: string
    redisUrl: string
  }
}

/**
 * globalSetup of the integration project: one Kafka broker and one Redis for the
 * whole run (test files isolate themselves with unique topic prefixes and keys).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const [kafka, redis] = await Promise.allSettled([provideKafka(), provideRedis()])
  const stops: (() => Promise<void>)[] = []
  if (kafka.status === 'fulfilled') stops.push(kafka.value.stop)
  if (redis.status === 'fulfilled') stops.push(redis.value.stop)
  const teardown = async () => {
    await Promise.allSettled(stops.map((s) => s()))
  }
  if (kafka.status === 'rejected' || redis.status === 'rejected') {
    await teardown()
    throw kafka.status === 'rejected' ? kafka.reason : (redis as PromiseRejectedResult).reason
  }
  project.provide('kafkaBrokers', kafka.value.brokers)
  project.provide('redisUrl', redis.value.url)
  return teardown
}
