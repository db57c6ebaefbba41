import type { Logger } from '@svc/shared/log'
import { spanV1, traceKey, type SpanRecord } from '@svc/shared/bus/records'
import { isStorableUuid, type ConsumerSpec, type Rejection } from '@svc/shared/bus/run-consumer'
import { spansOf, SPANS_PER_RECORD_ESTIMATE } from '@svc/shared/bus/span-batch'
import { SpanBatchView, spanBatchV2View } from '@svc/shared/bus/span-batch-view'
import { boundedJson, MAX_JSON_DEPTH } from '@svc/shared/json-limits'
import type { TraceRef } from '@svc/shared/store/queries/trace-totals'
import { GROUPS, TOPICS } from '@svc/shared/bus/topics'
import type { ConsumedRecord } from '@svc/shared/bus/types'
import { EncodedRows, NotEncodable, type RowEncoding } from '@svc/shared/store/row-binary'
import { SpanCopies, spanKey, spanRow, type RowContext, type SpanRow } from './assemble.js'
import { spanRowWriter, type SpanRowWriter } from './span-rows.js'
import type { TraceTracker } from './trace-tracker.js'

export interface SpanSink {
  /** How spans_v1's SPAN_COLUMNS are written now (the table's column types). */
  encoding(): Promise<RowEncoding>
  /** Resolves once the rows are stored; the bus commits the batch's offsets only after that. */
  add(rows: EncodedRows): Promise<void>
}

