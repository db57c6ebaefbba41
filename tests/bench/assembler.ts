/**
 * pnpm bench:assembler [--batches 40] [--batch 20000]
 *
 * The span consumer's own CPU, without the bus or ClickHouse: in the one-process
 * deployment it shares the main thread with ingest's HTTP and the embedded log, and
 * that thread is what bounds spans/s end to end (bench:ingest), so every microsecond
 * per span here is one the main thread does not have for accepting spans.
 *
 * The spans are bench:ingest's (agent traces of 20 spans, 10 per request), as the
 * Avro records ingest produces (spans.raw.v2: a record per trace per request). Each batch goes through what the service does with
 * it on the main thread: the consumer runner (decoding each record as the handler
 * reads it), the span consumer's handler (rows, dead-letter checks, repeats, the
 * trace tracker, each row's encoding as the store sends it: RowBinaryWithNamesAndTypes
 * with spans_v1's own column types); the store's look-ups answer "nothing stored yet" at once, as for
 * new traces. Prints spans/s and µs per span, per-batch latency p50/p95/p99, and the
 * ceiling measured in the same run: the bare Avro decode of the same records plus the
 * bare encoding of their rows, the least any consumer of this topic must do.
 */
import { parseArgs } from 'node:util'
import { spanConsumer } from '@svc/assembler/span-consumer'
import { SPAN_COLUMNS, type SpanRow } from '@svc/assembler/assemble'
import { TraceTracker } from '@svc/assembler/trace-tracker'
import { loadPriceTable } from '@svc/shared/domain/pricing'
import { createLogger } from '@svc/shared/log'
import { spanBatchV2, spansOf } from '@svc/shared/bus/span-batch'
import { consumerBatchHandler } from '@svc/shared/bus/run-consumer'
import { TOPICS } from '@svc/shared/bus/topics'
import type { Bus, ConsumedRecord } from '@svc/shared/bus/types'
import { bareChdb, ingestBodies, rowBinaryEncoder, sampleRecords, tableEncoding } from './ceilings.js'
import { fmt, progress, summarize, table } from './stats.js'

const { values: args } = parseArgs({ options: { batches: { type: 'string', default: '40' }, batch: { type: 'string', default: '20000' } } })
const BATCHES = Number(args.batches)
const BATCH = Number(args.batch)
const WARMUP = 5

progress(`generating ${fmt(BATCH)} spans (bench:ingest's traces)`)
const sample = sampleRecords(ingestBodies(BATCH))

progress("reading spans_v1's column types from a migrated chdb")
const chdb = await bareChdb('bench-assembler-')
// The span consumer's rows all have spanRow's columns, so one encoder serves every batch.
const encodeRows = await rowBinaryEncoder(chdb.client, 'spans_v1', Object.keys(sample.rows[0]!))
const encoding = await tableEncoding(chdb.client, 'spans_v1', SPAN_COLUMNS)
await chdb.dispose()
const encode = (rows: SpanRow[]) => encodeRows(rows as unknown as Array<Record<string, unknown>>).length
// Records (a trace's spans of one request each, as ingest writes them) up to BATCH spans.
const records: ConsumedRecord[] = sample.records
  .slice(0, Math.max(1, Math.round(BATCH / sample.itemsPerRecord)))
  .map((r, i) => ({ topic: TOPICS.spansRaw, partition: 0, offset: String(i), key: r.key === null ? null : Buffer.from(r.key), value: r.value, timestamp: 0 }))
const spanCount = records.reduce((n, r) => n + spanBatchV2.decode(r.value).spans.length, 0)

const log = createLogger({ level: 'warn' })
const prices = loadPriceTable()
const tracker = new TraceTracker(5000)
let bytes = 0
const consumer = spanConsumer({
  sink: { encoding: async () => encoding, add: async (rows) => void (bytes += rows.body().length) },
  tracker,
  log,
  maxBatchSpans: spanCount,
  rowContextFor: () => ({ retentionHours: 720, costProvider: 'openai', prices }),
  storedSpans: async () => new Set(),
  tracesWithTotals: async () => new Set(),
  reconcile: async () => 0,
  reconcileRollups: async () => {},
  nextBatchId: () => '1',
  replayGuardSpans: 0,
})

async function time(what: string, run: () => Promise<void>): Promise<number[]> {
  progress(`timing ${what}: ${BATCHES} batches of ${fmt(spanCount)} spans in ${fmt(records.length)} records`)
  const ms: number[] = []
  for (let i = 0; i < WARMUP + BATCHES; i++) {
    const t0 = performance.now()
    await run()
    if (i >= WARMUP) ms.push(performance.now() - t0)
    // Traces complete between batches in the service; here the tracker would only grow.
    tracker.takeCompleted(Number.MAX_SAFE_INTEGER)
  }
  return ms
}

const handle = consumerBatchHandler({} as Bus, consumer)
const ours = await time('the span consumer', () => handle(records))
const rows = sample.rows.slice(0, spanCount)
const bare = await time('the ceiling (bare decode + encode)', async () => {
  for (const r of records) spansOf(spanBatchV2.decode(r.value))
  encode(rows)
})

const line = (ms: number[]) => {
  const s = summarize(ms)
  const total = ms.reduce((a, b) => a + b, 0)
  return { rate: (spanCount * ms.length) / (total / 1000), us: (1000 * total) / (spanCount * ms.length), s }
}
const o = line(ours)
const b = line(bare)
process.stdout.write(`\n== span consumer on one thread, batches of ${fmt(spanCount)} spans (${fmt(records.length)} records) ==\n`)
table([
  ['spans/s (one thread)', `${fmt(o.rate)}   (${fmt(o.us, 2)} µs per span)`],
  ['per batch p50/p95/p99', `${fmt(o.s.p50, 1)} / ${fmt(o.s.p95, 1)} / ${fmt(o.s.p99, 1)} ms`],
  ['ceiling: bare decode + encode', `${fmt(b.rate)} spans/s (${fmt(b.us, 2)} µs per span) → ours at ${fmt((100 * o.rate) / b.rate, 1)}%`],
])
process.exit(0)
