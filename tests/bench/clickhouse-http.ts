/**
 * `pnpm bench:clickhouse-http [--seconds 5] [--concurrency 4] [--rows 100000]`: the
 * ClickHouse HTTP interface against its ceiling, the same statement on chdb directly
 * (a Session on the same engine, in the same process). A simple SELECT (queries/s,
 * p50/p95 over keep-alive HTTP, `concurrency` at once) and a JSONEachRow stream of
 * `rows` rows (p50/p95 per full read, rows/s), as the analyst. Nothing asserted.
 */
import { Agent, request } from 'node:http'
import { parseArgs } from 'node:util'
import { Session } from 'chdb'
import { chdbDataPath } from '@svc/shared/store/index'
import { ANALYST_PASSWORD, startTestInterface } from '@svc/clickhouse-http/test-support/interface'
import { fmt, progress, summarize, table } from './stats.js'

const { values: args } = parseArgs({ options: { seconds: { type: 'string', default: '5' }, concurrency: { type: 'string', default: '4' }, rows: { type: 'string', default: '100000' } } })
const seconds = Number(args.seconds)
const concurrency = Number(args.concurrency)
const rows = Number(args.rows)

const t = await startTestInterface({ SVC_CLICKHOUSE_ANALYST_MAX_CONCURRENT_QUERIES: String(concurrency), SVC_CLICKHOUSE_ANALYST_MAX_RESULT_ROWS: String(rows * 10) })
const agent = new Agent({ keepAlive: true, maxSockets: concurrency })
const auth = `Basic ${Buffer.from(`analyst:${ANALYST_PASSWORD}`).toString('base64')}`

function overHttp(sql: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${t.url}/?query=${encodeURIComponent(sql)}`, { agent, headers: { authorization: auth } }, (res) => {
      let bytes = 0
      res.on('data', (c: Buffer) => (bytes += c.length))
      res.on('end', () => (res.statusCode === 200 ? resolve(bytes) : reject(new Error(`HTTP ${res.statusCode}`))))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

const direct = new Session(chdbDataPath(t.config))
async function onChdb(sql: string, stream: boolean): Promise<number> {
  if (!stream) return (await direct.queryAsync(sql, { format: 'TabSeparated' })).bytes().byteLength
  let bytes = 0
  for await (const chunk of direct.queryStream(sql, { format: 'JSONEachRow' })) bytes += chunk.numBytes
  return bytes
}

/** Runs `fn` from `lanes` loops for `secs` seconds; each call's latency in ms. */
async function load(lanes: number, secs: number, fn: () => Promise<unknown>): Promise<{ latencies: number[]; perSecond: number }> {
  const latencies: number[] = []
  const end = performance.now() + secs * 1000
  const t0 = performance.now()
  await Promise.all(Array.from({ length: lanes }, async () => {
    while (performance.now() < end) {
      const s = performance.now()
      await fn()
      latencies.push(performance.now() - s)
    }
  }))
  return { latencies, perSecond: latencies.length / ((performance.now() - t0) / 1000) }
}

const SIMPLE = 'SELECT 1'
const STREAM = `SELECT number, toString(number) AS s FROM numbers(${rows})`
const out: Array<[string, string]> = []
for (const [name, sql, lanes, secs] of [['SELECT 1', SIMPLE, concurrency, seconds], [`${fmt(rows)}-row JSONEachRow stream`, STREAM, 1, seconds]] as const) {
  const stream = sql === STREAM
  progress(`${name}: chdb directly`)
  // The direct session runs one statement at a time (one stream per session), so its ceiling is one lane.
  const ceiling = await load(1, secs, () => onChdb(sql, stream))
  progress(`${name}: over HTTP, ${lanes} at once`)
  const http = await load(lanes, secs, () => overHttp(stream ? `${sql} FORMAT JSONEachRow` : sql))
  const c = summarize(ceiling.latencies)
  const h = summarize(http.latencies)
  out.push(
    [`${name}, chdb directly (ceiling)`, `${fmt(ceiling.perSecond, 1)}/s  p50 ${fmt(c.p50, 2)} ms  p95 ${fmt(c.p95, 2)} ms${stream ? `  ${fmt(ceiling.perSecond * rows)} rows/s` : ''}`],
    [`${name}, HTTP interface`, `${fmt(http.perSecond, 1)}/s  p50 ${fmt(h.p50, 2)} ms  p95 ${fmt(h.p95, 2)} ms${stream ? `  ${fmt(http.perSecond * rows)} rows/s` : ''}  (${fmt((100 * http.perSecond) / ceiling.perSecond)}% of the ceiling's rate)`],
  )
}
process.stdout.write(`\nClickHouse HTTP interface (${seconds} s per phase, ${concurrency} HTTP clients for SELECT 1, 1 for the stream)\n`)
table(out)
direct.close()
agent.destroy()
await t.close()
