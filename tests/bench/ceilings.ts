import { mkdtempSync, rmSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient, type ClickHouseClient } from '@clickhouse/client'
import { createChdbConnection } from 'chdb/connection'
import { Kafka, logLevel } from 'kafkajs'
import { spanRow, type SpanRow } from '@svc/assembler/assemble'
import { loadPriceTable } from '@svc/shared/domain/pricing'
import { createEmbeddedBus } from '@svc/shared/bus/embedded/index'
import type { SpanRecord } from '@svc/shared/bus/records'
import { spanBatchRecords } from '@svc/shared/bus/span-batch'
import { decodeTraceRequest } from '@svc/ingest/otlp/decode'
import { encodeRows, encoderFor, rowEncoding, RowBinaryWriter, type Encode, type RowEncoding } from '@svc/shared/store/row-binary'
import { readMigrations } from '@svc/shared/store/migrate'
import { STORE_SETTINGS } from '@svc/shared/store/index'
import { agentTrace, otlpEnvelope } from '../support/traces.js'

const principal = { org_id: '11111111-1111-5111-8111-111111111111', workspace_id: '22222222-2222-5222-8222-222222222222', project_id: 'bench' }

export interface Sample {
  records: Array<{ key: string | null; value: Buffer }>
  rows: SpanRow[]
  /** Records per request: what one produce call of the ceiling sends. */
  perRequest: number
  /** Spans (or data points, events) per record, so a ceiling's records/s reads as items/s. */
  itemsPerRecord: number
}

/** bench:ingest's request bodies (OTLP/JSON, 10 agent traces of 20 spans each), as many as hold `spans` spans. */
export function ingestBodies(spans: number): string[] {
  const bodies: string[] = []
  for (let i = 0; i < Math.ceil(spans / 200); i++) bodies.push(JSON.stringify(otlpEnvelope(Array.from({ length: 10 }, () => agentTrace({ spans: 20, startMs: Date.now() - 60_000 })).flatMap((t) => t.spans))))
  return bodies
}

/** The same spans the benchmark sends, as the Avro records ingest produces (spans.raw.v2: a record per trace per request) and the rows the assembler inserts. */
export function sampleRecords(bodies: string[]): Sample {
  const spans: SpanRecord[] = []
  const records: Sample['records'] = []
  for (const json of bodies) {
    const decoded = decodeTraceRequest(JSON.parse(json), { principal, receivedAtMs: Date.now() })
    if (!decoded.ok) continue
    spans.push(...decoded.spans)
    records.push(...spanBatchRecords(decoded.spans))
  }
  return {
    records,
    rows: spans.map((s) => spanRow(s, { retentionHours: 720, costProvider: 'openai', prices: loadPriceTable() })),
    perRequest: Math.max(1, Math.round(records.length / Math.max(1, bodies.length))),
    itemsPerRecord: spans.length / Math.max(1, records.length),
  }
}

async function concurrently(total: number, batch: number, concurrency: number, send: (from: number, to: number) => Promise<unknown>) {
  let next = 0
  const t0 = performance.now()
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < total) {
      const from = next
      next = Math.min(total, next + batch)
      await send(from, next)
    }
  }))
  return total / ((performance.now() - t0) / 1000)
}

/** Items/s (records/s times itemsPerRecord) of the bare bus: kafkajs with acks=all, or the embedded log with fsync, same records per call and concurrency as the HTTP clients. */
export async function busCeiling(mode: 'embedded' | 'kafka', env: Record<string, string>, sample: Sample, concurrency: number): Promise<number> {
  const recs = sample.records
  if (mode === 'embedded') {
    const dir = mkdtempSync(join(tmpdir(), 'ceiling-log-'))
    const bus = await createEmbeddedBus({ dir })
    await bus.ensureTopics([{ name: 'ceiling', partitions: 1 }])
    const rate = await concurrently(recs.length, sample.perRequest, concurrency, (a, b) => bus.produce('ceiling', recs.slice(a, b)))
    await bus.close()
    rmSync(dir, { recursive: true, force: true })
    return rate * sample.itemsPerRecord
  }
  const kafka = new Kafka({ clientId: 'ceiling', brokers: env.KAFKA_BROKERS!.split(','), logLevel: logLevel.NOTHING })
  const admin = kafka.admin()
  await admin.connect()
  const topic = `ceiling-${Date.now()}`
  await admin.createTopics({ topics: [{ topic, numPartitions: Number(env.KAFKA_TOPIC_PARTITIONS ?? 6) }], waitForLeaders: true })
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false })
  await producer.connect()
  const rate = await concurrently(recs.length, sample.perRequest, concurrency, (a, b) => producer.send({ topic, acks: -1, messages: recs.slice(a, b) }))
  await producer.disconnect()
  await admin.deleteTopics({ topics: [topic] }).catch(() => {})
  await admin.disconnect()
  return rate * sample.itemsPerRecord
}

