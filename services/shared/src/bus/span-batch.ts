/**
 * Spans on the bus: a SpanBatch record (span-batch.v2.avsc) per trace per ingest
 * request on spans.raw.v2, where spans.raw.v1 had a Span record per span. A
 * request's spans of one trace travel together anyway (same key, so same partition,
 * one after another); with ~20 spans per trace per request the per-record work
 * is done once per trace (item-batches.ts).
 *
 * The assembler reads both topics, so what an older ingest wrote to spans.raw.v1
 * is drained after an upgrade; spansOf() turns either record into SpanRecords.
 */
import { loadAvroType } from './avro.js'
import { groupRecords, groupsInOrder } from './item-batches.js'
import { encodeSpanBatch } from './span-batch-writer.js'
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

/** Spans share a record when they share every field the record holds once (one request's spans do but for trace and project). */
const sameRecord = (a: SpanRecord, b: SpanRecord) =>
  a.trace_id === b.trace_id && a.project_id === b.project_id && a.workspace_id === b.workspace_id && a.org_id === b.org_id && a.received_at_ms === b.received_at_ms

/**
 * The records of one request's spans: one per trace and project (the project is a
 * span's own when it names one), in order of each trace's first span, each with at
 * most MAX_SPANS_PER_RECORD spans in the order they came, and under MAX_RECORD_BYTES
 * unless a single span is larger (item-batches.ts). Spans that differ in any field
 * the record holds once are kept apart, so none is given another span's fields.
 */
export function spanBatchRecords(spans: readonly SpanRecord[]): OutgoingRecord[] {
  const out: OutgoingRecord[] = []
  for (const group of groupsInOrder(spans, (s) => s.trace_id, sameRecord, MAX_SPANS_PER_RECORD)) {
    const { workspace_id, trace_id } = group[0]!
    groupRecords(group, traceKey(workspace_id, trace_id), encodeSpanBatch, out)
  }
  return out
}

/** The spans of a record read from spans.raw.v1 (a Span) or spans.raw.v2 (a SpanBatch), as Span records. */
export function spansOf(value: SpanRecord | SpanBatchRecord): SpanRecord[] {
  if (!('spans' in value)) return [value]
  const { org_id, workspace_id, project_id, trace_id, received_at_ms } = value
  // Every field in span.v1.avsc's order, written out: the spans of every spans.raw.v2 record share one object shape.
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
