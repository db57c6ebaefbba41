import { randomUUID } from 'node:crypto'
import { Kafka, Partitioners, logLevel } from 'kafkajs'
import type { Admin, Consumer, EachBatchPayload, KafkaMessage, Message, PartitionMetadata, Producer, logCreator } from 'kafkajs'
import type { Logger } from '../log.js'
import { kafkaPartitionForKey } from './murmur2.js'
import type {
  BatchContext,
  Bus,
  ConsumedRecord,
  OutgoingRecord,
  ProducedRecordMeta,
  SubscribeOptions,
  Subscription,
  TopicSpec,
} from './types.js'

export type KafkaLogLevel = 'error' | 'warn' | 'info' | 'debug'

export interface KafkaBusOptions {
  brokers: string[]
  clientId: string
  log: Logger
  defaultPartitions?: number
  replicationFactor?: number
  /** kafkajs's own chatter; WARN keeps routine reconnects and rebalances out of the logs. */
  kafkaLogLevel?: KafkaLogLevel
}

const KAFKA_LEVELS: Record<KafkaLogLevel, logLevel> = {
  error: logLevel.ERROR,
  warn: logLevel.WARN,
  info: logLevel.INFO,
  debug: logLevel.DEBUG,
}

const RETRY_INITIAL_MS = 200
const RETRY_MAX_MS = 5000
// Partition counts only grow, and rarely; a minute-old view costs at most a minute of skew.
const METADATA_TTL_MS = 60_000
/**
 * The most bytes one produce request gathers from waiting calls: kafkajs sends one
 * record batch per partition, and a broker refuses a batch past message.max.bytes
 * (1,048,588 by default), so the whole request stays under it, each record counted
 * with the most its framing in a batch can take (RECORD_FRAMING_BYTES) beside its key
 * and value.
 */
const MAX_REQUEST_BYTES = 1_000_000
/** A v2 record's own fields beside key and value: length, attributes, timestamp and offset deltas, key and value lengths, header count. */
const RECORD_FRAMING_BYTES = 32

/** Routes kafkajs's structured log entries into our pino logger instead of its own JSON lines. */
function pinoLogCreator(log: Logger): logCreator {
  const child = log.child({ component: 'kafkajs' })
  return () =>
    ({ namespace, level, log: entry }) => {
      const { message, timestamp: _ts, logger: _logger, ...extra } = entry
      const fields = { ns: namespace, ...extra }
      // kafkajs logs every error response at ERROR, including retriable ones (coordinator
      // loading, leader moved, a topic another process just created); the caller sees
      // any error that survives the retries, so these are only debug detail.
      if (namespace === 'Connection' && message.startsWith('Response ')) child.debug(fields, message)
      else if (level === logLevel.ERROR) child.error(fields, message)
      else if (level === logLevel.WARN) child.warn(fields, message)
      else if (level === logLevel.INFO) child.info(fields, message)
      else child.debug(fields, message)
    }
}

function toConsumed(topic: string, partition: number, m: KafkaMessage): ConsumedRecord {
  return {
    topic,
    partition,
    offset: m.offset,
    key: m.key ?? null,
    value: m.value ?? Buffer.alloc(0),
    timestamp: Number(m.timestamp),
  }
}

/** The records of the next onBatch call: all that are left, or at most the subscription's limit for the partition. */
function nextPart<T>(items: T[], from: number, limit: SubscribeOptions['maxBatchRecords'], topic: string, partition: number): T[] {
  const size = typeof limit === 'function' ? limit(topic, partition) : limit
  if (!size || size <= 0) return from === 0 ? items : items.slice(from)
  return from === 0 && items.length <= size ? items : items.slice(from, from + size)
}

