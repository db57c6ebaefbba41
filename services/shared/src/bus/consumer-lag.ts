/**
 * How far behind each consumer group is in time: the age of the oldest record of a
 * topic partition the group has not committed (what SVC_MAX_LAG_SECONDS bounds).
 *
 * The consumer runner (run-consumer.ts) knows it for the partitions it consumes:
 * while a batch is handled, its first record is the oldest uncommitted one; once the
 * batch is committed the partition is caught up when the bus said nothing followed
 * it, and otherwise the next record is no older than the batch's last (records are
 * stamped when appended), so that one's age is used until the next batch arrives:
 * never less than the truth. A handler that keeps failing keeps its batch's first
 * record, so a stalled consumer's lag grows as it should.
 *
 * Every process publishes what its consumers know to the shared cache, one key per
 * group, topic and partition (so two assemblers of one group each write their own
 * partitions), renewed every second while the partition is being consumed; a key
 * that stops being renewed (its consumer stopped, or lost the partition to another)
 * is gone seconds later. Ingest reads them back to admit or refuse (ingest
 * admission.ts), /metrics shows the groups of the process.
 */
import { Gauge } from 'prom-client'
import type { Cache } from '../cache/types.js'
import type { Config } from '../config.js'
import { processRegistry } from '../metrics.js'
import type { ConsumedRecord } from './types.js'

interface PartitionLag {
  /** Append time of the oldest record not committed; null: caught up. */
  oldestMs: number | null
  /** A batch of the partition is in the handler. */
  handling: boolean
  touchedMs: number
}

/** A partition's state is published while it is being handled or was within this long. */
const LIVE_MS = 10_000
const PUBLISH_EVERY_MS = 1000
/** A published state outlives its last renewal by this much, then reads as unknown. */
const PUBLISHED_TTL_MS = 3000

/** group -> topic -> partition -> state, for the groups running in this process. */
const groups = new Map<string, Map<string, Map<number, PartitionLag>>>()

function partitionsOf(records: readonly ConsumedRecord[]): Map<string, { topic: string; partition: number; first: ConsumedRecord; last: ConsumedRecord }> {
  const out = new Map<string, { topic: string; partition: number; first: ConsumedRecord; last: ConsumedRecord }>()
  // A batch is mostly one partition's records in a row: the previous record's entry needs no key or look-up.
  let p: { topic: string; partition: number; first: ConsumedRecord; last: ConsumedRecord } | undefined
  for (const r of records) {
    if (p && p.partition === r.partition && p.topic === r.topic) {
      p.last = r
      continue
    }
    const k = `${r.topic}\u0000${r.partition}`
    p = out.get(k)
    if (p) p.last = r
    else out.set(k, (p = { topic: r.topic, partition: r.partition, first: r, last: r }))
  }
  return out
}

function stateOf(group: string, topic: string, partition: number, nowMs: number): PartitionLag {
  let topics = groups.get(group)
  if (!topics) groups.set(group, (topics = new Map()))
  let parts = topics.get(topic)
  if (!parts) topics.set(topic, (parts = new Map()))
  let s = parts.get(partition)
  if (!s) parts.set(partition, (s = { oldestMs: null, handling: false, touchedMs: nowMs }))
  return s
}

/** A batch reached the handler: its first record per partition is the oldest not committed. */
export function lagBatchStarted(group: string, records: readonly ConsumedRecord[], nowMs = Date.now()): void {
  for (const p of partitionsOf(records).values()) {
    const s = stateOf(group, p.topic, p.partition, nowMs)
    s.oldestMs = p.first.timestamp
    s.handling = true
    s.touchedMs = nowMs
  }
}

/**
 * The batch was handled and is being committed. `backlog`: the records the bus knew
 * after it (0 or unknown: caught up; unknown is read as caught up so that a bus that
 * cannot tell never refuses ingest).
 */
export function lagBatchDone(group: string, records: readonly ConsumedRecord[], backlog: number | undefined, nowMs = Date.now()): void {
  for (const p of partitionsOf(records).values()) {
    const s = stateOf(group, p.topic, p.partition, nowMs)
    s.oldestMs = backlog ? p.last.timestamp : null
    s.handling = false
    s.touchedMs = nowMs
  }
}

