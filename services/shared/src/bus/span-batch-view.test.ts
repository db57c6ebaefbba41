import { describe, expect, it } from 'vitest'
import type { SpanRecord } from './records.js'
import { spanBatchRecords, spanBatchV2 } from './span-batch.js'
import { readSpanBatch } from './span-batch-view.js'

const shared = { org_id: 'o', workspace_id: 'wörkspace', project_id: 'p', trace_id: 't'.repeat(32), received_at_ms: 1_700_000_000_123 }
const span = (i: number, start: bigint | number, end: bigint | number): SpanRecord => ({
  ...shared,
  span_id: `s${i}`,
  parent_span_id: i ? 's0' : '',
  name: `n${i}`,
  kind: 'INTERNAL',
  start_time_unix_nano: start,
  end_time_unix_nano: end,
  status_code: 'OK',
  status_message: '',
  service_name: 'svc',
  scope_name: '',
  resource_attributes: { a: '1' },
  attributes: Object.fromEntries(Array.from({ length: i % 4 }, (_, k) => [`k${k}`, 'v'.repeat(k * 50)])),
  json_attribute_keys: i % 2 ? ['k0'] : [],
  events_json: '[]',
  links_json: '[]',
})

const halves = (v: bigint) => [Number(BigInt.asIntN(64, v) >> 32n), Number(BigInt.asUintN(32, v))]

describe('readSpanBatch', () => {
  it('reads what avsc reads: the shared fields, span ids, and exact times as halves', () => {
    const times = [0n, 1n, -1n, 2n ** 31n, 2n ** 32n - 1n, 2n ** 32n, 1_700_000_000_123_456_789n, 2n ** 63n - 1n, -(2n ** 63n), -1_700_000_000_123_456_789n, 2n ** 53n + 1n]
    const spans = times.map((t, i) => span(i, t, times[(i + 3) % times.length]!))
    const [record] = spanBatchRecords(spans)
    const view = readSpanBatch(record!.value as Buffer)
    const decoded = spanBatchV2.decode(record!.value as Buffer)
    expect({ org_id: view.org_id, workspace_id: view.workspace_id, project_id: view.project_id, trace_id: view.trace_id, received_at_ms: view.received_at_ms }).toEqual(shared)
    expect(view.spanIds).toEqual(decoded.spans.map((s) => s.span_id))
    expect([...view.times]).toEqual(decoded.spans.flatMap((s) => [...halves(BigInt(s.start_time_unix_nano)), ...halves(BigInt(s.end_time_unix_nano))]))
    expect(view.decoded()).toEqual(decoded)
  })

  it('refuses bytes that are not a whole SpanBatch', () => {
    const value = spanBatchRecords([span(1, 5n, 6n), span(2, 7n, 8n)])[0]!.value as Buffer
    for (let cut = 0; cut < value.length; cut++) expect(() => readSpanBatch(value.subarray(0, cut)), `cut at ${cut}`).toThrow(/invalid SpanBatch/)
    expect(() => readSpanBatch(Buffer.concat([value, Buffer.from([0])]))).toThrow(/trailing bytes/)
    expect(() => readSpanBatch(Buffer.from([0x01]))).toThrow(/invalid SpanBatch/) // a negative string length
    expect(() => readSpanBatch(Buffer.alloc(40, 0xff))).toThrow(/invalid SpanBatch/)
  })
})