export async function createKafkaBus(opts: KafkaBusOptions): Promise<Bus> {
  const log = opts.log.child({ component: 'kafka-bus' })
  // Every partition of a topic handled at once (each still in order): the span consumer's
  // rows from all of them then meet in the batch writer's next insert, where with fewer
  // slots than partitions some waited a round (bench:ingest --mode kafka: 4 slots for 6
  // partitions was ~4% slower end to end, in each of five alternated pairs).
  const partitionsAtOnce = opts.defaultPartitions ?? DEFAULT_PARTITIONS_AT_ONCE
  const kafka = new Kafka({
    clientId: opts.clientId,
    brokers: opts.brokers,
    connectionTimeout: 3000,
    logLevel: KAFKA_LEVELS[opts.kafkaLogLevel ?? 'warn'],
    logCreator: pinoLogCreator(opts.log),
  })

  const producer: Producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
  })
  const admin: Admin = kafka.admin()
  await admin.connect()
  try {
    await producer.connect()
  } catch (err) {
    await admin.disconnect().catch(() => {})
    throw err
  }

  // We choose partitions ourselves (as kafkajs's DefaultPartitioner would, see
  // murmur2.ts) so that each record's offset can be derived from the per-partition
  // base offsets. Records without a key go round robin, through kafkajs's partitioner.
  const partitioner = Partitioners.DefaultPartitioner()
  const metadata = new Map<string, { at: number; partitions: PartitionMetadata[] }>()
  async function partitionsOf(topic: string, refresh = false): Promise<PartitionMetadata[]> {
    const cached = metadata.get(topic)
    if (cached && !refresh && Date.now() - cached.at < METADATA_TTL_MS) return cached.partitions
    const res = await admin.fetchTopicMetadata({ topics: [topic] })
    const partitions = res.topics.find((t) => t.name === topic)?.partitions ?? []
    if (partitions.length === 0) throw new Error(`kafka topic ${topic} has no partitions (does it exist?)`)
    metadata.set(topic, { at: Date.now(), partitions })
    return partitions
  }

  const subscriptions = new Set<KafkaSubscription>()
  let closed: Promise<void> | undefined

  async function ensureTopics(specs: TopicSpec[]): Promise<void> {
    const existing = new Set(await admin.listTopics())
    const wanted = new Map<string, TopicSpec>()
    for (const s of specs) if (!existing.has(s.name) && !wanted.has(s.name)) wanted.set(s.name, s)
    if (wanted.size === 0) return
    const topics = [...wanted.values()].map((s) => {
      const configEntries: { name: string; value: string }[] = []
      if (s.retentionMs !== undefined) configEntries.push({ name: 'retention.ms', value: String(s.retentionMs < 0 ? -1 : s.retentionMs) })
      return {
        topic: s.name,
        numPartitions: s.partitions || opts.defaultPartitions || 1,
        replicationFactor: s.replicationFactor ?? opts.replicationFactor ?? 1,
        configEntries,
      }
    })
    try {
      // Resolves false (not throws) when every topic already exists: another process won the race.
      await admin.createTopics({ topics, waitForLeaders: true })
    } catch (err) {
      const errors = (err as { errors?: { type?: string }[] }).errors
      if (!errors?.every((e) => e.type === 'TOPIC_ALREADY_EXISTS')) throw err
    }
    log.info({ topics: topics.map((t) => t.topic) }, 'created kafka topics')
  }

  // Group commit: the idempotent producer has one request in flight at a time, so a
  // produce() that arrives meanwhile waits, and all that waited go out together in the
  // next request (one per broker, one record batch per partition) rather than one
  // request each. Ingest's concurrent requests then share the acks=all round trips,
  // and the client and the broker encode and handle fewer, larger batches (bench:ingest
  // --mode kafka: accepted +40%, end to end +20%). A request that fails fails every call
  // it carried, and each caller retries (or answers 503) as it would for its own.
  const waiting: PendingProduce[] = []
  let sending = false

  async function produce(topic: string, records: OutgoingRecord[]): Promise<ProducedRecordMeta[]> {
    if (records.length === 0) return []
    const partitionMetadata = await partitionsOf(topic)
    const partitions = records.map((r) =>
      r.key === null ? partitioner({ topic, partitionMetadata, message: { key: r.key, value: r.value } }) : kafkaPartitionForKey(r.key, partitionMetadata.length),
    )
    return new Promise<ProducedRecordMeta[]>((resolve, reject) => {
      waiting.push({ topic, records, partitions, resolve, reject })
      if (!sending) void sendWaiting()
    })
  }

  async function sendWaiting(): Promise<void> {
    sending = true
    while (waiting.length > 0) {
      const batch = takeRequest(waiting)
      try {
        const byTopic = new Map<string, Message[]>()
        for (const p of batch) {
          let messages = byTopic.get(p.topic)
          if (!messages) byTopic.set(p.topic, (messages = []))
          for (let i = 0; i < p.records.length; i++) messages.push({ key: p.records[i]!.key, value: p.records[i]!.value, partition: p.partitions[i] })
        }
        const result = await producer.sendBatch({ acks: -1, topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })) })
        const offsets = recordOffsets(batch, result)
        batch.forEach((p, i) => p.resolve(offsets[i]!))
      } catch (err) {
        for (const p of batch) p.reject(err)
      }
    }
    sending = false
  }

  async function subscribe(sopts: SubscribeOptions): Promise<Subscription> {
    if (closed) throw new Error('kafka bus is closed')
    const sub = new KafkaSubscription(kafka, admin, log, sopts, partitionsAtOnce, () => subscriptions.delete(sub))
    subscriptions.add(sub)
    try {
      await sub.start()
    } catch (err) {
      await sub.close()
      throw err
    }
    return sub
  }

  async function endOffsets(topic: string): Promise<Map<number, string>> {
    const offsets = await whileLeadersSettle(() => admin.fetchTopicOffsets(topic))
    return new Map(offsets.map((o) => [o.partition, o.high]))
  }

  async function committedOffsets(group: string, topic: string): Promise<Map<number, string>> {
    const res = await whileLeadersSettle(() => admin.fetchOffsets({ groupId: group, topics: [topic] }))
    const out = new Map<number, string>()
    for (const t of res) {
      if (t.topic !== topic) continue
      for (const p of t.partitions) if (p.offset !== '-1') out.set(p.partition, p.offset)
    }
    return out
  }

  async function close(): Promise<void> {
    closed ??= (async () => {
      await Promise.allSettled([...subscriptions].map((s) => s.close()))
      await Promise.allSettled([producer.disconnect(), admin.disconnect()])
    })()
    return closed
  }

  return { kind: 'kafka', ensureTopics, produce, subscribe, endOffsets, committedOffsets, close }
}