/** The handler failed: the batch stays uncommitted and will be delivered again. */
export function lagBatchFailed(group: string, records: readonly ConsumedRecord[], nowMs = Date.now()): void {
  for (const p of partitionsOf(records).values()) {
    const s = stateOf(group, p.topic, p.partition, nowMs)
    s.handling = false
    s.touchedMs = nowMs
  }
}

/** The group's subscription closed: what it knew is no longer true of anyone. */
export function forgetGroupLag(group: string): void {
  groups.delete(group)
}

const ageOf = (oldestMs: number | null, nowMs: number) => (oldestMs === null ? 0 : Math.max(0, nowMs - oldestMs))

/** The group's lag on the topic as this process knows it, ms; null when it consumes none of its partitions. */
export function localLagMs(group: string, topic: string, nowMs = Date.now()): number | null {
  const parts = groups.get(group)?.get(topic)
  if (!parts || parts.size === 0) return null
  let max = 0
  for (const s of parts.values()) max = Math.max(max, ageOf(s.oldestMs, nowMs))
  return max
}

/**
 * Where a deployment's lag figures live in the shared cache: environments sharing a
 * Redis (Kafka topic prefixes, or embedded data dirs) must not read each other's.
 */
export const pipelineNamespace = (config: Pick<Config, 'SVC_BUS' | 'KAFKA_TOPIC_PREFIX' | 'SVC_DATA_DIR'>): string =>
  config.SVC_BUS === 'kafka' ? `kafka:${config.KAFKA_TOPIC_PREFIX}` : `embedded:${config.SVC_DATA_DIR}`

const lagKey = (ns: string, group: string, topic: string, partition: number) => `bus:lag:v1:${ns}:${group}:${topic}:${partition}`

/** Publishes this process's live partitions every second; resolves the returned stop() once the last write settled. */
export function publishConsumerLag(cache: Cache, ns: string, onError?: (err: unknown) => void): { stop(): Promise<void> } {
  let writing: Promise<unknown> = Promise.resolve()
  const tick = () => {
    const now = Date.now()
    const writes: Promise<void>[] = []
    for (const [group, topics] of groups)
      for (const [topic, parts] of topics)
        for (const [partition, s] of parts)
          if (s.handling || now - s.touchedMs < LIVE_MS) writes.push(cache.set(lagKey(ns, group, topic, partition), String(s.oldestMs ?? ''), PUBLISHED_TTL_MS))
    writing = Promise.all(writes).catch((err: unknown) => onError?.(err))
  }
  const timer = setInterval(tick, PUBLISH_EVERY_MS)
  timer.unref()
  return {
    async stop() {
      clearInterval(timer)
      await writing
    },
  }
}

/**
 * The group's lag on the topic from the shared cache: the oldest uncommitted record's
 * age over the `partitions` published, ms; null when no consumer of it has published
 * (none is running, or none has handled a batch yet).
 */
export async function readConsumerLagMs(cache: Cache, ns: string, group: string, topic: string, partitions: number, nowMs = Date.now()): Promise<number | null> {
  const values = await Promise.all(Array.from({ length: partitions }, (_, p) => cache.get(lagKey(ns, group, topic, p))))
  let lag: number | null = null
  for (const v of values) {
    if (v === null) continue
    const oldest = v === '' ? null : Number(v)
    lag = Math.max(lag ?? 0, ageOf(oldest !== null && Number.isFinite(oldest) ? oldest : null, nowMs))
  }
  return lag
}

/** svc_consumer_lag_seconds{group,topic}: the groups consuming in this process. */
new Gauge({
  name: 'svc_consumer_lag_seconds',
  help: 'Age of the oldest record a consumer group of this process has not committed, by topic (0: caught up)',
  labelNames: ['group', 'topic'],
  registers: [processRegistry],
  collect() {
    this.reset()
    const now = Date.now()
    for (const [group, topics] of groups)
      for (const topic of topics.keys()) {
        const ms = localLagMs(group, topic, now)
        if (ms !== null) this.set({ group, topic }, ms / 1000)
      }
  },
})
