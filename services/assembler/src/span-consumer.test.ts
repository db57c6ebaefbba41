import { loadPriceTable } from '@svc/shared/domain/pricing'
import { describe, expect, it } from 'vitest'
import { deadLetterV1, spanV1, traceKey, type SpanRecord } from '@svc/shared/bus/records'
import { consumerBatchHandler } from '@svc/shared/bus/run-consumer'
import { spanBatchRecords } from '@svc/shared/bus/span-batch'
import { TOPICS } from '@svc/shared/bus/topics'
import type { Bus, ConsumedRecord } from '@svc/shared/bus/types'
import { createLogger } from '@svc/shared/log'
import { EncodedRows, NotEncodable, type RowEncoding } from '@svc/shared/store/row-binary'
import { SPAN_COLUMNS, spanKey, type SpanRow } from './assemble.js'
import { spanConsumer } from './span-consumer.js'
import { TraceTracker } from './trace-tracker.js'

const WS = '22222222-2222-5222-8222-222222222222'
const record = (trace: string, span: string, offset: number, partition = 0, ws = WS): ConsumedRecord => {
  const value: SpanRecord = {
    org_id: '11111111-1111-5111-8111-111111111111', workspace_id: ws, project_id: 'p', trace_id: trace.repeat(32), span_id: span.repeat(16), parent_span_id: '',
    name: 'step', kind: 'INTERNAL', start_time_unix_nano: 1_700_000_000_000_000_000n, end_time_unix_nano: 1_700_000_001_000_000_000n, status_code: 'OK', status_message: '',
    service_name: 's', scope_name: 's', resource_attributes: {}, attributes: {}, json_attribute_keys: [], events_json: '[]', links_json: '[]', received_at_ms: 1_700_000_002_000,
  }
  return { topic: 'spans.raw.v1', partition, offset: String(offset), key: Buffer.from(traceKey(ws, trace.repeat(32))), value: spanV1.encode(value), timestamp: 0 }
}

/** The spans of these v1 records as ingest writes them now: a spans.raw.v2 record per trace, at `offset` on. */
const batched = (records: ConsumedRecord[], offset: number): ConsumedRecord[] =>
  spanBatchRecords(records.map((r) => spanV1.decode(r.value))).map((r, i) => ({ topic: TOPICS.spansRaw, partition: 0, offset: String(offset + i), key: Buffer.from(r.key!), value: r.value, timestamp: 0 }))

/**
 * An encoding that writes a row as its index among the rows written (4 bytes) and
 * its first_delivery (the last byte, as in spans_v1's SPAN_COLUMNS), so a test can
 * read back which rows an insert carried and how; a span named in `refuse` has no
 * binary form (after its first bytes are written, as a real encoder may fail midway).
 */
function indexEncoding(refuse = new Set<string>()) {
  const written: SpanRow[] = []
  const encoding: RowEncoding = {
    columns: SPAN_COLUMNS,
    // Not spans_v1's types: every span takes spanRow's path, whose rows this encoding reads back (span-rows.test.ts has the other).
    types: [],
    header: Buffer.alloc(0),
    writeRow(w, row) {
      w.reserve(5)
      w.buf.writeUInt32LE(written.length, w.pos)
      w.pos += 4
      if (refuse.has(row.span_id as string)) throw new NotEncodable('no binary form')
      w.buf[w.pos++] = row.first_delivery as number
      written.push(row as SpanRow)
    },
  }
  const read = (rows: EncodedRows): SpanRow[] => {
    const body = rows.body()
    const out: SpanRow[] = []
    for (let p = 0; p < body.length; p += 5) out.push({ ...written[body.readUInt32LE(p)]!, first_delivery: body[p + 4]! })
    return out
  }
  return { encoding, read }
}

