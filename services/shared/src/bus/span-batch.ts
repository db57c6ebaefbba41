/**
 * Spans on the bus: a SpanBatch record (span-batch.v2.avsc) per trace per ingest
 * request on spans.raw.v2, where spans.raw.v1 had a Span record per span. A
 * request's spans of one trace travel together anyway (same key, so same partition,
 * one after another), and the bus, its client and the consumer runner cost about
 * as much per record as per span: with ~20 spans per trace per request they now do
 * that work once per trace, and the fields the spans share are encoded once.
 *
 * The assembler reads both topics, so what an older ingest wrote to spans.raw.v1
 * is drained after an upgrade; spansOf() turns either record into SpanRecords.
 */
import { loadAvroType } from './avro.js'
import { traceKey, type SpanRecord } from './records.js'
import type { OutgoingRecord } from './types.js'

/** What a SpanBatch holds once: the fields every span of a trace from one request shares. */
type Shared = 'org_id' | 'workspace_id' | 'project_id' | 'trace_id' | 'received_at_ms'

export type BatchedSpan = Omit<SpanRecord, Shared>

export interface SpanBatchRecord extends Pick<SpanRecord, Shared> {
  spans: BatchedSpan[]
}

export const spanBatchV2 = loadAvroType<SpanBatchRecord>('span-batch.v2.avsc')

/**
 * Spans per record at most: bounds a record (a trace of thousands of spans in one
 * request becomes several), so the consumer's batches, counted in records, stay
 * bounded in spans (SPANS_PER_RECORD_ESTIMATE below).
 */
export const MAX_SPANS_PER_RECORD = 64

/**
 * The assembler counts its batches in records: a batch of spans.raw.v2 records is
 * sized at its span budget divided by this (a typical request's trace has 10-30 spans).
 */
export const SPANS_PER_RECORD_ESTIMATE = 16

/**
 * The records of one request's spans: one per trace and project (the project is a
 * span's own when it names one), in order of each trace's first span, each with at
 * most MAX_SPANS_PER_RECORD spans in the order they came. Every span is expected to
 * carry the same org, workspace and received_at_ms (one request's); those that do not
 * are kept apart too, so nothing is ever attributed to another span's fields.
 */
export function spanBatches(spans: readonly SpanRecord[]): SpanBatchRecord[] {
  const open = new Map<string, SpanBatchRecord>()
  const out: SpanBatchRecord[] = []
  for (const s of spans) {
    const group = `${s.trace_id}\u0000${s.project_id}\u0000${s.workspace_id}\u0000${s.org_id}\u0000${s.received_at_ms}`
    let b = open.get(group)
    if (!b || b.spans.length >= MAX_SPANS_PER_RECORD) {
      b = { org_id: s.org_id, workspace_id: s.workspace_id, project_id: s.project_id, trace_id: s.trace_id, received_at_ms: s.received_at_ms, spans: [] }
      open.set(group, b)
      out.push(b)
    }
    b.spans.push(batched(s))
  }
  return out
}

/**
 * Encoded bytes a record of several spans stays under: a Kafka broker refuses a
 * record past its message.max.bytes (1 MiB by default), and a request's spans must
 * not become unstorable for having been put together. A record over it is split in
 * halves until each is under it or holds one span (which a record per span had too).
 */
export const MAX_RECORD_BYTES = 256 * 1024

/** spanBatches encoded for spans.raw.v2, keyed by trace. */
export function spanBatchRecords(spans: readonly SpanRecord[]): OutgoingRecord[] {
  const out: OutgoingRecord[] = []
  const add = (b: SpanBatchRecord) => {
    const value = spanBatchV2.encode(b)
    if (value.length <= MAX_RECORD_BYTES || b.spans.length === 1) {
      out.push({ key: traceKey(b.workspace_id, b.trace_id), value })
      return
    }
    const half = Math.ceil(b.spans.length / 2)
    add({ ...b, spans: b.spans.slice(0, half) })
    add({ ...b, spans: b.spans.slice(half) })
  }
  for (const b of spanBatches(spans)) add(b)
  return out
}

function batched(s: SpanRecord): BatchedSpan {
  const { org_id: _o, workspace_id: _w, project_id: _p, trace_id: _t, received_at_ms: _r, ...span } = s
  return span
}

/** The spans of a record read from spans.raw.v1 (a Span) or spans.raw.v2 (a SpanBatch), as Span records. */
export function spansOf(value: SpanRecord | SpanBatchRecord): SpanRecord[] {
  if (!('spans' in value)) return [value]
  const { org_id, workspace_id, project_id, trace_id, received_at_ms } = value
  // Every field in span.v1.avsc's order, so every span has one shape whichever topic it came from.
  return value.spans.map((s) => ({
    org_id,
    workspace_id,
    project_id,
    trace_id,
    span_id: s.span_id,
    parent_span_id: s.parent_span_id,
    name: s.name,
    kind: s.kind,
    start_time_unix_nano: s.start_time_unix_nano,
    end_time_unix_nano: s.end_time_unix_nano,
    status_code: s.status_code,
    status_message: s.status_message,
    service_name: s.service_name,
    scope_name: s.scope_name,
    resource_attributes: s.resource_attributes,
    attributes: s.attributes,
    json_attribute_keys: s.json_attribute_keys,
    events_json: s.events_json,
    links_json: s.links_json,
    received_at_ms,
  }))
}

/** Every span of spans.raw.v2 records (tests and tools reading what ingest wrote). */
export const decodeSpanRecords = (values: readonly Buffer[]): SpanRecord[] => values.flatMap((v) => spansOf(spanBatchV2.decode(v)))
