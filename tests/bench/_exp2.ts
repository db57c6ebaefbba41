import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import { agentTrace, otlpEnvelope } from '../support/traces.js'
import { sampleRecords } from './ceilings.js'
import { REPO_ROOT } from '../support/process.js'
const require = createRequire(import.meta.url)
const { Session } = require('chdb')
const bodies: string[] = []
for (let i = 0; i < 250; i++) { const ts = Array.from({ length: 10 }, () => agentTrace({ spans: 20 })); bodies.push(JSON.stringify(otlpEnvelope(ts.flatMap((t) => t.spans)))) }
const rows = sampleRecords(bodies).rows
const s = new Session(mkdtempSync(join(tmpdir(), 'exp2-')))
const dir = join(REPO_ROOT, 'clickhouse')
for (const f of readdirSync(dir).filter((x) => x.endsWith('.sql')).sort()) s.query(readFileSync(join(dir, f), 'utf8'))
s.query(`CREATE TABLE spans_null AS spans_v1 ENGINE = Null`)
s.query(`CREATE TABLE spans_nomv AS spans_v1`)
s.query(`CREATE TABLE raw_null (s String) ENGINE = Null`)
const body = rows.map((r) => JSON.stringify(r)).join('\n')
async function t(name: string, sql: string, n = rows.length) {
  const t0 = performance.now()
  await s.queryAsync(sql)
  console.log(name.padEnd(50), Math.round(n / ((performance.now() - t0) / 1000)), 'rows/s')
}
await t('null JSONEachRow', `INSERT INTO spans_null FORMAT JSONEachRow\n${body}`)
await t('null JSONEachRow', `INSERT INTO spans_null FORMAT JSONEachRow\n${body}`)
await t('null JSONEachRow parallel_parsing=0', `INSERT INTO spans_null SETTINGS input_format_parallel_parsing=0 FORMAT JSONEachRow\n${body}`)
await t('raw_null JSONAsString', `INSERT INTO raw_null FORMAT JSONAsString\n${body}`)
await t('raw_null LineAsString', `INSERT INTO raw_null FORMAT LineAsString\n${body}`)
await t('nomv JSONEachRow', `INSERT INTO spans_nomv FORMAT JSONEachRow\n${body}`)
const noMaps = rows.map((r) => JSON.stringify({ ...r, attributes: {}, resource_attributes: {} })).join('\n')
await t('null JSONEachRow no maps', `INSERT INTO spans_null FORMAT JSONEachRow\n${noMaps}`)
// file-based
const { writeFileSync } = await import('node:fs')
writeFileSync('/tmp/exp/body.jsonl', body)
await t('null from file()', `INSERT INTO spans_null SELECT * FROM file('/tmp/exp/body.jsonl', JSONEachRow)`)
await t('nomv from file()', `INSERT INTO spans_nomv SELECT * FROM file('/tmp/exp/body.jsonl', JSONEachRow)`)
await t('v1 (MV) from file()', `INSERT INTO spans_v1 SELECT * FROM file('/tmp/exp/body.jsonl', JSONEachRow)`)
await t('v1 (MV) from file() again', `INSERT INTO spans_v1 SELECT * FROM file('/tmp/exp/body.jsonl', JSONEachRow)`)
try { await t('v1 INFILE', `INSERT INTO spans_v1 FROM INFILE '/tmp/exp/body.jsonl' FORMAT JSONEachRow`) } catch (e) { console.log('INFILE', String(e).slice(0,200)) }
await t('v1 inline', `INSERT INTO spans_v1 FORMAT JSONEachRow\n${body}`)
for (const b of [5000, 20000]) {
  const t0 = performance.now()
  for (let a = 0; a < rows.length; a += b) { writeFileSync('/tmp/exp/b.jsonl', rows.slice(a, a + b).map((r) => JSON.stringify(r)).join('\n')); await s.queryAsync(`INSERT INTO spans_v1 SELECT * FROM file('/tmp/exp/b.jsonl', JSONEachRow)`) }
  console.log(('v1 file batches incl stringify+write ' + b).padEnd(50), Math.round(rows.length / ((performance.now() - t0) / 1000)))
}
process.exit(0)