/** The handler against an in-memory "store": what it stores, and what it asks to reconcile. */
function harness(guard: number, withTotals: (trace: string) => boolean = () => true, retentionHours: (ws: string) => number = () => 24, refuse?: Set<string>, bus = {} as Bus) {
  const stored = new Map<string, SpanRow>()
  const inserts: SpanRow[][] = []
  const asked: string[][] = []
  const enc = indexEncoding(refuse)
  const reconciled: string[][] = []
  const handle = consumerBatchHandler(bus, spanConsumer({
    maxBatchSpans: 1000,
    log: createLogger({ level: 'silent' }),
    tracker: new TraceTracker(60_000),
    rowContextFor: (ws) => ({ retentionHours: retentionHours(ws), costProvider: 'openai', prices: loadPriceTable() }),
    sink: {
      encoding: async () => enc.encoding,
      async add(rows) {
        const read = enc.read(rows)
        inserts.push(read)
        for (const r of read) if (!stored.has(spanKey(r))) stored.set(spanKey(r), r)
      },
    },
    storedSpans: async (traces) => (asked.push(traces.map((t) => `${t.workspace_id === WS ? 'ws' : 'other'}:${t.trace_id[0]}`)), new Set([...stored.keys()].filter((k) => traces.some((t) => k.startsWith(`${traceKey(t.workspace_id, t.trace_id)}:`))))),
    tracesWithTotals: async (traces) => new Set(traces.filter((t) => withTotals(t.trace_id[0]!)).map((t) => traceKey(t.workspace_id, t.trace_id))),
    reconcile: async (traces) => (reconciled.push(traces.map((t) => t.trace_id[0]!).sort()), 0),
    reconcileRollups: async () => {},
    nextBatchId: () => '1',
    replayGuardSpans: guard,
  }))
  return { handle, stored, reconciled, inserts, asked }
}

