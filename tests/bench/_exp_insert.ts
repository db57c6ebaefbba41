import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient } from '@clickhouse/client'
import { createChdbConnection } from 'chdb/connection'
import { agentTrace, otlpEnvelope } from '../support/traces.js'
import { sampleRecords } from './ceilings.js'
import { REPO_ROOT } from '../support/process.js'

const bodies: string[] = []
for (let i = 0; i < 500; i++) { const ts = Array.from({ length: 10 }, () => agentTrace({ spans: 20 })); bodies.push(JSON.stringify(otlpEnvelope(ts.flatMap((t) => t.spans)))) }
const sample = sampleRecords(bodies)
const rows = sample.rows
console.log('rows', rows.length, 'avg json bytes', Math.round(rows.slice(0, 1000).reduce((a, r) => a + JSON.stringify(r).length, 0) / 1000))
const client = createClient({ connection: createChdbConnection({ path: mkdtempSync(join(tmpdir(), 'exp-ch-')) }) } as any)
const dir = join(REPO_ROOT, 'clickhouse')
for (const f of readdirSync(dir).filter((x) => x.endsWith('.sql')).sort()) await client.command({ query: readFileSync(join(dir, f), 'utf8') })
await client.command({ query: `CREATE TABLE spans_null AS spans_v1 ENGINE = Null` })
await client.command({ query: `CREATE TABLE spans_nomv AS spans_v1` })
async function run(name: string, table: string, batch = 20000, fmt: any = 'JSONEachRow', vals: any = rows) {
  const t0 = performance.now()
  for (let a = 0; a < vals.length; a += batch) await client.insert({ table, values: vals.slice(a, a + batch), format: fmt })
  const s = (performance.now() - t0) / 1000
  console.log(name.padEnd(40), Math.round(vals.length / s), 'rows/s')
}
// JS only: stringify cost
{ const t0 = performance.now(); let n = 0; for (const r of rows) n += JSON.stringify(r).length; console.log('JSON.stringify only'.padEnd(40), Math.round(rows.length / ((performance.now() - t0) / 1000)), 'rows/s', n) }
await run('null table JSONEachRow', 'spans_null')
await run('no-MV table JSONEachRow', 'spans_nomv')
await run('spans_v1 (with MV) JSONEachRow', 'spans_v1')
await run('spans_v1 (with MV) JSONEachRow again', 'spans_v1')
await run('no-MV table JSONEachRow 50k', 'spans_nomv', 50000)
const compact = rows.map((r) => Object.values(r))
await run('no-MV JSONCompactEachRow', 'spans_nomv', 20000, 'JSONCompactEachRow', compact)
process.exit(0)
