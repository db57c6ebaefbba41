import { deadLetterV1 } from '@svc/shared/bus/records'
import type { ConsumedRecord } from '@svc/shared/bus/types'
import type { Store } from '@svc/shared/store/types'
import type { Logger } from '@svc/shared/log'

/**
 * Lands spans.raw.v1.dlq in dead_letters_v1 so ingestion health can count rejected
 * spans per workspace. The topic position is part of the sort key, so a replay
 * collapses instead of counting twice.
 */
export function deadLetterBatchHandler(store: Store, log: Logger) {
  return async (records: ConsumedRecord[]): Promise<void> => {
    const rows = records.flatMap((r) => {
      let d
      try {
        d = deadLetterV1.decode(r.value)
      } catch (err) {
        // Nothing further to send it to: log it and move on rather than stall the topic.
        log.error({ err, topic: r.topic, partition: r.partition, offset: r.offset }, 'undecodable dead letter dropped')
        return []
      }
      return [{
        org_id: d.org_id,
        workspace_id: d.workspace_id,
        source: d.source,
        reason: d.reason,
        payload: d.payload,
        received_at: String(d.received_at_ms),
        dlq_topic: r.topic,
        dlq_partition: r.partition,
        dlq_offset: r.offset,
      }]
    })
    await store.insert('dead_letters_v1', rows, { tag: 'assembler.dead-letters' })
  }
}
