import type { Logger } from '@svc/shared/log'
import { deadLetterV1, spanV1, traceKey, type SpanRecord } from '@svc/shared/bus/records'
import type { TraceRef } from '@svc/shared/store/queries/trace-totals'
import { TOPICS } from '@svc/shared/bus/topics'
import type { Bus, ConsumedRecord } from '@svc/shared/bus/types'
import { markFirstDeliveries, spanRow, type RowContext, type SpanRow } from './assemble.js'
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
  /** Retention, cost provider and price table for a workspace's rows. */
  rowContextFor(workspaceId: string): RowContext
  /** Keys (spanKey) of the given rows' spans that are already stored. */
  storedSpans(rows: SpanRow[]): Promise<Set<string>>
  /** Of these traces, those with sums in traces_v1 already (as `workspace:trace` keys). */
  tracesWithTotals(traces: TraceRef[]): Promise<Set<string>>
  /** Recomputes traces_v1 sums of these traces from their stored spans. */
  reconcile(traces: TraceRef[]): Promise<number>
  /** Records after a partition (re)starts whose traces are reconciled: at least what can be in flight uncommitted. */
  replayGuardRecords: number
}) {
  // Per partition: the offset expected next, and how many records of a replay are left.
  const partitions = new Map<string, { next: bigint; guard: number }>()
  return async (records: ConsumedRecord[]): Promise<void> => {
    const rows: SpanRow[] = []
    const spans: SpanRecord[] = []
    const poison: ConsumedRecord[] = []
    const replayed = new Map<string, TraceRef>()
    for (const r of records) {
      // Consumption that does not continue where it left off (a start, a rebalance, a
      // retried batch) may replay records whose insert landed without its view insert
      // before a crash: their traces get their sums recomputed once stored.
      const where = `${r.topic}/${r.partition}`
      const offset = BigInt(r.offset)
      let p = partitions.get(where)
      if (!p || p.next !== offset) partitions.set(where, (p = { next: offset, guard: deps.replayGuardRecords }))
      p.next = offset + 1n
      const inReplay = p.guard > 0
      if (inReplay) p.guard--
      try {
        const span = spanV1.decode(r.value)
        rows.push(spanRow(span, deps.rowContextFor(span.workspace_id)))
        spans.push(span)
        if (inReplay) replayed.set(traceKey(span.workspace_id, span.trace_id), { workspace_id: span.workspace_id, trace_id: span.trace_id })
      } catch (err) {
        deps.log.warn({ err, topic: r.topic, partition: r.partition, offset: r.offset }, 'undecodable span record dead-lettered')
        poison.push(r)
      }
    }
    if (poison.length) await deps.bus.produce(TOPICS.spansRawDlq, poison.map(deadLetterOf))
    // Exactly-once sums on at-least-once delivery: a trace's spans all come through
    // this partition, one batch at a time, and each batch is stored before the next
    // is handled, so the store plus this batch know every earlier copy.
    if (rows.length) markFirstDeliveries(rows, await deps.storedSpans(rows))
    // Of a replay, only traces stored before (spans, or sums) can be off; new ones
    // are counted right by this very insert.
    let suspects: TraceRef[] = []
    if (replayed.size) {
      const withTotals = await deps.tracesWithTotals([...replayed.values()])
      for (const r of rows) if (r.first_delivery === 0) withTotals.add(traceKey(r.workspace_id, r.trace_id))
      suspects = [...replayed].filter(([key]) => withTotals.has(key)).map(([, ref]) => ref)
    }
    await deps.sink.add(rows)
    if (suspects.length) {
      const corrected = await deps.reconcile(suspects)
      if (corrected) deps.log.info({ traces: corrected }, 'corrected trace totals after a replay')
    }
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
