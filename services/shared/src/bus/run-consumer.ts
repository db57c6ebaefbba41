/**
 * runConsumer(): the one way a service consumes a topic. Given a consumer group,
 * the Avro type of each topic it reads and a handler over decoded records, it
 *
 * - decodes every record; what cannot be decoded is dead-lettered, never skipped;
 * - hands the rest to the handler, which answers with per-record verdicts: a record
 *   it can never handle (a Rejection) is dead-lettered and the batch goes on, while
 *   a throw is a transient failure and the bus delivers the whole batch again;
 * - writes dead letters to `<topic>.dlq` (a DeadLetter keeping the original bytes,
 *   topic, partition, offset and the reason; consumers with their own dead-letter
 *   record say how to encode it) before the bus commits the batch's offsets, so a
 *   poison record neither blocks its partition nor disappears;
 * - counts records, batches, handler time, failures and dead letters on /metrics,
 *   and registers the group for the consumer-lag gauge;
 * - tracks the group's lag in time (consumer-lag.ts: the age of the oldest record it
 *   has not committed, what ingest's admission bounds);
 * - sizes each partition's batches by its backlog (batch-size.ts): small while
 *   caught up, growing to `maxBatchRecords` while behind;
 * - in the all-in-one, runs background consumers' batches in the background lane
 *   (background-lane.ts), so they wait while the hot path is busy.
 *
 * Dead letters of one batch are written after its handler succeeded: a batch that
 * is retried does not dead-letter its poison twice, and a crash between the dead
 * letters and the commit repeats them (at least once, like every record here).
 */
import type { BackgroundLane } from '../background-lane.js'
import { every, nextTurn } from '../concurrency.js'
import type { Logger } from '../log.js'
import { groupBy } from '../group-by.js'
import { consumerBatches, consumerBatchFailures, consumerDeadLetters, consumerHandlerSeconds, consumerRecords, watchConsumerLag } from '../metrics.js'
import type { AvroType } from './avro.js'
import { batchSizes } from './batch-size.js'
import { forgetGroupLag, lagBatchDone, lagBatchFailed, lagBatchStarted } from './consumer-lag.js'
import { deadLetterV1 } from './records.js'
import { dlqTopic } from './topics.js'
import type { BatchContext, Bus, ConsumedRecord, OutgoingRecord, Subscription } from './types.js'

/** A decoded record and where it came from. */
export interface Delivered<T> {
  value: T
  record: ConsumedRecord
}

/** Why a record is dead-lettered: it did not decode, the handler found it invalid, or handling kept failing (after the handler's own retries). */
export type DeadLetterCause = 'undecodable' | 'invalid' | 'failed'

/** The handler's verdict on one record it can never handle. */
export interface Rejection {
  record: ConsumedRecord
  /** One line, kept in the dead letter. */
  reason: string
  /** Default 'invalid'. */
  cause?: Exclude<DeadLetterCause, 'undecodable'>
  /** Known from the decoded record; else taken from the record's key (`workspace_id:...`). */
  workspaceId?: string
  orgId?: string
  /** How many times handling was tried (engines retry a job before giving up). */
  attempts?: number
  /** The one item of the record that is rejected, as JSON text, when the record holds several (a span of a SpanBatch); the letter keeps the record's bytes too. */
  payload?: string
}

/** A record on its way to a dead-letter topic (or, for the dead-letter sink, to its table). */
export interface DeadLetter {
  group: string
  record: ConsumedRecord
  cause: DeadLetterCause
  reason: string
  workspaceId: string
  orgId: string
  attempts: number
  /** Rejection.payload; '' when the whole record is what was rejected. */
  payload: string
}

export interface ConsumerContext extends BatchContext {
  /** The batch as the bus delivered it, undecodable records included (offset bookkeeping). */
  readonly records: readonly ConsumedRecord[]
}

