import type { Bus, SubscribeOptions, TopicSpec } from './types.js'

/**
 * Prefixes every topic and consumer group of a bus, so several environments (or
 * test runs) can share one Kafka cluster without seeing each other's records.
 * Consumers see the unprefixed names.
 */
export function namespacedBus(bus: Bus, prefix: string): Bus {
  if (!prefix) return bus
  const t = (name: string) => prefix + name
  const strip = (name: string) => (name.startsWith(prefix) ? name.slice(prefix.length) : name)
  return {
    kind: bus.kind,
    ensureTopics: (specs: TopicSpec[]) => bus.ensureTopics(specs.map((s) => ({ ...s, name: t(s.name) }))),
    produce: async (topic, records) => (await bus.produce(t(topic), records)).map((m) => ({ ...m, topic })),
    subscribe: (opts: SubscribeOptions) =>
      bus.subscribe({
        ...opts,
        group: t(opts.group),
        topics: opts.topics.map(t),
        maxBatchRecords: typeof opts.maxBatchRecords === 'function' ? ((limit) => (topic: string, partition: number) => limit(strip(topic), partition))(opts.maxBatchRecords) : opts.maxBatchRecords,
        // Field by field: the embedded log's records are getters, which a spread would not copy.
        onBatch: (records, ctx) =>
          opts.onBatch(
            records.map((r) => ({ topic: strip(r.topic), partition: r.partition, offset: r.offset, key: r.key, value: r.value, timestamp: r.timestamp })),
            ctx,
          ),
      }),
    endOffsets: (topic) => bus.endOffsets(t(topic)),
    committedOffsets: (group, topic) => bus.committedOffsets(t(group), t(topic)),
    ...(bus.diskUsage ? { diskUsage: bus.diskUsage.bind(bus) } : {}),
    close: () => bus.close(),
  }
}
