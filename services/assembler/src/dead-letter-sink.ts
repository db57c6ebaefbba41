import { deadLetterV1, engineJobFailedV1, type DeadLetterRecord, type EngineJobFailedRecord } from '@svc/shared/bus/records'
import { keyWorkspace, type ConsumerSpec, type DeadLetter } from '@svc/shared/bus/run-consumer'
import { DEAD_LETTER_TOPICS, engineJobsDlqTopic, GROUPS, TRACE_ENGINES } from '@svc/shared/bus/topics'
import type { ConsumedRecord } from '@svc/shared/bus/types'
import type { Logger } from '@svc/shared/log'
import type { Store } from '@svc/shared/store/types'

/** What a dead-letter row keeps of a record's bytes (base64) when the letter carries no JSON text of its own. */
const PAYLOAD_BYTES = 48 * 1024
const base64 = (b: Buffer) => b.subarray(0, PAYLOAD_BYTES).toString('base64')

const ENGINE_JOB_DLQS: ReadonlySet<string> = new Set(TRACE_ENGINES.map(engineJobsDlqTopic))

type Letter = DeadLetterRecord | EngineJobFailedRecord

function rowOf(r: ConsumedRecord, letter: Letter) {
  const at = { dlq_topic: r.topic, dlq_partition: r.partition, dlq_offset: r.offset }
  if ('job' in letter)
    return {
      org_id: '',
      workspace_id: letter.workspace_id,
      source: `engine.${letter.engine}`,
      reason: letter.error,
      payload: base64(letter.job),
      received_at: String(letter.failed_at_ms),
      ...at,
      // EngineJobFailed keeps no position of the job: such letters are told apart by their own.
      original_topic: '',
      original_partition: -1,
      original_offset: '-1',
    }
  return {
    org_id: letter.org_id,
    workspace_id: letter.workspace_id,
    source: letter.source,
    reason: letter.reason,
    payload: letter.payload || base64(letter.original_value ?? Buffer.alloc(0)),
    received_at: String(letter.received_at_ms),
    ...at,
    original_topic: letter.original_topic ?? '',
    original_partition: letter.original_partition ?? -1,
    original_offset: String(letter.original_offset ?? -1),
  }
}

/**
 * The dead-letter sink (group dead-letter-sink): every `.dlq` topic
 * (DEAD_LETTER_TOPICS) -> dead_letters_v1, so ingestion health counts each
 * workspace's rejected spans and the records its consumers could not handle.
 * The topic position is part of the sort key, so a replay collapses instead of
 * counting twice.
 *
 * A dead letter it cannot decode has nowhere further to go: it is landed as it is
 * (the bytes in `payload`, the workspace from its key, source `dead-letter-sink`)
 * and counted, never written to another `.dlq` — so the sink cannot loop on its
 * own poison, and nothing it reads is dropped.
 */
export function deadLetterSinkConsumer(store: Store, log: Logger): ConsumerSpec<Letter> {
  const insert = (rows: Array<ReturnType<typeof rowOf>>) => store.insert('dead_letters_v1', rows, { tag: 'assembler.dead-letters' })
  return {
    group: GROUPS.deadLetterSink,
    topics: Object.fromEntries(DEAD_LETTER_TOPICS.map((t) => [t, ENGINE_JOB_DLQS.has(t) ? engineJobFailedV1 : deadLetterV1])),
    log,
    async handle(batch) {
      await insert(batch.map(({ record, value }) => rowOf(record, value)))
    },
    landDeadLetters: (letters: DeadLetter[]) =>
      insert(
        letters.map((d) =>
          rowOf(d.record, {
            org_id: '',
            workspace_id: keyWorkspace(d.record.key),
            source: GROUPS.deadLetterSink,
            reason: d.reason,
            payload: base64(d.record.value),
            received_at_ms: d.record.timestamp,
          }),
        ),
      ),
  }
}