interface ConsumerSpecBase<T> {
  group: string
  /** Each topic the group reads, with the Avro type of its records (or a reader of their bytes: span-batch-view.ts). */
  topics: Readonly<Record<string, Pick<AvroType<T>, 'decode' | 'name'>>>
  /** Where a group with no committed offset starts. Default true: nothing written before the group existed is skipped. */
  fromBeginning?: boolean
  /** The largest batch, reached while the group is behind (default 5,000 records). */
  maxBatchRecords?: number
  /** The batch while caught up, where sizes start and return to (default a sixteenth of the largest). */
  minBatchRecords?: number
  /**
   * Topics whose records each hold several items, with about how many: their batch
   * bounds are the ones above divided by it, so a batch holds about as many items
   * whichever topic it is of (the assembler's spans.raw.v2, a trace's spans per record).
   */
  itemsPerRecord?: Readonly<Record<string, number>>
  /**
   * A lane the batches wait their turn in (decoding, handler, dead letters), while a hot
   * path sharing the process is busy: the all-in-one's background consumers.
   */
  background?: BackgroundLane
  /** The dead-letter record, when the topic's `.dlq` carries another type than DeadLetter (the engines' EngineJobFailed). */
  encodeDeadLetter?(letter: DeadLetter): Buffer
  /**
   * Where dead letters go instead of `<topic>.dlq`. The dead-letter sink lands its own
   * poison in its table rather than in a `.dlq.dlq`, so nothing loops.
   */
  landDeadLetters?(letters: DeadLetter[]): Promise<void>
  log: Logger
}

export type ConsumerSpec<T> = ConsumerSpecBase<T> &
  (
    | {
        decodeAsRead?: false
        /** Handles the decoded records; resolves with the ones it can never handle. A throw retries the whole batch. */
        handle(batch: Array<Delivered<T>>, ctx: ConsumerContext): Promise<Rejection[] | void>
      }
    | {
        /**
         * Decode each record as the handler reads it, instead of the whole batch before
         * the handler runs: a handler that is done with each record before it reads the
         * next then never has a whole batch of decoded records alive at once (the span
         * consumer: otherwise every batch's tens of megabytes of records outlived the
         * collector's young generation). The batch is read once; records the handler
         * does not read are decoded (or dead-lettered) after it returns, so none is skipped.
         */
        decodeAsRead: true
        handle(batch: Iterable<Delivered<T>>, ctx: ConsumerContext): Promise<Rejection[] | void>
      }
  )

const message = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 500)

/**
 * Whether ClickHouse's UUID columns take this id. A handler rejects a record whose
 * id they would refuse: one bad row fails its whole insert, and so its batch, forever.
 */
export const isStorableUuid = (id: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)

/** The workspace a record's key names: keys are `workspace_id` or `workspace_id:<trace, session, document>`. */
export const keyWorkspace = (key: Buffer | null) => (key ? key.toString().split(':')[0]! : '')

function asDeadLetterRecord(d: DeadLetter): Buffer {
  return deadLetterV1.encode({
    org_id: d.orgId,
    workspace_id: d.workspaceId,
    source: d.group,
    reason: d.reason,
    payload: d.payload,
    received_at_ms: d.record.timestamp,
    original_topic: d.record.topic,
    original_partition: d.record.partition,
    original_offset: BigInt(d.record.offset),
    original_value: d.record.value,
  })
}

