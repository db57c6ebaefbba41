/**
 * pnpm bench:store [--spans 500000] [--insert-rows 12500] [--data-root DIR]
 *
 * ClickHouse's own CPU per stored span under chdb, views and merges included: what
 * the schema (clickhouse/*.sql) costs, without the service around it. In the
 * all-in-one process chdb shares the machine's two cores with ingest and the span
 * consumer, so every microsecond per span here is one the service does not have.
 *
 * bench:ingest's spans (agent traces of 20 spans) are written first as the store's
 * insert files (RowBinaryWithNamesAndTypes, `--insert-rows` spans each: what the span
 * consumer inserts under load), then loaded one insert after another with INSERT ...
 * FROM INFILE, as the store does, and the process's CPU is counted from the first
 * insert until background merges have been quiet for 3 s. Prints spans/s, CPU per
 * span, per-insert latency p50/p95/p99, the parts left, and the ceiling measured in
 * the same run: the same inserts into a copy of spans_v1 with no views attached.
 *
 * The data directory goes under `--data-root` (default the repository): ext4 makes
 * a file in a directory near many recent deletions cost 300-1,000 µs to create
 * (a part is a dozen files), so the root should be a fresh directory, not /tmp.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import type { ClickHouseClient } from '@clickhouse/client'
import { REPO_ROOT } from '../support/process.js'
import { bareChdb, ingestBodies, rowBinaryEncoder, sampleRecords } from './ceilings.js'
import { fileCreateMicros } from './service-env.js'
import { fmt, progress, summarize, table } from './stats.js'

const { values: args } = parseArgs({ options: { spans: { type: 'string', default: '500000' }, 'insert-rows': { type: 'string', default: '12500' }, 'data-root': { type: 'string' } } })
const SPANS = Number(args.spans)
const INSERT_ROWS = Number(args['insert-rows'])
if (!(SPANS >= INSERT_ROWS && INSERT_ROWS >= 200)) throw new Error('--spans must be at least --insert-rows, and --insert-rows at least 200')
const dataRoot = resolve(args['data-root'] ?? REPO_ROOT)

/** One insert's spans: bench:ingest's request bodies decoded and priced as the assembler does. */
const insertRows = () => sampleRecords(ingestBodies(INSERT_ROWS)).rows as unknown as Array<Record<string, unknown>>

const count = async (client: ClickHouseClient, sql: string) => Number((await (await client.query({ query: sql, format: 'JSONEachRow' })).json<{ n: string }>())[0]!.n)

/** This process's CPU (chdb's threads included), ms. */
const ownCpuMs = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

/** Loads every file into `table`, then waits for merges to be quiet; CPU and wall time from the first insert. */
async function load(client: ClickHouseClient, tableName: string, files: string[], columns: string[]) {
  const latencies: number[] = []
  const c0 = ownCpuMs()
  const t0 = performance.now()
  for (const [i, file] of files.entries()) {
    const t = performance.now()
    await client.command({ query: `INSERT INTO ${tableName} (${columns.join(', ')}) FROM INFILE '${file}' FORMAT RowBinaryWithNamesAndTypes` })
    latencies.push(performance.now() - t)
    if ((i + 1) % 20 === 0) progress(`${tableName}: ${fmt((i + 1) * INSERT_ROWS)} / ${fmt(files.length * INSERT_ROWS)} spans inserted`)
  }
  const insertSeconds = (performance.now() - t0) / 1000
  progress(`${tableName}: waiting for background merges to be quiet`)
  for (let quiet = 0; quiet < 6; ) {
    await new Promise((r) => setTimeout(r, 500))
    quiet = (await count(client, 'SELECT count() AS n FROM system.merges')) === 0 ? quiet + 1 : 0
  }
  const spans = files.length * INSERT_ROWS
  return { rate: spans / insertSeconds, cpuPerSpanUs: ((ownCpuMs() - c0) * 1000) / spans, lat: summarize(latencies) }
}

progress(`file create in ${dataRoot}: ${fmt(fileCreateMicros(dataRoot))} µs (ext4 near recent deletions: ~300-1,000; clean: ~25)`)
const { client, dispose } = await bareChdb('.bench-store-', dataRoot)
const filesDir = mkdtempSync(join(dataRoot, '.bench-store-files-'))
try {
  progress(`writing ${fmt(SPANS)} spans as ${fmt(Math.floor(SPANS / INSERT_ROWS))} insert files of ${fmt(INSERT_ROWS)}`)
  const first = insertRows()
  const columns = Object.keys(first[0]!)
  const encode = await rowBinaryEncoder(client, 'spans_v1', columns)
  const files: string[] = []
  for (let i = 0; i < Math.floor(SPANS / INSERT_ROWS); i++) {
    const file = join(filesDir, `${i}.bin`)
    await writeFile(file, encode(i === 0 ? first : insertRows()))
    files.push(file)
  }
  // The ceiling: spans_v1's engine, key, codecs and settings, no views. Loaded first, so the views' run starts on quiet merges.
  await client.command({ query: 'CREATE TABLE spans_bare AS spans_v1' })
  const bare = await load(client, 'spans_bare', files, columns)
  const ours = await load(client, 'spans_v1', files, columns)
  const parts = await (await client.query({ query: "SELECT table, count() AS n FROM system.parts WHERE active AND database = currentDatabase() AND table != 'spans_bare' GROUP BY table HAVING n > 0 ORDER BY table", format: 'JSONEachRow' })).json<{ table: string; n: string }>()

  process.stdout.write(`\n== ClickHouse (chdb) storing bench:ingest's spans: ${fmt(files.length * INSERT_ROWS)} spans in inserts of ${fmt(INSERT_ROWS)}, every view attached ==\n`)
  table([
    ['spans/s inserted (one insert at a time)', fmt(ours.rate)],
    ['ClickHouse CPU per span', `${fmt(ours.cpuPerSpanUs, 2)} µs (inserts, views and merges, until merges were quiet)`],
    ['insert latency p50/p95/p99', `${fmt(ours.lat.p50, 1)} / ${fmt(ours.lat.p95, 1)} / ${fmt(ours.lat.p99, 1)} ms`],
    ['active parts after', parts.map((p) => `${p.table} ${p.n}`).join(', ')],
    ['ceiling: spans_v1 alone (no views)', `${fmt(bare.rate)} spans/s, ${fmt(bare.cpuPerSpanUs, 2)} µs CPU per span → ours at ${fmt((bare.cpuPerSpanUs / ours.cpuPerSpanUs) * 100, 1)}% of its spans per CPU second`],
  ])
} finally {
  rmSync(filesDir, { recursive: true, force: true })
  await dispose()
}