const LEADER_SETTLE_MS = 15_000
/** Without a configured partition count: KAFKA_TOPIC_PARTITIONS's default. */
const DEFAULT_PARTITIONS_AT_ONCE = 6

/**
 * Right after createTopics (even with waitForLeaders) a broker can still answer
 * NOT_LEADER_FOR_PARTITION to ListOffsets until its metadata catches up, and kafkajs's
 * admin does not retry that itself. Retriable errors are retried for a bounded time.
 */
async function whileLeadersSettle<T>(fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + LEADER_SETTLE_MS
  for (let wait = 50; ; wait = Math.min(wait * 2, 1000)) {
    try {
      return await fn()
    } catch (err) {
      if (!(err as { retriable?: boolean }).retriable || Date.now() + wait > deadline) throw err
      await new Promise((r) => setTimeout(r, wait))
    }
  }
}

class KafkaSubscription implements Subscription {
  readonly ready: Promise<void>
  private readonly consumer: Consumer
  private readonly groupId: string
  private readonly ephemeral: boolean
  private readonly log: Logger
  private closing = false
  private closed: Promise<void> | undefined
  private wakeClose!: () => void
  private readonly closeSignal = new Promise<void>((r) => (this.wakeClose = r))
  private readyResolve!: () => void
  private readyReject!: (err: Error) => void
  private joined = false
  private readonly ctx: BatchContext

