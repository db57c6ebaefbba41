import { describe, expect, it } from 'vitest'
import type { SpanRecord } from '@svc/shared/bus/records'
import { loadPriceTable } from '@svc/shared/domain/pricing'
import { spanKey, spanRow, type RowContext } from './assemble.js'
import { markFirstDeliveries, newestPerSpan } from './batch-rows.testkit.js'

const ctx: RowContext = { retentionHours: 24, costProvider: 'openai', prices: loadPriceTable() }

const base: SpanRecord = {
  org_id: '11111111-1111-5111-8111-111111111111',
  workspace_id: '22222222-2222-5222-8222-222222222222',
  project_id: 'default',
  trace_id: 'a'.repeat(32),
  span_id: 'b'.repeat(16),
  parent_span_id: '',
  name: 'chat gpt-4o',
  kind: 'CLIENT',
  start_time_unix_nano: 1_700_000_000_123_456_789n,
  end_time_unix_nano: 1_700_000_001_000_000_001n,
  status_code: 'OK',
  status_message: '',
  service_name: 'agent',
  scope_name: 'openai',
  resource_attributes: { 'service.name': 'agent' },
  attributes: { 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': '100', 'gen_ai.usage.output_tokens': '20', 'svc.cost_usd': '0.5' },
  json_attribute_keys: ['gen_ai.usage.input_tokens', 'gen_ai.usage.output_tokens'],
  events_json: '[]',
  links_json: '[]',
  received_at_ms: 1_700_000_002_000,
}

describe('spanRow', () => {
  it('keeps nanosecond times exact and derives duration', () => {
    const row = spanRow(base, ctx)
    expect(row.start_time).toBe('1700000000123456789')
    expect(row.end_time).toBe('1700000001000000001')
    expect(row.duration_ns).toBe('876543212')
  })
  it('extracts model, tokens and a reported cost', () => {
    expect(spanRow(base, ctx)).toMatchObject({ model: 'gpt-4o', input_tokens: 100, output_tokens: 20, cost_usd: 0.5, is_llm: 1 })
  })
  it('expires retention hours after the span start', () => {
    expect(spanRow(base, ctx).expires_at).toBe(1_700_000_000 + 24 * 3600)
  })
  it('clamps a negative duration to zero', () => {
    expect(spanRow({ ...base, end_time_unix_nano: 1n }, ctx).duration_ns).toBe('0')
  })
  it('is deterministic, so a replay writes the same row', () => {
    expect(spanRow(base, ctx)).toEqual(spanRow(base, ctx))
  })
  it('leaves a non-LLM span at zero tokens and cost', () => {
    expect(spanRow({ ...base, attributes: { 'http.method': 'GET' } }, ctx)).toMatchObject({ model: '', input_tokens: 0, output_tokens: 0, cost_usd: 0, is_llm: 0 })
  })
})

describe('newestPerSpan', () => {
  const row = (span: string, receivedMs: number) => ({ ...spanRow({ ...base, span_id: span.repeat(16), received_at_ms: receivedMs }, ctx) })

  it('keeps one copy of each span, the one received last (of equal times the later), in batch order', () => {
    const rows = [row('1', 10), row('2', 10), row('1', 30), row('3', 10), row('1', 20), row('2', 10)]
    const newest = newestPerSpan(rows)
    expect(newest.rows).toEqual([rows[2], rows[3], rows[5]])
    expect(newest.rows.map((r) => [r.span_id[0], r.received_at])).toEqual([['1', '30'], ['3', '10'], ['2', '10']])
    expect(newest.keys).toEqual(newest.rows.map(spanKey))
    const unique = [row('1', 10), row('2', 10)]
    expect(newestPerSpan(unique)).toEqual({ rows: unique, keys: unique.map(spanKey) })
    expect(newestPerSpan(unique).rows).toBe(unique)
  })
})

describe('markFirstDeliveries', () => {
  const row = (span: string, trace = 'a'.repeat(32)) => spanRow({ ...base, trace_id: trace, span_id: span.repeat(16) }, ctx)

  it('counts a span once whether it repeats inside the batch or was stored before', () => {
    const rows = [row('1'), row('2'), row('1'), row('3'), row('1', 'c'.repeat(32))]
    const stored = new Set([spanKey(row('3'))])
    expect(markFirstDeliveries(rows, stored)).toBe(2)
    expect(rows.map((r) => r.first_delivery)).toEqual([1, 1, 0, 0, 1])
  })

  it('keeps every row: the repeat is stored, it just adds nothing to the sums', () => {
    const rows = [row('1'), row('1')]
    markFirstDeliveries(rows, new Set())
    expect(rows).toHaveLength(2)
    expect(rows[1]!.first_delivery).toBe(0)
  })
})

describe('spanRow cost', () => {
  // Mid-2025: the shipped table's entries are in force (effective_from).
  const unreported = { ...base, start_time_unix_nano: 1_750_000_000_000_000_000n, end_time_unix_nano: 1_750_000_001_000_000_000n, attributes: { 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-4o-mini', 'gen_ai.usage.input_tokens': '1000000', 'gen_ai.usage.output_tokens': '100000' } }

  it('keeps a cost the span reports', () => {
    expect(spanRow(base, ctx)).toMatchObject({ cost_usd: 0.5, cost_source: 'reported', pricing_version: '' })
  })

  it('prices an LLM span from its tokens with the table, recording the table version', () => {
    // gpt-4o-mini: $0.15 / 1M input, $0.60 / 1M output.
    const row = spanRow(unreported, ctx)
    expect(row).toMatchObject({ provider: 'openai', span_type: 'llm', cost_source: 'priced', pricing_version: ctx.prices.version })
    expect(row.cost_usd).toBeCloseTo(0.15 + 0.06, 12)
  })

  it("uses the workspace's cost provider first, then the span's own", () => {
    expect(spanRow(unreported, { ...ctx, costProvider: 'azure' }).cost_usd).toBeCloseTo(0.165 + 0.066, 12)
    expect(spanRow(unreported, { ...ctx, costProvider: 'nobody-sells-this' }).cost_usd).toBeCloseTo(0.21, 12)
  })

  it('costs an unknown model 0 and marks it unpriced; a non-LLM span has no cost source', () => {
    const unknown = spanRow({ ...unreported, attributes: { ...unreported.attributes, 'gen_ai.request.model': 'in-house-llm-7b' } }, ctx)
    expect(unknown).toMatchObject({ cost_usd: 0, cost_source: 'unpriced', pricing_version: ctx.prices.version })
    expect(spanRow({ ...base, attributes: { 'http.method': 'GET' } }, ctx)).toMatchObject({ cost_usd: 0, cost_source: '', pricing_version: '' })
  })

  it('prices with the table and provider given, so a new table or cost_provider changes only rows assembled afterwards', () => {
    const before = spanRow(unreported, ctx)
    const cheaper = { ...ctx.prices, version: 'operator-2', entries: ctx.prices.entries.map((e) => ({ ...e, input: e.input / 2, output: e.output / 2 })) }
    const after = spanRow(unreported, { ...ctx, prices: cheaper })
    expect(after).toMatchObject({ pricing_version: 'operator-2' })
    expect(after.cost_usd).toBeCloseTo(before.cost_usd / 2, 12)
    // The row built before keeps its figure and version: nothing re-prices stored rows.
    expect(before).toMatchObject({ pricing_version: ctx.prices.version })
    expect(before.cost_usd).toBeCloseTo(0.21, 12)
  })
})