/**
 * Rows/s of bare chdb inserts of the same rows into the same schema, in 20k-row
 * batches, the fastest way we know: RowBinaryWithNamesAndTypes written to a file and
 * loaded with INSERT ... FROM INFILE (what the store does, without the pipeline
 * around it).
 */
export async function clickhouseCeiling(sample: Sample): Promise<number> {
  const { client, dir, dispose } = await bareChdb('ceiling-ch-')
  try {
    const rows = sample.rows as unknown as Array<Record<string, unknown>>
    const insert = await rowBinaryInserter(client, 'spans_v1', Object.keys(rows[0]!), join(dir, 'batch.bin'))
    return await concurrently(rows.length, 20_000, 1, (a, b) => insert(rows.slice(a, b)))
  } finally {
    await dispose()
  }
}

/**
 * A chdb client on a fresh data directory with every migration applied, sending the
 * store's settings (STORE_SETTINGS), so a ceiling's inserts cost what the store's
 * would, under `root` (default the OS temporary directory); `dispose` closes it and
 * removes the directory.
 */
export async function bareChdb(prefix: string, root = tmpdir()): Promise<{ client: ClickHouseClient; dir: string; dispose(): Promise<void> }> {
  const dir = mkdtempSync(join(root, prefix))
  const client = createClient({ connection: createChdbConnection({ path: join(dir, 'db') }), clickhouse_settings: STORE_SETTINGS } as Parameters<typeof createClient>[0])
  const dispose = async () => {
    await client.close()
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    for (const m of readMigrations()) for (const q of m.statements) await client.command({ query: q })
  } catch (err) {
    await dispose()
    throw err
  }
  return { client, dir, dispose }
}

async function columnTypes(client: ClickHouseClient, table: string, columns: readonly string[]): Promise<{ types: string[]; encoders: Encode[] }> {
  const described = await (await client.query({ query: `DESCRIBE TABLE ${table}`, format: 'JSONEachRow' })).json<{ name: string; type: string }>()
  const types = columns.map((c) => described.find((d) => d.name === c)!.type)
  return { types, encoders: types.map((t) => encoderFor(t)!) }
}

/** Rows of `table` with these columns as the store encodes them: RowBinaryWithNamesAndTypes with the table's own column types. */
export async function rowBinaryEncoder(client: ClickHouseClient, table: string, columns: string[]): Promise<(rows: ReadonlyArray<Record<string, unknown>>) => Buffer> {
  const { types, encoders } = await columnTypes(client, table, columns)
  const writer = new RowBinaryWriter()
  return (rows) => encodeRows(writer, columns, types, encoders, rows)
}

/** What Store.rowEncoding answers for these columns of `table`. */
export async function tableEncoding(client: ClickHouseClient, table: string, columns: readonly string[]): Promise<RowEncoding> {
  const { types, encoders } = await columnTypes(client, table, columns)
  return rowEncoding(columns, types, encoders)
}

/** Inserts of rows into `table` as the store sends them under chdb: rowBinaryEncoder's bytes written to `file`, then INSERT ... FROM INFILE. */
export async function rowBinaryInserter(client: ClickHouseClient, table: string, columns: string[], file: string): Promise<(rows: Array<Record<string, unknown>>) => Promise<void>> {
  const encode = await rowBinaryEncoder(client, table, columns)
  return async (rows) => {
    await writeFile(file, encode(rows))
    await client.command({ query: `INSERT INTO ${table} (${columns.join(', ')}) FROM INFILE '${file}' FORMAT RowBinaryWithNamesAndTypes` })
  }
}