  constructor(
    kafka: Kafka,
    private readonly admin: Admin,
    log: Logger,
    private readonly opts: SubscribeOptions,
    private readonly partitionsAtOnce: number,
    private readonly onClosed: () => void,
  ) {
    this.ephemeral = opts.ephemeral === true
    this.groupId = this.ephemeral ? `${opts.group}.ephemeral.${randomUUID()}` : opts.group
    this.log = log.child({ group: this.groupId })
    const isClosing = () => this.closing
    this.ctx = {
      get closing() {
        return isClosing()
      },
    }
    this.ready = new Promise<void>((resolve, reject) => {
      this.readyResolve = resolve
      this.readyReject = reject
    })
    // Callers that never await ready must not see an unhandled rejection.
    this.ready.catch(() => {})
    this.consumer = kafka.consumer({
      groupId: this.groupId,
      sessionTimeout: 10_000,
      heartbeatInterval: 1000,
      rebalanceTimeout: 30_000,
      allowAutoTopicCreation: false,
      // Freshness target is < 2 s end to end; the broker answers an empty fetch after this.
      maxWaitTimeInMs: 100,
      // Under a backlog a handler call should carry thousands of records (one insert,
      // one stored-span lookup); kafkajs's 1 MiB default is ~2,000 spans per partition.
      maxBytesPerPartition: 8 << 20,
      maxBytes: 32 << 20,
    })
  }

  async start(): Promise<void> {
    const { consumer } = this
    consumer.on(consumer.events.GROUP_JOIN, (e) => {
      if (this.joined) return
      this.joined = true
      const assigned = Object.values(e.payload.memberAssignment).some((parts) => parts.length > 0)
      if (!assigned) return this.readyResolve()
      // Joining assigns partitions, but a "latest" start position is only resolved by
      // the first fetch; resolving ready earlier would let a record produced right
      // after it slip past a new group.
      const off = consumer.on(consumer.events.FETCH, () => {
        off()
        this.readyResolve()
      })
    })
    consumer.on(consumer.events.CRASH, (e) => {
      const err = e.payload.error
      this.log.error({ err, restart: e.payload.restart }, 'kafka consumer crashed')
      // kafkajs restarts the consumer after a retriable error (a group coordinator still
      // loading after a broker restart, say): the join still comes, so ready waits for
      // it. Only a crash it gives up on fails a subscription that never joined.
      if (!this.joined && !e.payload.restart) this.readyReject(err)
    })
    await consumer.connect()
    await consumer.subscribe({ topics: this.opts.topics, fromBeginning: this.ephemeral || this.opts.fromBeginning === true })
    await consumer.run({
      // Partitions are handled concurrently (each still in order), so one partition's
      // slow handler (an insert in flight) does not idle the others.
      partitionsConsumedConcurrently: this.partitionsAtOnce,
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: (payload) => this.eachBatch(payload),
    })
  }

  private async eachBatch(payload: EachBatchPayload): Promise<void> {
    const { batch, resolveOffset, heartbeat, isRunning, isStale } = payload
    const { topic, partition } = batch
    const stopped = () => this.closing || !isRunning() || isStale()
    const records = batch.messages.map((m) => toConsumed(topic, partition, m))
    for (let from = 0; from < records.length; ) {
      const part = nextPart(records, from, this.opts.maxBatchRecords, topic, partition)
      from += part.length
      // What the partition holds after this part: the rest of the fetch and whatever the broker had beyond it.
      const backlog = Math.max(0, Number(BigInt(batch.highWatermark) - BigInt(part[part.length - 1]!.offset) - 1n))
      let delay = RETRY_INITIAL_MS
      for (;;) {
        // Unresolved records are fetched again by whoever owns the partition next.
        if (stopped()) return
        const ok = await this.runHandler(part, heartbeat, backlog)
        if (ok) break
        if (stopped()) return
        await Promise.race([sleep(delay), this.closeSignal])
        delay = Math.min(delay * 2, RETRY_MAX_MS)
        try {
          await heartbeat()
        } catch {
          // A rebalance started while we were backing off: give the partition up.
          return
        }
      }
      const last = part[part.length - 1]!.offset
      resolveOffset(last)
      if (!this.ephemeral) {
        try {
          await this.consumer.commitOffsets([{ topic, partition, offset: (BigInt(last) + 1n).toString() }])
        } catch (err) {
          // Commits are cumulative, so the next one covers these records; if the partition
          // moved, its new owner sees them again (at-least-once).
          if (stopped()) return
          this.log.warn({ err, topic, partition, offset: last }, 'kafka offset commit failed')
        }
      }
    }
  }

