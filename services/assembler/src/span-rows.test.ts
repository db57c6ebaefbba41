import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '@svc/shared/config'
import { createLogger } from '@svc/shared/log'
import { createStore } from '@svc/shared/store/index'
import { migrate } from '@svc/shared/store/migrate'
import type { SpanRecord } from '@svc/shared/bus/records'
import { spanBatchRecords, spanBatchV2, spansOf } from '@svc/shared/bus/span-batch'
import { readSpanBatch } from '@svc/shared/bus/span-batch-view'
import { loadPriceTable } from '@svc/shared/domain/pricing'
import { EncodedRows, encoderFor, rowEncoding, type RowEncoding } from '@svc/shared/store/row-binary'
import { SPAN_COLUMNS, spanRow, type RowContext } from './assemble.js'
import { divide64, SPAN_COLUMN_TYPES, spanRowWriter } from './span-rows.js'

/** spans_v1's encoding as the store makes it from the table's types (the last test checks them against a migrated store's). */
const types = SPAN_COLUMNS.map((c) => SPAN_COLUMN_TYPES[c]!)
const encoding: RowEncoding = rowEncoding(SPAN_COLUMNS, types, types.map((t) => encoderFor(t)!))
const ctx: RowContext = { retentionHours: 720, costProvider: 'openai', prices: loadPriceTable() }
const BATCH_ID = '9007199254740993'