/** The onBatch of a consumer: what runConsumer subscribes with (tests call it with records directly). */
export function consumerBatchHandler<T>(bus: Bus, spec: ConsumerSpec<T>): (records: ConsumedRecord[], ctx?: BatchContext) => Promise<void> {
  const { group, log } = spec
  const encode = spec.encodeDeadLetter ?? asDeadLetterRecord
  const land =
    spec.landDeadLetters ??
    (async (letters: DeadLetter[]) => {
      const byTopic = groupBy(letters, (d) => dlqTopic(d.record.topic))
      await Promise.all([...byTopic].map(([topic, ds]) => bus.produce(topic, ds.map((d): OutgoingRecord => ({ key: d.record.key?.toString() ?? null, value: encode(d) })))))
    })
  const letterOf = (record: ConsumedRecord, cause: DeadLetterCause, reason: string, r?: Rejection): DeadLetter => ({
    group,
    record,
    cause,
    reason,
    workspaceId: r?.workspaceId ?? keyWorkspace(record.key),
    orgId: r?.orgId ?? '',
    attempts: r?.attempts ?? 0,
    payload: r?.payload ?? '',
  })

  const handle = async (records: ConsumedRecord[], ctx: BatchContext) => {
    const started = performance.now()
    const letters: DeadLetter[] = []
    const decode = (record: ConsumedRecord): Delivered<T> | undefined => {
      const type = spec.topics[record.topic]
      try {
        if (!type) throw new Error(`no record type for topic ${record.topic}`)
        return { value: type.decode(record.value), record }
      } catch (err) {
        letters.push(letterOf(record, 'undecodable', `undecodable ${type?.name ?? 'record'}: ${message(err)}`))
        return undefined
      }
    }
    let read = 0
    const asRead: Iterable<Delivered<T>> = {
      *[Symbol.iterator]() {
        while (read < records.length) {
          const d = decode(records[read++]!)
          if (d) yield d
        }
      },
    }
    const decoded: Array<Delivered<T>> = []
    if (!spec.decodeAsRead) {
      // A background consumer's batch must not hold the thread the hot path shares with it.
      const due = spec.background ? every() : undefined
      for (const d of asRead) {
        decoded.push(d)
        if (due?.()) await nextTurn()
      }
    }
    try {
      const context: ConsumerContext = {
        get closing() {
          return ctx.closing
        },
        records,
      }
      const rejected = spec.decodeAsRead ? await spec.handle(asRead, context) : await spec.handle(decoded, context)
      for (const _ of asRead); // what the handler left unread: decoded or dead-lettered, never skipped
      for (const r of rejected ?? []) letters.push(letterOf(r.record, r.cause ?? 'invalid', r.reason.slice(0, 2000), r))
      if (letters.length) await land(letters)
    } catch (err) {
      consumerBatchFailures.inc({ group })
      throw err
    } finally {
      consumerHandlerSeconds.observe({ group }, (performance.now() - started) / 1000)
    }
    consumerBatches.inc({ group })
    const perTopic = new Map<string, number>()
    for (const r of records) perTopic.set(r.topic, (perTopic.get(r.topic) ?? 0) + 1)
    for (const [topic, n] of perTopic) consumerRecords.inc({ group, topic }, n)
    for (const d of letters) {
      consumerDeadLetters.inc({ topic: d.record.topic, reason: d.cause })
      log.warn({ group, topic: d.record.topic, partition: d.record.partition, offset: d.record.offset, workspace_id: d.workspaceId || undefined, cause: d.cause, reason: d.reason }, 'record dead-lettered')
    }
  }
  const lane = spec.background
  return async (records, ctx = { closing: false }) => {
    lagBatchStarted(group, records)
    try {
      await (lane ? lane.run(() => handle(records, ctx), ctx) : handle(records, ctx))
    } catch (err) {
      lagBatchFailed(group, records)
      throw err
    }
    lagBatchDone(group, records, ctx.backlog)
  }
}

/** Batch bounds of a consumer on a topic: the spec's largest (default 5,000), and the caught-up size (default a sixteenth of it), in records. */
function batchBounds(spec: Pick<ConsumerSpec<unknown>, 'maxBatchRecords' | 'minBatchRecords' | 'itemsPerRecord'>, topic: string): { min: number; max: number } {
  const per = spec.itemsPerRecord?.[topic] ?? 1
  const max = Math.max(1, Math.ceil((spec.maxBatchRecords ?? 5000) / per))
  const min = spec.minBatchRecords === undefined ? Math.floor(max / 16) : Math.floor(spec.minBatchRecords / per)
  return { min: Math.min(max, Math.max(1, min)), max }
}

/** Subscribes the group through the runner; resolves once subscribed (await `ready` for the group's assignment). */
export async function runConsumer<T>(bus: Bus, spec: ConsumerSpec<T>): Promise<Subscription> {
  const topics = Object.keys(spec.topics)
  watchConsumerLag(spec.group, topics)
  const sizes = batchSizes((topic) => batchBounds(spec, topic))
  const onBatch = consumerBatchHandler(bus, spec)
  const sub = await bus.subscribe({
    group: spec.group,
    topics,
    fromBeginning: spec.fromBeginning ?? true,
    maxBatchRecords: sizes.limit,
    async onBatch(records, ctx) {
      await onBatch(records, ctx)
      // A bus batch is one partition's records.
      const first = records[0]
      if (first) sizes.observe(first.topic, first.partition, records.length, ctx.backlog)
    },
  })
  return {
    ready: sub.ready,
    async close() {
      await sub.close()
      forgetGroupLag(spec.group)
    },
  }
}