  /** Runs onBatch, heartbeating meanwhile so a slow handler doesn't cost us the group membership. */
  private async runHandler(records: ConsumedRecord[], heartbeat: () => Promise<void>, backlog: number): Promise<boolean> {
    const timer = setInterval(() => void heartbeat().catch(() => {}), 1000)
    const { ctx } = this
    try {
      await this.opts.onBatch(records, {
        get closing() {
          return ctx.closing
        },
        backlog,
      })
      return true
    } catch (err) {
      const first = records[0]!
      this.log.warn(
        { err, topic: first.topic, partition: first.partition, from: first.offset, count: records.length },
        'onBatch failed; retrying the same records',
      )
      return false
    } finally {
      clearInterval(timer)
    }
  }

  close(): Promise<void> {
    this.closed ??= (async () => {
      this.closing = true
      this.wakeClose()
      try {
        await this.consumer.disconnect()
      } catch (err) {
        this.log.warn({ err }, 'kafka consumer disconnect failed')
      }
      if (!this.joined) this.readyReject(new Error('subscription closed before joining its group'))
      if (this.ephemeral) {
        // Ephemeral groups never commit, but the coordinator still remembers them for a while.
        await this.admin.deleteGroups([this.groupId]).catch(() => {})
      }
      this.onClosed()
    })()
    return this.closed
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms))
}

interface PendingProduce {
  topic: string
  records: OutgoingRecord[]
  partitions: number[]
  resolve(meta: ProducedRecordMeta[]): void
  reject(err: unknown): void
}

/**
 * The waiting produce() calls the next request carries, in arrival order: at least
 * one, then as many as keep it within MAX_REQUEST_BYTES. A call too large to share a
 * request goes alone, as every call did before they were gathered, so it cannot fail
 * the calls it would otherwise have been sent with.
 */
export function takeRequest<T extends { records: readonly OutgoingRecord[] }>(waiting: T[]): T[] {
  let bytes = 0
  let n = 0
  while (n < waiting.length) {
    let size = 0
    for (const r of waiting[n]!.records) size += RECORD_FRAMING_BYTES + r.value.length + (r.key === null ? 0 : Buffer.byteLength(r.key))
    if (n > 0 && bytes + size > MAX_REQUEST_BYTES) break
    bytes += size
    n++
  }
  return waiting.splice(0, n)
}

/**
 * Each call's record offsets in one request's result: a partition's messages are
 * appended in the order the calls were taken, so a record's offset is its
 * partition's base offset plus the number of that partition's messages before it.
 */
function recordOffsets(calls: ReadonlyArray<Pick<PendingProduce, 'topic' | 'partitions'>>, result: ReadonlyArray<{ topicName: string; partition: number; errorCode: number; baseOffset?: string }>): ProducedRecordMeta[][] {
  const next = new Map<string, bigint>()
  for (const m of result) {
    if (m.errorCode !== 0 || m.baseOffset === undefined) throw new Error(`kafka produce to ${m.topicName}[${m.partition}] failed with code ${m.errorCode}`)
    next.set(`${m.topicName}\u0000${m.partition}`, BigInt(m.baseOffset))
  }
  return calls.map(({ topic, partitions }) =>
    partitions.map((partition) => {
      const key = `${topic}\u0000${partition}`
      const offset = next.get(key)
      if (offset === undefined) throw new Error(`kafka produce to ${topic}: no base offset for partition ${partition}`)
      next.set(key, offset + 1n)
      return { topic, partition, offset: offset.toString() }
    }),
  )
}
