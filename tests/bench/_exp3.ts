import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import { Readable } from 'node:stream'
import { createClient } from '@clickhouse/client'
import { createChdbConnection } from 'chdb/connection'
import { agentTrace, otlpEnvelope } from '../support/traces.js'
import { sampleRecords } from './ceilings.js'
import { REPO_ROOT } from '../support/process.js'
const variant = process.argv[2]!
const BATCH = Number(process.argv[3] ?? 20000)
const bodies: string[] = []
for (let i = 0; i < 750; i++) { const ts = Array.from({ length: 10 }, () => agentTrace({ spans: 20 })); bodies.push(JSON.stringify(otlpEnvelope(ts.flatMap((t) => t.spans)))) }
const rows = sampleRecords(bodies).rows
const path = mkdtempSync(join(tmpdir(), 'exp3-'))
const client = createClient({ connection: createChdbConnection({ path }) } as any)
const dir = join(REPO_ROOT, 'clickhouse')
const dv = process.argv[4] ?? ''
for (const f of readdirSync(dir).filter((x) => x.endsWith('.sql')).sort()) {
  let q = readFileSync(join(dir, f), 'utf8')
  if (dv.includes('nomv') && f.includes('mv')) continue
  if (dv.includes('gran')) q = q.replace(/SETTINGS index_granularity.*\n/, '\n')
  if (dv.includes('lz4')) q = q.replace(/CODEC\(ZSTD\(\d\)\)/g, 'CODEC(LZ4)')
  if (dv.includes('str')) q = q.replace(/Map\(LowCardinality\(String\), String\)/g, 'String')
  if (dv.includes('mapnolc')) q = q.replace(/Map\(LowCardinality\(String\), String\)/g, 'Map(String, String)').replace('Array(LowCardinality(String))', 'Array(String)')
  if (dv.includes('nolc')) q = q.replace(/LowCardinality\(String\)/g, 'String')
  await client.command({ query: q })
}
if (dv.includes('str')) for (const r of rows as any[]) { r.attributes = JSON.stringify(r.attributes); r.resource_attributes = JSON.stringify(r.resource_attributes) }
const session = (client as any)
const t0 = performance.now(); const cpu0 = process.cpuUsage()
for (let a = 0; a < rows.length; a += BATCH) {
  const batch = rows.slice(a, a + BATCH)
  if (variant === 'client') await client.insert({ table: 'spans_v1', values: batch, format: 'JSONEachRow' })
  else if (variant === 'stream') { let s = ''; for (const r of batch) s += JSON.stringify(r) + '\n'; const r = await client.exec({ query: 'INSERT INTO spans_v1 FORMAT JSONEachRow', values: Readable.from([Buffer.from(s)], { objectMode: false }) }); r.stream.resume() }
  else if (variant === 'compact') { const cols = Object.keys(batch[0]!); let s = ''; for (const r of batch) s += JSON.stringify(cols.map((c) => (r as any)[c])) + '\n'; writeFileSync(join(path, 'batch.jsonl'), s); await client.command({ query: `INSERT INTO spans_v1 (${cols.join(',')}) FROM INFILE '${join(path, 'batch.jsonl')}' FORMAT JSONCompactEachRow` }) }
  else if (variant === 'infile') { let s = ''; for (const r of batch) s += JSON.stringify(r) + '\n'; writeFileSync(join(path, 'batch.jsonl'), s); await client.command({ query: `INSERT INTO spans_v1 FROM INFILE '${join(path, 'batch.jsonl')}' FORMAT JSONEachRow` }) }
}
const el = (performance.now() - t0) / 1000; const cpu = process.cpuUsage(cpu0)
console.log(variant.padEnd(10), BATCH, Math.round(rows.length / el), 'rows/s', 'cpu cores used', ((cpu.user + cpu.system) / 1e6 / el).toFixed(2))
process.exit(0)
