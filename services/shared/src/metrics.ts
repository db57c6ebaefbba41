/**
 * Process-wide Prometheus metrics (prom-client): what every service of the process
 * records (ClickHouse inserts, bus consumer lag, the Node.js runtime). Ingest serves
 * them on GET /metrics together with its own counters; in the all-in-one process
 * that one endpoint covers every service.
 */
import { Hono } from 'hono'
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import { DEAD_LETTER_TOPICS, engineGroup, engineJobsTopic, GROUPS, TOPICS, TRACE_ENGINES } from './bus/topics.js'
import type { Bus } from './bus/types.js'

export const processRegistry = new Registry()
collectDefaultMetrics({ register: processRegistry, prefix: 'svc_' })

export const insertRows = new Histogram({
  name: 'svc_clickhouse_insert_rows',
  help: 'Rows per ClickHouse insert, by table',
  labelNames: ['table'],
  buckets: [1, 10, 100, 1000, 5000, 10_000, 20_000, 50_000],
  registers: [processRegistry],
})

export const insertSeconds = new Histogram({
  name: 'svc_clickhouse_insert_duration_seconds',
  help: 'Duration of ClickHouse inserts, by table',
  labelNames: ['table'],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [processRegistry],
})

/** svc_engine_jobs_total{engine,outcome}: ok, failed (dead-lettered), skipped (engine off), sampled_out (outside the sample, engine_skips_v1), too_large (larger than SVC_ENGINE_MAX_TRACE_SPANS or _BYTES, engine_skips_v1), gone (trace aged out). */
export const engineJobsCounter = new Counter({
  name: 'svc_engine_jobs_total',
  help: 'Engine jobs by outcome',
  labelNames: ['engine', 'outcome'],
  registers: [processRegistry],
})

/** svc_engine_sample_rate{engine}: the share of traces this process's worker of the engine analyses (1: every trace). */
export const engineSampleRate = new Gauge({
  name: 'svc_engine_sample_rate',
  help: 'Share of traces the engine worker analyses (SVC_ENGINE_SAMPLE_RATE, lower while behind)',
  labelNames: ['engine'],
  registers: [processRegistry],
})

/** svc_engine_backlog_seconds{engine}: how long the oldest job of the worker's last batch waited on its topic (0 when idle). */
export const engineBacklogSeconds = new Gauge({
  name: 'svc_engine_backlog_seconds',
  help: 'Wait of the oldest job of the engine worker\'s last batch on the jobs topic',
  labelNames: ['engine'],
  registers: [processRegistry],
})

/** svc_engine_llm_tokens_total{engine,direction}: tokens the engines sent to (input) and got from (output) LLMs. */
export const engineLlmTokens = new Counter({
  name: 'svc_engine_llm_tokens_total',
  help: 'LLM tokens used by the engines',
  labelNames: ['engine', 'direction'],
  registers: [processRegistry],
})

/** The consumer runner's figures (bus/run-consumer.ts), by consumer group. */
export const consumerRecords = new Counter({
  name: 'svc_consumer_records_total',
  help: 'Records consumed, by group and topic (each counted once its batch is handled)',
  labelNames: ['group', 'topic'],
  registers: [processRegistry],
})
export const consumerBatches = new Counter({
  name: 'svc_consumer_batches_total',
  help: 'Batches handled, by group',
  labelNames: ['group'],
  registers: [processRegistry],
})
export const consumerBatchFailures = new Counter({
  name: 'svc_consumer_batch_failures_total',
  help: 'Batches whose handling failed and will be delivered again, by group',
  labelNames: ['group'],
  registers: [processRegistry],
})
export const consumerHandlerSeconds = new Histogram({
  name: 'svc_consumer_handler_duration_seconds',
  help: 'Time to handle one batch (decode, handler, dead letters), by group',
  labelNames: ['group'],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [processRegistry],
})
/** svc_consumer_dead_letters_total{topic,reason}: undecodable, invalid (the handler's verdict) or failed (after its retries). */
export const consumerDeadLetters = new Counter({
  name: 'svc_consumer_dead_letters_total',
  help: 'Records a consumer dead-lettered, by the topic they were read from and why',
  labelNames: ['topic', 'reason'],
  registers: [processRegistry],
})

/** Consumer groups whose lag /metrics reports: group -> topics it reads. */
export type LagWatch = Array<{ group: string; topic: string }>

/**
 * Every consumer group of the pipeline, listed in every process (ingest's /metrics
 * reports the lag of consumers running elsewhere too).
 */
export const PIPELINE_LAG: LagWatch = [
  { group: GROUPS.assembler, topic: TOPICS.spansRaw },
  { group: GROUPS.assembler, topic: TOPICS.spansRawV1 },
  ...DEAD_LETTER_TOPICS.map((topic) => ({ group: GROUPS.deadLetterSink, topic })),
  ...TRACE_ENGINES.map((e) => ({ group: engineGroup(e), topic: engineJobsTopic(e) })),
  { group: GROUPS.engineResultsSink, topic: TOPICS.engineResults },
  { group: GROUPS.alignmentDocuments, topic: TOPICS.alignmentDocuments },
  { group: GROUPS.codingAgent, topic: TOPICS.codingAgentMetrics },
  { group: GROUPS.codingAgent, topic: TOPICS.codingAgentEvents },
]

/** Groups started in this process (runConsumer registers each), so no consumer is left out of the lag. */
const running = new Map<string, { group: string; topic: string }>()
export function watchConsumerLag(group: string, topics: readonly string[]): void {
  for (const topic of topics) running.set(`${group}\u0000${topic}`, { group, topic })
}

/**
 * svc_consumer_lag_records{group,topic,partition}: records written but not yet
 * committed by the group, read from the bus when scraped. Registered once per bus;
 * covers `watch` and every group runConsumer started in this process.
 */
export function registerConsumerLag(bus: Bus, watch: LagWatch, registry: Registry = processRegistry): void {
  const name = 'svc_consumer_lag_records'
  if (registry.getSingleMetric(name)) registry.removeSingleMetric(name)
  new Gauge({
    name,
    help: 'Records on a topic partition not yet committed by a consumer group',
    labelNames: ['group', 'topic', 'partition'],
    registers: [registry],
    async collect() {
      this.reset()
      const all = new Map(watch.map((w) => [`${w.group}\u0000${w.topic}`, w]))
      for (const [k, w] of running) all.set(k, w)
      for (const { group, topic } of all.values()) {
        const [ends, committed] = await Promise.all([bus.endOffsets(topic), bus.committedOffsets(group, topic)]).catch(() => [new Map<number, string>(), new Map<number, string>()])
        for (const [partition, end] of ends) this.set({ group, topic, partition: String(partition) }, Math.max(0, Number(end) - Number(committed.get(partition) ?? 0)))
      }
    },
  })
}

/**
 * GET /metrics with this process's registry, for processes without an HTTP API of
 * their own (the standalone assembler), so their insert and lag figures are scraped
 * in the many-process deployment too.
 */
export function metricsApp(): Hono {
  const app = new Hono()
  app.get('/metrics', async (c) => c.text(await processRegistry.metrics(), 200, { 'content-type': processRegistry.contentType }))
  app.get('/health', (c) => c.json({ status: 'ok' }))
  return app
}
