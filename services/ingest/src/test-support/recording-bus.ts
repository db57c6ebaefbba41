/**
 * In-memory Bus for unit tests of route logic only: records what was produced and
 * lets a test hold produce calls open (to check the 202 waits for durability) or
 * make them fail (bus down). Integration tests use the real Kafka and embedded buses.
 */
import type { Bus, OutgoingRecord, ProducedRecordMeta, Subscription, TopicSpec } from '@svc/shared/bus/types'

interface PendingCall {
  topic: string
  records: OutgoingRecord[]
  resolve: () => void
  reject: (err: Error) => void
}

export class RecordingBus implements Bus {
  readonly kind = 'embedded' as const
  /** Records that were acknowledged, per topic, in produce order. */
  readonly produced = new Map<string, OutgoingRecord[]>()
  /** Every produce call, acknowledged or not. */
  readonly calls: Array<{ topic: string; count: number }> = []
  private holding = false
  private failWith: Error | null = null
  private pending: PendingCall[] = []

  /** Subsequent produce calls stay open until release() / fail(). */
  hold(): void {
    this.holding = true
  }

  /** Acknowledges every held call and stops holding. */
  release(): void {
    this.holding = false
    for (const p of this.pending.splice(0)) p.resolve()
  }

  /** Rejects every held call. */
  fail(err = new Error('bus down')): void {
    this.holding = false
    for (const p of this.pending.splice(0)) p.reject(err)
  }

  /** Subsequent produce calls reject (until set back to null). */
  failProduce(err: Error | null): void {
    this.failWith = err
  }

  get pendingCalls(): number {
    return this.pending.length
  }

  records(topic: string): OutgoingRecord[] {
    return this.produced.get(topic) ?? []
  }

  async ensureTopics(_specs: TopicSpec[]): Promise<void> {}

  produce(topic: string, records: OutgoingRecord[]): Promise<ProducedRecordMeta[]> {
    this.calls.push({ topic, count: records.length })
    if (this.failWith) return Promise.reject(this.failWith)
    return new Promise((resolve, reject) => {
      const ack = () => {
        const log = this.produced.get(topic) ?? []
        const metas = records.map((_, i) => ({ topic, partition: 0, offset: String(log.length + i) }))
        log.push(...records)
        this.produced.set(topic, log)
        resolve(metas)
      }
      if (this.holding) this.pending.push({ topic, records, resolve: ack, reject })
      else ack()
    })
  }

  async subscribe(): Promise<Subscription> {
    throw new Error('RecordingBus does not support subscribe')
  }

  async endOffsets(topic: string): Promise<Map<number, string>> {
    return new Map([[0, String(this.records(topic).length)]])
  }

  async committedOffsets(): Promise<Map<number, string>> {
    return new Map()
  }

  async close(): Promise<void> {}
}
