import { join } from 'node:path'
import type { Config } from '../config.js'
import type { Logger } from '../log.js'
import { createEmbeddedBus } from './embedded/index.js'
import { createKafkaBus } from './kafka.js'
import { namespacedBus } from './namespace.js'
import { allTopicSpecs } from './topics.js'
import type { Bus, TopicSpec } from './types.js'

/** The bus of this deployment: Kafka when SVC_BUS=kafka, else the embedded log under <data dir>/log. */
export async function createBus(config: Config, log: Logger): Promise<Bus> {
  if (config.SVC_BUS === 'kafka') {
    const bus = await createKafkaBus({
      brokers: config.KAFKA_BROKERS!.split(',').map((b) => b.trim()),
      clientId: config.KAFKA_CLIENT_ID,
      log,
      defaultPartitions: config.KAFKA_TOPIC_PARTITIONS,
      replicationFactor: config.KAFKA_REPLICATION_FACTOR,
    })
    log.info({ brokers: config.KAFKA_BROKERS, prefix: config.KAFKA_TOPIC_PREFIX || undefined }, 'bus: kafka')
    return namespacedBus(bus, config.KAFKA_TOPIC_PREFIX)
  }
  const dir = join(config.SVC_DATA_DIR, 'log')
  log.info({ dir }, 'bus: embedded log')
  return createEmbeddedBus({ dir, retentionHours: config.SVC_EMBEDDED_RETENTION_HOURS, maxBytes: config.SVC_EMBEDDED_MAX_BYTES, log })
}

/** Every topic the services use, sized for this deployment. */
export function topicSpecsFor(config: Config): TopicSpec[] {
  return config.SVC_BUS === 'kafka'
    ? allTopicSpecs({ partitions: config.KAFKA_TOPIC_PARTITIONS, replicationFactor: config.KAFKA_REPLICATION_FACTOR })
    : allTopicSpecs({ partitions: config.SVC_EMBEDDED_PARTITIONS, replicationFactor: 1 })
}
