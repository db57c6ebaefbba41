import type { Logger } from '@svc/shared/log'
import { deadLetterV1, spanV1, type SpanRecord } from '@svc/shared/bus/records'
import { TOPICS } from '@svc/shared/bus/topics'
import type { Bus, ConsumedRecord } from '@svc/shared/bus/types'
import { spanRow, type SpanRow } from './assemble.js'
import type { TraceTracker } from './trace-tracker.js'

export interface SpanSink {
  /** Resolves once the rows are stored; the bus commits the batch's offsets only after that. */
  add(rows: SpanRow[]): Promise<void>
}

/**
 * The onBatch of the spans.raw.v1 subscription: decode, map to rows, store, then
 * track the traces. A record that cannot be decoded is dead-lettered instead of
 * blocking its partition forever.
 */
export function spanBatchHandler(deps: {
  bus: Bus
  sink: SpanSink
  tracker: TraceTracker
  log: Logger
  retentionHoursFor(workspaceId: string): number
}) {
  return async (records: ConsumedRecord[]): Promise<void> => {
    const rows: SpanRow[] = []
    const spans: SpanRecord[] = []
    const poison: ConsumedRecord[] = []
    for (const r of records) {
      try {
        const span = spanV1.decode(r.value)
        rows.push(spanRow(span, deps.retentionHoursFor(span.workspace_id)))
        spans.push(span)
      } catch (err) {
        deps.log.warn({ err, topic: r.topic, partition: r.partition, offset: r.offset }, 'undecodable span record dead-lettered')
        poison.push(r)
      }
    }
    if (poison.length) await deps.bus.produce(TOPICS.spansRawDlq, poison.map(deadLetterOf))
    await deps.sink.add(rows)
    const now = Date.now()
    for (const s of spans)
      deps.tracker.observe(
        { org_id: s.org_id, workspace_id: s.workspace_id, project_id: s.project_id, trace_id: s.trace_id, span_id: s.span_id, startNs: BigInt(s.start_time_unix_nano), endNs: BigInt(s.end_time_unix_nano), receivedMs: s.received_at_ms },
        now,
      )
  }
}

function deadLetterOf(r: ConsumedRecord) {
  const [workspace = '', trace = ''] = (r.key?.toString() ?? '').split(':')
  return {
    key: r.key?.toString() ?? null,
    value: deadLetterV1.encode({
      org_id: '',
      workspace_id: workspace,
      source: 'assembler',
      reason: `undecodable span record at ${r.topic}/${r.partition}/${r.offset} (trace ${trace || 'unknown'})`,
      payload: r.value.subarray(0, 65536).toString('base64'),
      received_at_ms: r.timestamp,
    }),
  }
}
