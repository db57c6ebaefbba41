import { describe, expect, it } from 'vitest'
import { spanV1, traceKey, type SpanRecord } from './records.js'
import { MAX_RECORD_BYTES } from './item-batches.js'
import { decodeSpanRecords, MAX_SPANS_PER_RECORD, spanBatchRecords, spanBatchV2, spansOf } from './span-batch.js'

const WS = '22222222-2222-5222-8222-222222222222'
const span = (trace: string, id: number, over: Partial<SpanRecord> = {}): SpanRecord => ({
  org_id: '11111111-1111-5111-8111-111111111111', workspace_id: WS, project_id: 'p', trace_id: trace.repeat(32), span_id: id.toString(16).padStart(16, '0'),
  parent_span_id: id > 1 ? '1'.padStart(16, '0') : '', name: `step ${id}`, kind: 'INTERNAL', start_time_unix_nano: 1_700_000_000_000_000_000n + BigInt(id),
  end_time_unix_nano: 1_700_000_001_000_000_000n, status_code: 'OK', status_message: '', service_name: 's', scope_name: 'sc', resource_attributes: { 'service.name': 's' },
  attributes: { n: String(id) }, json_attribute_keys: [], events_json: '[]', links_json: '[]', received_at_ms: 1_700_000_002_000, ...over,
})

describe('span batches (spans.raw.v2)', () => {
  it("puts a request's spans in one record per trace, in the order each trace first came, each trace's spans in their order", () => {
    const spans = [span('a', 1), span('b', 1), span('a', 2), span('c', 1), span('b', 2), span('a', 3)]
    const batches = spanBatchRecords(spans).map((r) => spanBatchV2.decode(r.value))
    expect(batches.map((b) => [b.trace_id[0], b.spans.map((s) => Number.parseInt(s.span_id, 16))])).toEqual([['a', [1, 2, 3]], ['b', [1, 2]], ['c', [1]]])
    expect(spanBatchRecords(spans).map((r) => r.key)).toEqual(['a', 'b', 'c'].map((t) => traceKey(WS, t.repeat(32))))
  })

  it('reads back exactly the spans written, each shaped as a spans.raw.v1 record is', () => {
    const spans = [span('a', 1), span('b', 1, { json_attribute_keys: ['n'], attributes: { n: '[1,2]' }, events_json: '[{"name":"e"}]' }), span('a', 2, { start_time_unix_nano: 2n ** 62n })]
    const back = decodeSpanRecords(spanBatchRecords(spans).map((r) => r.value))
    const byId = (a: SpanRecord[]) => [...a].sort((x, y) => (x.trace_id + x.span_id).localeCompare(y.trace_id + y.span_id))
    // What spans.raw.v1 gives for the same spans, field for field and in the same key order.
    const v1 = spans.map((s) => spanV1.decode(spanV1.encode(s)))
    expect(byId(back)).toEqual(byId(v1))
    expect(back.map((s) => Object.keys(s))).toEqual(back.map(() => Object.keys(v1[0]!)))
    expect(spansOf(v1[0]!)).toEqual([v1[0]])
  })

  it('keeps spans apart that differ in a field the record holds once (project, received time)', () => {
    const spans = [span('a', 1), span('a', 2, { project_id: 'other' }), span('a', 3), span('a', 4, { received_at_ms: 1 })]
    const batches = spanBatchRecords(spans).map((r) => spanBatchV2.decode(r.value))
    expect(batches.map((b) => [b.project_id, b.received_at_ms, b.spans.length])).toEqual([['p', 1_700_000_002_000, 2], ['other', 1_700_000_002_000, 1], ['p', 1, 1]])
    const back = decodeSpanRecords(spanBatchRecords(spans).map((r) => r.value))
    expect(back.find((s) => s.span_id.endsWith('2'))!.project_id).toBe('other')
    expect(back.find((s) => s.span_id.endsWith('4'))!.received_at_ms).toBe(1)
  })

  it(`splits a trace of more than ${MAX_SPANS_PER_RECORD} spans into records of at most that many`, () => {
    const spans = Array.from({ length: 2 * MAX_SPANS_PER_RECORD + 1 }, (_, i) => span('a', i + 1))
    const records = spanBatchRecords(spans)
    expect(records.map((r) => spanBatchV2.decode(r.value).spans.length)).toEqual([MAX_SPANS_PER_RECORD, MAX_SPANS_PER_RECORD, 1])
    expect(decodeSpanRecords(records.map((r) => r.value)).map((s) => s.span_id)).toEqual(spans.map((s) => s.span_id))
  })

  it(`splits a record of large spans until each part is under ${MAX_RECORD_BYTES} bytes or holds one span`, () => {
    const big = (id: number, kib: number) => span('a', id, { attributes: { text: 'x'.repeat(kib * 1024) } })
    const spans = [big(1, 40), big(2, 40), big(3, 40), big(4, 40), big(5, 40), big(6, 40), big(7, 40), big(8, 300), big(9, 1)]
    const records = spanBatchRecords(spans)
    expect(records.map((r) => spanBatchV2.decode(r.value).spans.map((s) => Number.parseInt(s.span_id, 16)))).toEqual([[1, 2, 3, 4, 5], [6, 7], [8], [9]])
    expect(records.every((r) => r.value.length <= MAX_RECORD_BYTES || spanBatchV2.decode(r.value).spans.length === 1)).toBe(true)
    expect(decodeSpanRecords(records.map((r) => r.value)).map((s) => s.span_id)).toEqual(spans.map((s) => s.span_id))
  })

  it('refuses bytes that are not a span batch', () => {
    expect(() => spanBatchV2.decode(Buffer.from('not a span'))).toThrow()
  })
})