export interface SpanConsumerDeps {
  sink: SpanSink
  tracker: TraceTracker
  log: Logger
  /** Spans handed to one batch at most (in records of spans.raw.v2: this over SPANS_PER_RECORD_ESTIMATE). */
  maxBatchSpans: number
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
  /** Spans after a partition (re)starts whose traces are reconciled: at least what can be in flight uncommitted (in records of spans.raw.v2: this over SPANS_PER_RECORD_ESTIMATE). */
  replayGuardSpans: number
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

/**
 * Per partition, which records of a batch belong to a replay: consumption that
 * does not continue where it left off (a start, a rebalance, a retried batch) may
 * replay records whose insert landed without its view inserts before a crash, so
 * the first `guard` records after such a point are suspect.
 */
function replayTracker(guardOf: (topic: string) => number) {
  const partitions = new Map<string, { next: bigint; guard: number }>()
  return (records: readonly ConsumedRecord[]): Set<ConsumedRecord> => {
    const replayed = new Set<ConsumedRecord>()
    for (const r of records) {
      const where = `${r.topic}/${r.partition}`
      const offset = BigInt(r.offset)
      let p = partitions.get(where)
      if (!p || p.next !== offset) partitions.set(where, (p = { next: offset, guard: guardOf(r.topic) }))
      p.next = offset + 1n
      if (p.guard > 0) {
        p.guard--
        replayed.add(r)
      }
    }
    return replayed
  }
}

const MAX_INITIAL_BATCH_BYTES = 32 << 20

/** The fields of a span that its record holds once, as a SpanRecord and a SpanBatchView both have them. */
type SharedFields = Pick<SpanRecord, 'org_id' | 'workspace_id' | 'project_id' | 'trace_id' | 'received_at_ms'>

/** A 64-bit time as its halves: hi (signed) and lo (unsigned), as SpanBatchView.times holds them. */
type Halves = [hi: number, lo: number]

/** What a batch keeps of one trace while its rows are stored (each span's row is encoded at once and let go). */
interface BatchTrace {
  ref: TraceRef
  workspace_id: string
  trace_id: string
  org_id: string
  project_id: string
  start: Halves
  end: Halves
  receivedMs: number
  /** Its span ids, each with the index of the row kept (the copy received last). */
  spans: Map<string, number>
}

const before = (aHi: number, aLo: number, bHi: number, bLo: number) => aHi < bHi || (aHi === bHi && aLo < bLo)
const halvesOf = (ns: bigint): Halves => [Number(BigInt.asIntN(64, ns) >> 32n), Number(BigInt.asUintN(32, ns))]
const bigintOf = ([hi, lo]: Halves) => (BigInt(hi) << 32n) + BigInt(lo)

/** A dead letter's payload cut here: it shows a person which span of its record was rejected. */
const REJECTED_SPAN_PAYLOAD_CHARS = 16 * 1024

/**
 * The assembler's consumer of spans.raw.v2 (a record per trace per request) and
 * spans.raw.v1 (a record per span, drained after an upgrade), group assembler: map
 * spans to rows, store them, then track their traces. A span that cannot be stored
 * is rejected (the runner dead-letters it, with the span itself as the payload when
 * its record holds others) rather than blocking its partition forever.
 *
 * Each record is decoded, mapped and encoded before the next is read (the
 * runner's decodeAsRead), so of a batch of 20,000 spans only the encoded bytes and
 * a summary per trace stay alive while the batch's look-ups and insert run.
 */
export function spanConsumer(deps: SpanConsumerDeps): ConsumerSpec<SpanRecord | SpanBatchView> {
  // Bounds counted in spans, as records of each topic (a spans.raw.v2 record holds about SPANS_PER_RECORD_ESTIMATE).
  const itemsPerRecord: Readonly<Record<string, number>> = { [TOPICS.spansRaw]: SPANS_PER_RECORD_ESTIMATE }
  const replays = replayTracker((topic) => Math.ceil(deps.replayGuardSpans / (itemsPerRecord[topic] ?? 1)))
  // Row bytes per bus record of the last batch (a record holds a span, or a trace's spans).
  let bytesPerRecord = 1024
  // The row writer of the table's encoding (null: its column types are not the ones span-rows.ts writes).
  let writerOf: { encoding: RowEncoding; writer: SpanRowWriter | null } | undefined
  return {
    group: GROUPS.assembler,
    topics: { [TOPICS.spansRaw]: spanBatchV2View, [TOPICS.spansRawV1]: spanV1 },
    maxBatchRecords: deps.maxBatchSpans,
    itemsPerRecord,
    decodeAsRead: true,
    log: deps.log,
    async handle(batch, ctx) {
      const inReplay = replays(ctx.records)
      const batchId = deps.nextBatchId()
      const encoding = await deps.sink.encoding()
      if (writerOf?.encoding !== encoding) writerOf = { encoding, writer: spanRowWriter(encoding) }
      // Room for the batch at the last batch's bytes per record, so the buffer rarely grows; capped, as one batch
      // of a few huge spans must not size the next batch of many small ones (it grows past the cap as needed).
      const rows = new EncodedRows(encoding, Math.min(MAX_INITIAL_BATCH_BYTES, Math.ceil(ctx.records.length * bytesPerRecord * 1.1)))
      const made = new BatchRows(rows, writerOf.writer, batchId, inReplay, deps.rowContextFor)
      for (const { value, record } of batch) made.add(value, record)
      const { copies, traces, rejected, replayed } = made
      if (rows.count) bytesPerRecord = rows.body().length / ctx.records.length
      // Exactly-once sums on at-least-once delivery: a trace's spans all come through
      // this partition, one batch at a time, and each batch is stored before the next
      // is handled, so the store plus this batch know every earlier copy. A batch
      // stores one copy per span (SpanCopies); a copy already stored gets first_delivery 0.
      const repeats = traces.size ? markStoredCopies(rows, traces, await deps.storedSpans([...traces.values()].map((t) => t.ref), [...replayed.values()])) : new Set<string>()
      const kept = copies.kept()
      if (kept) rows.keep(kept)
      // Of a replay, only traces stored before (spans, or sums) can be off; new ones
      // are counted right by this very insert.
      let suspects: TraceRef[] = []
      if (replayed.size) {
        const withTotals = await deps.tracesWithTotals([...replayed.values()])
        for (const key of repeats) withTotals.add(key)
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
      for (const t of traces.values()) deps.tracker.observe({ ...t.ref, org_id: t.org_id, project_id: t.project_id, startNs: bigintOf(t.start), endNs: bigintOf(t.end), receivedMs: t.receivedMs, spanIds: t.spans.keys() }, now)
      return rejected
    },
  }
}

/**
 * What one batch makes of its records: each span's row (encoded at once, from the
 * record's bytes where span-rows.ts can, else through spanRow), one summary per
 * trace, the spans rejected, and the traces of records in a replay.
 */
class BatchRows {
  readonly copies = new SpanCopies()
  readonly traces = new Map<string, BatchTrace>()
  readonly rejected: Rejection[] = []
  readonly replayed = new Map<string, TraceRef>()
  // One workspace's spans come in a row: its context (settings look-ups) is worked out once per run of them.
  private contextOf: { workspaceId: string; ctx: RowContext } | undefined
  // A batch's spans come trace by trace: a span of the previous span's trace needs no key or look-up.
  private trace: BatchTrace | undefined

  constructor(
    private readonly rows: EncodedRows,
    private readonly writer: SpanRowWriter | null,
    private readonly batchId: string,
    private readonly inReplay: ReadonlySet<ConsumedRecord>,
    private readonly rowContextFor: (workspaceId: string) => RowContext,
  ) {}

  add(value: SpanRecord | SpanBatchView, record: ConsumedRecord): void {
    if (!(value instanceof SpanBatchView)) return this.generic(value, record, false)
    // Spans straight from the record's bytes (span-rows.ts), each the writer declines through spanRow as before.
    const fast = this.writer?.begin(value) ? this.writer : null
    let decoded: SpanRecord[] | undefined
    for (let i = 0; i < value.count; i++) {
      if (fast?.write(this.rows, i, this.rowContext(value.workspace_id), this.batchId)) this.track(record, value, value.spanIds[i]!, value.times, 4 * i)
      else this.generic((decoded ??= spansOf(value.decoded()))[i]!, record, true)
    }
  }

  private rowContext(workspaceId: string): RowContext {
    if (this.contextOf?.workspaceId !== workspaceId) this.contextOf = { workspaceId, ctx: this.rowContextFor(workspaceId) }
    return this.contextOf.ctx
  }

  /** A span through spanRow: stored, or rejected (with itself as the payload when its record holds others). */
  private generic(span: SpanRecord, record: ConsumedRecord, several: boolean): void {
    let row: SpanRow | undefined
    let why: string | null
    try {
      row = spanRow(span, this.rowContext(span.workspace_id))
      why = unstorableSpan(span, row)
      if (why === null) {
        row.batch_id = this.batchId
        this.rows.push(row)
      }
    } catch (err) {
      why = err instanceof NotEncodable ? `unstorable span: ${err.message}` : `unmappable span: ${err instanceof Error ? err.message : String(err)}`
    }
    if (why !== null || !row) {
      const payload = several ? boundedJson(span, { maxDepth: MAX_JSON_DEPTH, maxChars: REJECTED_SPAN_PAYLOAD_CHARS }) : undefined
      this.rejected.push({ record, reason: why ?? 'unmappable span', workspaceId: span.workspace_id, orgId: span.org_id, payload })
      return
    }
    this.track(record, span, span.span_id, [...halvesOf(BigInt(span.start_time_unix_nano)), ...halvesOf(BigInt(span.end_time_unix_nano))], 0)
  }

  /** A stored span in its trace's summary: its start and end are times[i..i+3] (halves). */
  private track(record: ConsumedRecord, shared: SharedFields, spanId: string, times: ArrayLike<number>, i: number): void {
    let trace = this.trace
    if (trace?.trace_id !== shared.trace_id || trace.workspace_id !== shared.workspace_id) trace = this.trace = batchTrace(this.traces, shared, times, i)
    this.copies.add(trace.spans, spanId, shared.received_at_ms)
    const { start, end } = trace
    if (before(times[i]!, times[i + 1]!, start[0], start[1])) {
      start[0] = times[i]!
      start[1] = times[i + 1]!
    }
    if (before(end[0], end[1], times[i + 2]!, times[i + 3]!)) {
      end[0] = times[i + 2]!
      end[1] = times[i + 3]!
    }
    if (shared.received_at_ms > trace.receivedMs) trace.receivedMs = shared.received_at_ms
    if (this.inReplay.has(record)) this.replayed.set(traceKey(shared.workspace_id, shared.trace_id), trace.ref)
  }
}

/** Sets first_delivery 0 in the rows of copies already stored (`stored`: spanKeys); answers the keys of the traces with one. */
function markStoredCopies(rows: EncodedRows, traces: ReadonlyMap<string, BatchTrace>, stored: ReadonlySet<string>): Set<string> {
  const repeats = new Set<string>()
  if (stored.size)
    for (const [key, t] of traces)
      for (const [spanId, index] of t.spans)
        if (stored.has(spanKey({ ...t.ref, span_id: spanId }))) {
          rows.setLastByte(index, 0)
          repeats.add(key)
        }
  return repeats
}

/** The batch's summary of this span's trace, begun with the span (its start and end at times[i..i+3]) when it is the trace's first. */
function batchTrace(traces: Map<string, BatchTrace>, span: SharedFields, times: ArrayLike<number>, i: number): BatchTrace {
  const key = traceKey(span.workspace_id, span.trace_id)
  let t = traces.get(key)
  if (!t) {
    const ref = { workspace_id: span.workspace_id, trace_id: span.trace_id }
    t = { ...ref, ref, org_id: span.org_id, project_id: span.project_id, spans: new Map(), start: [times[i]!, times[i + 1]!], end: [times[i + 2]!, times[i + 3]!], receivedMs: span.received_at_ms }
    traces.set(key, t)
  }
  return t
}
