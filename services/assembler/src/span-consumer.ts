import type { Logger } from '@svc/shared/log'
import { spanV1, traceKey, type SpanRecord } from '@svc/shared/bus/records'
import { isStorableUuid, type ConsumerSpec, type Rejection } from '@svc/shared/bus/run-consumer'
import type { TraceRef } from '@svc/shared/store/queries/trace-totals'
import { GROUPS, TOPICS } from '@svc/shared/bus/topics'
import type { ConsumedRecord } from '@svc/shared/bus/types'
import { markFirstDeliveries, newestPerSpan, spanRow, type RowContext, type SpanRow } from './assemble.js'
import type { TraceTracker } from './trace-tracker.js'

export interface SpanSink {
  /** Resolves once the rows are stored; the bus commits the batch's offsets only after that. */
  add(rows: SpanRow[]): Promise<void>
}

export interface SpanConsumerDeps {
  sink: SpanSink
  tracker: TraceTracker
  log: Logger
  /** Records handed to one batch. */
  maxBatchRecords: number
  /** Retention, cost provider and price table for a workspace's rows. */
  rowContextFor(workspaceId: string): RowContext
  /** Keys (spanKey) of the spans of these traces that are already stored; `replayed` traces are looked up in spans_v1 itself. */
  storedSpans(traces: TraceRef[], replayed: TraceRef[]): Promise<Set<string>>
  /** Of these traces, those with sums in traces_v1 already (as `workspace:trace` keys). */
  tracesWithTotals(traces: TraceRef[]): Promise<Set<string>>
  /** Recomputes traces_v1 sums of these traces from their stored spans. */
  reconcile(traces: TraceRef[]): Promise<number>
  /** Adds to the hourly roll-ups the stored copies of these traces' spans they never counted (rollups.ts). */
  reconcileRollups(traces: TraceRef[]): Promise<void>
  /** A fresh batch id (rollups.ts batchIds): stamped on the batch's rows, recorded by the roll-ups that count them. */
  nextBatchId(): string
  /** Records after a partition (re)starts whose traces are reconciled: at least what can be in flight uncommitted. */
  replayGuardRecords: number
}

/** ClickHouse's DateTime (expires_at) ends in 2106; DateTime64(9) holds signed 64-bit nanoseconds. */
const MAX_EXPIRY_S = 4_294_967_295
const MAX_NS = 2n ** 63n - 1n

/** Why a decoded span can never be stored (ClickHouse would refuse its row, failing the whole insert), or null. */
export function unstorableSpan(span: SpanRecord, row: SpanRow): string | null {
  if (!isStorableUuid(span.workspace_id) || !isStorableUuid(span.org_id)) return 'org_id or workspace_id is not a UUID'
  if (!span.trace_id || !span.span_id) return 'empty trace_id or span_id'
  const start = BigInt(span.start_time_unix_nano)
  const end = BigInt(span.end_time_unix_nano)
  if (start < 0n || end < 0n || start > MAX_NS || end > MAX_NS || row.expires_at > MAX_EXPIRY_S) return 'start or end time outside what spans_v1 can hold'
  return null
}

/** The rows' traces, each once (a batch's spans come trace by trace, so most rows are their predecessor's trace). */
export function tracesOf(rows: readonly SpanRow[]): TraceRef[] {
  const seen = new Set<string>()
  const out: TraceRef[] = []
  let prev: SpanRow | undefined
  for (const r of rows) {
    if (prev && r.trace_id === prev.trace_id && r.workspace_id === prev.workspace_id) continue
    prev = r
    const key = traceKey(r.workspace_id, r.trace_id)
    if (seen.has(key)) continue
    seen.add(key)
    out.push({ workspace_id: r.workspace_id, trace_id: r.trace_id })
  }
  return out
}

/**
 * Per partition, which records of a batch belong to a replay: consumption that
 * does not continue where it left off (a start, a rebalance, a retried batch) may
 * replay records whose insert landed without its view inserts before a crash, so
 * the first `guard` records after such a point are suspect.
 */
function replayTracker(guard: number) {
  const partitions = new Map<string, { next: bigint; guard: number }>()
  return (records: readonly ConsumedRecord[]): Set<ConsumedRecord> => {
    const replayed = new Set<ConsumedRecord>()
    for (const r of records) {
      const where = `${r.topic}/${r.partition}`
      const offset = BigInt(r.offset)
      let p = partitions.get(where)
      if (!p || p.next !== offset) partitions.set(where, (p = { next: offset, guard }))
      p.next = offset + 1n
      if (p.guard > 0) {
        p.guard--
        replayed.add(r)
      }
    }
    return replayed
  }
}

/**
 * The assembler's spans.raw.v1 consumer (group assembler): map spans to rows,
 * store them, then track their traces. A span that cannot be stored is rejected
 * (the runner dead-letters it) rather than blocking its partition forever.
 */
export function spanConsumer(deps: SpanConsumerDeps): ConsumerSpec<SpanRecord> {
  const replays = replayTracker(deps.replayGuardRecords)
  return {
    group: GROUPS.assembler,
    topics: { [TOPICS.spansRaw]: spanV1 },
    maxBatchRecords: deps.maxBatchRecords,
    log: deps.log,
    async handle(batch, ctx) {
      const inReplay = replays(ctx.records)
      const batchId = deps.nextBatchId()
      const mapped: SpanRow[] = []
      const spans: SpanRecord[] = []
      const rejected: Rejection[] = []
      const replayed = new Map<string, TraceRef>()
      // One workspace's spans come in a row: its context (settings look-ups) is worked out once per run of them.
      let contextOf: { workspaceId: string; ctx: RowContext } | undefined
      for (const { value: span, record } of batch) {
        let row: SpanRow | undefined
        let why: string | null
        try {
          if (contextOf?.workspaceId !== span.workspace_id) contextOf = { workspaceId: span.workspace_id, ctx: deps.rowContextFor(span.workspace_id) }
          row = spanRow(span, contextOf.ctx)
          why = unstorableSpan(span, row)
        } catch (err) {
          why = `unmappable span: ${err instanceof Error ? err.message : String(err)}`
        }
        if (why !== null || !row) {
          rejected.push({ record, reason: why ?? 'unmappable span', workspaceId: span.workspace_id, orgId: span.org_id })
          continue
        }
        row.batch_id = batchId
        mapped.push(row)
        spans.push(span)
        if (inReplay.has(record)) replayed.set(traceKey(span.workspace_id, span.trace_id), { workspace_id: span.workspace_id, trace_id: span.trace_id })
      }
      // Exactly-once sums on at-least-once delivery: a trace's spans all come through
      // this partition, one batch at a time, and each batch is stored before the next
      // is handled, so the store plus this batch know every earlier copy.
      const { rows, keys } = newestPerSpan(mapped)
      if (rows.length) markFirstDeliveries(rows, await deps.storedSpans(tracesOf(rows), [...replayed.values()]), keys)
      // Of a replay, only traces stored before (spans, or sums) can be off; new ones
      // are counted right by this very insert.
      let suspects: TraceRef[] = []
      if (replayed.size) {
        const withTotals = await deps.tracesWithTotals([...replayed.values()])
        for (const r of rows) if (r.first_delivery === 0) withTotals.add(traceKey(r.workspace_id, r.trace_id))
        suspects = [...replayed].filter(([key]) => withTotals.has(key)).map(([, ref]) => ref)
      }
      // Before this batch is stored: its own copies are counted by its own insert, and
      // the stored copies are looked at before a merge could replace them with these.
      if (suspects.length) await deps.reconcileRollups(suspects)
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
      return rejected
    },
  }
}
