/**
 * The bus is the service's spine: an append-only, partitioned, replayable log.
 * Two implementations share this contract: Kafka (kafkajs) for many machines and
 * an embedded segment-file log for one machine. Everything above the adapter
 * (ingest, assembler, engines, control plane) only sees these types.
 */

export interface TopicSpec {
  name: string
  partitions: number
  /** Kafka replication factor; ignored by the embedded log. */
  replicationFactor?: number
  /** Milliseconds to keep records; -1 keeps them forever (the control topic). */
  retentionMs?: number
}

export interface OutgoingRecord {
  /** Records with the same key land on the same partition, in order. */
  key: string | null
  value: Buffer
}

export interface ProducedRecordMeta {
  topic: string
  partition: number
  /** Offset of the record, as a decimal string (Kafka offsets are int64). */
  offset: string
}

export interface ConsumedRecord {
  topic: string
  partition: number
  offset: string
  key: Buffer | null
  value: Buffer
  /** Append time, ms since epoch. */
  timestamp: number
}

export interface BatchContext {
  /** Becomes true when the subscription is closing; long handlers may stop early. */
  readonly closing: boolean
  /**
   * Records of the batch's partition after its last one (0: the batch reached the end);
   * absent when unknown. The embedded bus counts them when asked, so after the handler
   * it includes what arrived meanwhile; Kafka knows them as of the batch's fetch.
   */
  readonly backlog?: number
}

export interface SubscribeOptions {
  /** Consumer group; committed offsets are shared by every member of the group. */
  group: string
  topics: string[]
  /** Where a group with no committed offset starts. Default false (latest). */
  fromBeginning?: boolean
  /**
   * An ephemeral subscription never commits and always starts from the beginning
   * (used to fold the control topic into in-memory state in every process).
   */
  ephemeral?: boolean
  /**
   * Upper bound on records handed to one onBatch call; a function is asked before
   * each read of a partition (the consumer runner sizes batches by backlog).
   */
  maxBatchRecords?: number | ((topic: string, partition: number) => number)
  /**
   * Called with records in offset order per partition. Offsets are committed only
   * after the returned promise resolves (at-least-once). A rejection is retried
   * with backoff; the same records are delivered again.
   */
  onBatch(records: ConsumedRecord[], ctx: BatchContext): Promise<void>
}

export interface Subscription {
  /** Resolves once the consumer has joined its group and been assigned partitions. */
  ready: Promise<void>
  close(): Promise<void>
}

export interface Bus {
  readonly kind: 'kafka' | 'embedded'
  /** Creates missing topics; existing topics are left untouched. */
  ensureTopics(specs: TopicSpec[]): Promise<void>
  /**
   * Appends records and resolves only once they are durable: acks=all on Kafka,
   * fsync on the embedded log. Rejects if they are not.
   */
  produce(topic: string, records: OutgoingRecord[]): Promise<ProducedRecordMeta[]>
  subscribe(opts: SubscribeOptions): Promise<Subscription>
  /** Next offset to be written per partition (the high watermark). */
  endOffsets(topic: string): Promise<Map<number, string>>
  /** Committed offsets of a group per partition (next offset to read); absent = none. */
  committedOffsets(group: string, topic: string): Promise<Map<number, string>>
  /**
   * The embedded log's bytes on disk against its budget (SVC_EMBEDDED_MAX_BYTES), read
   * synchronously at every ingest admission; absent on Kafka, whose brokers own their disks.
   */
  diskUsage?(): DiskUsage
  close(): Promise<void>
}

export interface DiskUsage {
  bytes: number
  maxBytes: number
}