// A seeded generator, so a failure names the case that failed.
function rng(seed: number) {
  let s = seed >>> 0
  return () => ((s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32)
}

const TEXTS = ['', 'a', 'ok', 'Grüße, 世界', '😀 emoji', 'lone \ud800 surrogate', 'x'.repeat(31), 'y'.repeat(33), 'z'.repeat(127), 'w'.repeat(128), 'long '.repeat(4000), '"quoted" \\ back\nslash\u0000nul', 'ü'.repeat(40), '\ud800'.repeat(30), `${'é'.repeat(70)}\udc00`]
const MODELS = ['gpt-4o', 'gpt-4o-mini', 'claude-3-5-sonnet-20241022', 'unknown-model', '']

function randomSpan(next: () => number, shared: Pick<SpanRecord, 'org_id' | 'workspace_id' | 'project_id' | 'trace_id' | 'received_at_ms'>, i: number): SpanRecord {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!
  const start = 10n ** 18n + BigInt(Math.floor(next() * 2 ** 53)) * BigInt(1 + Math.floor(next() * 900))
  const end = next() < 0.1 ? start - BigInt(Math.floor(next() * 1000)) : start + BigInt(Math.floor(next() * 2 ** 40))
  const attributes: Record<string, string> = {}
  for (let k = Math.floor(next() * 12); k > 0; k--) attributes[`k${Math.floor(next() * 50)}.${pick(TEXTS).slice(0, 20)}`] = pick(TEXTS)
  // Keys one byte away from a fact key (the writer matches keys as bytes): never read as that fact.
  if (next() < 0.3) attributes[pick(['gen_ai.usage.input_tokenz', 'Gen_ai.system', 'gen_ai.systém', 'llm.token_count.promp', 'gen_ai.request.model '])] = '999'
  if (next() < 0.7) {
    attributes['gen_ai.request.model'] = pick(MODELS)
    attributes[pick(['gen_ai.usage.input_tokens', 'llm.token_count.prompt'])] = String(Math.floor(next() * 100_000))
    attributes['gen_ai.usage.output_tokens'] = pick(['12', '3.7', '-5', 'many', '1e400', ''])
    if (next() < 0.3) attributes['gen_ai.usage.cache_read_input_tokens'] = String(Math.floor(next() * 1000))
    if (next() < 0.3) attributes['svc.cost_usd'] = pick(['0.25', 'NaN', '-1', '12'])
    if (next() < 0.5) attributes['gen_ai.system'] = pick(['openai', 'anthropic', 'Bedrock'])
    if (next() < 0.3) attributes['gen_ai.operation.name'] = pick(['chat', 'execute_tool', 'invoke_agent', 'embeddings'])
  }
  const resource: Record<string, string> = next() < 0.2 ? {} : { 'service.name': pick(TEXTS), 'telemetry.sdk.language': 'python', '0': 'integer-like key' }
  return {
    ...shared,
    span_id: i.toString(16).padStart(16, '0'),
    parent_span_id: next() < 0.2 ? '' : 'f'.repeat(16),
    name: pick(TEXTS),
    kind: pick(['CLIENT', 'INTERNAL', 'SERVER']),
    start_time_unix_nano: start,
    end_time_unix_nano: end,
    status_code: pick(['UNSET', 'OK', 'ERROR']),
    status_message: pick(TEXTS),
    service_name: pick(TEXTS),
    scope_name: pick(TEXTS),
    resource_attributes: resource,
    attributes,
    json_attribute_keys: Object.keys(attributes).filter(() => next() < 0.3),
    events_json: pick(['[]', JSON.stringify([{ name: pick(TEXTS), time_unix_nano: '1' }])]),
    links_json: '[]',
  }
}

/** Each span's row both ways: spanRow through the store's encoders, and the writer from the record's bytes. */
function bothWays(spans: SpanRecord[], rowCtx = ctx) {
  const generic = new EncodedRows(encoding)
  const refused: string[] = []
  // As the consumer's generic path has them: decoded from the bus records by avsc.
  for (const s of spanBatchRecords(spans).flatMap((r) => spansOf(spanBatchV2.decode(r.value as Buffer))))
    try {
      generic.push({ ...spanRow(s, rowCtx), batch_id: BATCH_ID })
    } catch {
      refused.push(s.span_id)
    }
  const direct = new EncodedRows(encoding)
  const writer = spanRowWriter(encoding)!
  const declined: string[] = []
  for (const r of spanBatchRecords(spans)) {
    const view = readSpanBatch(r.value as Buffer)
    expect(writer.begin(view)).toBe(true)
    for (let i = 0; i < view.count; i++) if (!writer.write(direct, i, rowCtx, BATCH_ID)) declined.push(view.spanIds[i]!)
  }
  return { generic: generic.body(), direct: direct.body(), declined, refused }
}

describe('span rows from the record bytes', () => {
  it('are byte for byte the rows spanRow and the store encoders make, over 2,000 random spans', () => {
    const next = rng(7)
    const spans: SpanRecord[] = []
    for (let t = 0; t < 100; t++) {
      const shared = { org_id: '11111111-1111-5111-8111-111111111111', workspace_id: `22222222-2222-5222-8222-${String(t % 3).repeat(12)}`, project_id: t % 2 ? 'default' : 'prøject', trace_id: t.toString(16).padStart(32, '0'), received_at_ms: 1_700_000_000_000 + t }
      for (let i = 0; i < 20; i++) spans.push(randomSpan(next, shared, t * 100 + i))
    }
    const { generic, direct, declined, refused } = bothWays(spans)
    expect(declined).toEqual(refused)
    expect(direct.equals(generic)).toBe(true)
  })

  it('decline what the store encoders would refuse, so the generic path rejects it as before', () => {
    const next = rng(11)
    const shared = { org_id: '11111111-1111-5111-8111-111111111111', workspace_id: '22222222-2222-5222-8222-222222222222', project_id: 'p', trace_id: 'a'.repeat(32), received_at_ms: 1_700_000_000_000 }
    const ok = randomSpan(next, shared, 1)
    const early = { ...randomSpan(next, shared, 2), start_time_unix_nano: 999_999_999_999_999_999n }
    const noId = { ...randomSpan(next, shared, 3), span_id: '' }
    const hugeTokens = { ...randomSpan(next, shared, 4), attributes: { 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': '1e300' } }
    const { declined, refused, generic, direct } = bothWays([ok, early, noId, hugeTokens])
    expect(declined).toEqual([early.span_id, '', hugeTokens.span_id])
    // The generic path refuses the first and last; the span without an id it writes, and unstorableSpan rejects it.
    expect(refused).toEqual([early.span_id, hugeTokens.span_id])
    expect(direct.equals(generic.subarray(0, direct.length))).toBe(true)
    // A non-integer retention (BigInt refuses it in spanRow) and a receipt time the DateTime64(3) encoder refuses.
    expect(() => spanRow(ok, { ...ctx, retentionHours: 1.5 })).toThrow()
    const view = readSpanBatch(spanBatchRecords([ok])[0]!.value as Buffer)
    const writer = spanRowWriter(encoding)!
    expect(writer.begin(view) && writer.write(new EncodedRows(encoding), 0, { ...ctx, retentionHours: 1.5 }, BATCH_ID)).toBe(false)
    expect(writer.begin(readSpanBatch(spanBatchRecords([{ ...ok, received_at_ms: 5 }])[0]!.value as Buffer))).toBe(false)
    expect(writer.begin(readSpanBatch(spanBatchRecords([{ ...ok, workspace_id: 'not-a-uuid' }])[0]!.value as Buffer))).toBe(false)
  })

  it('are not written when the table has other column types', () => {
    const other = rowEncoding(SPAN_COLUMNS, types.map((t) => (t === 'Map(String, String)' ? 'Map(LowCardinality(String), String)' : t)), types.map((t) => encoderFor(t)!))
    expect(spanRowWriter(other)).toBeNull()
    expect(spanRowWriter(encoding)).not.toBeNull()
  })
})

describe('spans_v1 after the migrations', () => {
  it('has the column types span-rows.ts writes, and stores its rows', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'span-rows-'))
    const log = createLogger({ level: 'silent' })
    const store = await createStore(loadConfig({ SVC_DATA_DIR: dir }), log)
    try {
      await migrate(store, log)
      const real = await store.rowEncoding('spans_v1', SPAN_COLUMNS)
      expect(real?.types).toEqual(types)
      const next = rng(5)
      const shared = { org_id: '11111111-1111-5111-8111-111111111111', workspace_id: '22222222-2222-5222-8222-222222222222', project_id: 'p', trace_id: 'c'.repeat(32), received_at_ms: Date.now() }
      // Started a minute ago (spans_v1's TTL would drop older ones), in one record.
      const now = BigInt(Date.now() - 60_000) * 1_000_000n
      const spans = Array.from({ length: 40 }, (_, i) => ({ ...randomSpan(next, shared, i), start_time_unix_nano: now + BigInt(i), end_time_unix_nano: now + BigInt(i * 1000), events_json: '[]' }))
      const rows = new EncodedRows(real!)
      const writer = spanRowWriter(real!)!
      for (const r of spanBatchRecords(spans)) {
        const view = readSpanBatch(r.value as Buffer)
        expect(writer.begin(view)).toBe(true)
        for (let i = 0; i < view.count; i++) expect(writer.write(rows, i, ctx, BATCH_ID)).toBe(true)
      }
      await store.insertEncoded('spans_v1', [rows])
      const [stored] = await store.query<{ n: string; attrs: string }>('SELECT count() AS n, sum(length(attributes)) AS attrs FROM spans_v1 WHERE batch_id = {b:UInt64}', { b: BATCH_ID })
      expect(Number(stored!.n)).toBe(spans.length)
      expect(Number(stored!.attrs)).toBe(spans.reduce((n, s) => n + Object.keys(s.attributes).length, 0))
    } finally {
      await store.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('divide64', () => {
  it('is floor division of the 64-bit value, exactly (quotients below 2^53)', () => {
    const next = rng(3)
    for (let k = 0; k < 20_000; k++) {
      const v = k < 4 ? [0n, 1n, 2n ** 63n - 1n, 10n ** 18n][k]! : BigInt(Math.floor(next() * 2 ** 31)) * 2n ** 32n + BigInt(Math.floor(next() * 2 ** 32))
      const d = [1e6, 1e9, 1024, 999_999_937][k % 4]!
      expect(divide64(Number(v >> 32n), Number(v & 0xffffffffn), d)).toBe(Number(v / BigInt(d)))
    }
  })
})