describe('spanBatchHandler', () => {
  it('stores one copy of a span repeated in the batch (the newest), and marks spans already stored as repeats', async () => {
    const h = harness(0)
    const newer = (trace: string, span: string, offset: number) => {
      const r = record(trace, span, offset)
      return { ...r, value: spanV1.encode({ ...spanV1.decode(r.value), received_at_ms: 1_700_000_003_000 }) }
    }
    await h.handle([record('a', '1', 0), record('a', '2', 1), newer('a', '1', 2), record('a', '1', 3)])
    expect(h.inserts[0]!.map((r) => [r.span_id[0], r.received_at, r.first_delivery])).toEqual([['2', '1700000002000', 1], ['1', '1700000003000', 1]])
    await h.handle([record('a', '2', 4), record('a', '3', 5), record('b', '2', 6)])
    expect(h.inserts[1]!.map((r) => [r.trace_id[0], r.span_id[0], r.first_delivery])).toEqual([['a', '2', 0], ['a', '3', 1], ['b', '2', 1]])
  })

  it('dead-letters a span whose row has no binary form, storing the rest of the batch intact', async () => {
    const letters: Array<{ topic: string; value: Buffer }> = []
    const bus = { produce: async (topic: string, recs: Array<{ value: Buffer }>) => void letters.push(...recs.map((r) => ({ topic, value: r.value }))) } as unknown as Bus
    const h = harness(0, () => true, () => 24, new Set(['2'.repeat(16)]), bus)
    await h.handle([record('a', '1', 0), record('a', '2', 1), record('a', '3', 2)])
    expect(letters.map((l) => [l.topic, deadLetterV1.decode(l.value).original_offset, deadLetterV1.decode(l.value).reason])).toEqual([['spans.raw.v1.dlq', 1, 'unstorable span: no binary form']])
    expect(h.inserts[0]!.map((r) => [r.span_id[0], r.first_delivery])).toEqual([['1', 1], ['3', 1]])
  })

  it("reads a trace's spans from one spans.raw.v2 record, dead-lettering a span it cannot store with that span as the payload", async () => {
    const letters: Array<{ topic: string; value: Buffer }> = []
    const bus = { produce: async (topic: string, recs: Array<{ value: Buffer }>) => void letters.push(...recs.map((r) => ({ topic, value: r.value }))) } as unknown as Bus
    const h = harness(0, () => true, () => 24, new Set(['2'.repeat(16)]), bus)
    const records = batched([record('a', '1', 0), record('b', '1', 0), record('a', '2', 0), record('a', '3', 0)], 7)
    expect(records).toHaveLength(2)
    await h.handle(records)
    expect(h.inserts[0]!.map((r) => [r.trace_id[0], r.span_id[0], r.first_delivery])).toEqual([['a', '1', 1], ['a', '3', 1], ['b', '1', 1]])
    const letter = deadLetterV1.decode(letters[0]!.value)
    expect([letters.length, letters[0]!.topic, letter.original_topic, letter.original_offset, letter.reason]).toEqual([1, 'spans.raw.v2.dlq', 'spans.raw.v2', 7, 'unstorable span: no binary form'])
    expect(JSON.parse(letter.payload)).toMatchObject({ trace_id: 'a'.repeat(32), span_id: '2'.repeat(16), workspace_id: WS })
    expect(letter.original_value).toEqual(records[0]!.value)
  })

  it("counts its replay guard in records of each topic: a spans.raw.v2 record holds a trace's spans", async () => {
    // A guard of 32 spans is 2 spans.raw.v2 records (16 spans each, as estimated) and 32 spans.raw.v1 records.
    const h = harness(32, () => true)
    const v2 = batched(['a', 'b', 'c'].map((t) => record(t, '1', 0)), 0)
    await h.handle(v2)
    expect(h.reconciled).toEqual([['a', 'b']])
  })

  it("gives each span its own workspace's context when workspaces alternate in a batch", async () => {
    const other = '33333333-3333-5333-8333-333333333333'
    const h = harness(0, () => true, (ws) => (ws === WS ? 24 : 48))
    await h.handle([record('a', '1', 0), record('a', '2', 1, 0, other), record('b', '1', 2), record('b', '2', 3, 0, other), record('c', '1', 4, 0, other)])
    const start = 1_700_000_000
    expect([...h.stored.values()].map((r) => [r.workspace_id === WS ? 'ws' : 'other', r.expires_at - start])).toEqual([
      ['ws', 24 * 3600], ['other', 48 * 3600], ['ws', 24 * 3600], ['other', 48 * 3600], ['other', 48 * 3600],
    ])
    // Each trace's stored copies are asked for once, in first-seen order; a trace id in two workspaces is two traces.
    expect(h.asked).toEqual([['ws:a', 'other:a', 'ws:b', 'other:b', 'other:c']])
  })

  it('reconciles the traces of the first records after a start, a gap or a retried batch, and not otherwise', async () => {
    const h = harness(3)
    await h.handle([record('a', '1', 10), record('b', '1', 11)])
    expect(h.reconciled).toEqual([['a', 'b']])
    await h.handle([record('c', '1', 12), record('d', '1', 13)]) // third record is the last in the guard
    expect(h.reconciled).toEqual([['a', 'b'], ['c']])
    await h.handle([record('e', '1', 14)])
    expect(h.reconciled).toHaveLength(2)
    await h.handle([record('e', '1', 14)]) // the same batch again: a retry
    expect(h.reconciled.at(-1)).toEqual(['e'])
    await h.handle([record('f', '1', 40)]) // offsets jumped: another consumer had the partition
    expect(h.reconciled.at(-1)).toEqual(['f'])
    await h.handle([record('g', '1', 0, 1)]) // a partition seen for the first time
    expect(h.reconciled.at(-1)).toEqual(['g'])
  })

  it('reconciles only replayed traces stored before: with sums already, or with spans repeated', async () => {
    const h = harness(10, (trace) => trace === 'a')
    await h.handle([record('a', '1', 0), record('b', '1', 1), record('c', '1', 2)])
    expect(h.reconciled).toEqual([['a']])
    await h.handle([record('c', '1', 0), record('d', '1', 1)]) // replayed again: c's span is stored now
    expect(h.reconciled.at(-1)).toEqual(['c'])
  })
})
