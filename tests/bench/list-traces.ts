/**
 * tsx tests/bench/list-traces.ts [--spans 1000000] [--runs 50] [--page-size 50]
 *
 * The trace list's store query alone (no HTTP): seeds one workspace in a fresh chdb
 * directory, then times listTraces for the first page and a few filtered pages.
 * Separates query cost from API overhead when bench:query looks slow.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { loadConfig } from '@svc/shared/config'
import { createLogger } from '@svc/shared/log'
import { createStore } from '@svc/shared/store/index'
import { migrate } from '@svc/shared/store/migrate'
import { listTraces, type ListTracesQuery } from '@svc/shared/store/queries/trace-list'
import { seedSpans } from './seed-spans.js'
import { fmt, progress, summarize, table } from './stats.js'

const { values: args } = parseArgs({ options: { spans: { type: 'string', default: '1000000' }, runs: { type: 'string', default: '50' }, 'page-size': { type: 'string', default: '50' } } })
const SPANS = Number(args.spans)
const RUNS = Number(args.runs)
const PAGE = Number(args['page-size'])
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url))
const workspaceId = '5e1f0000-0000-4000-8000-000000000001'

const dataDir = mkdtempSync(join(REPO_ROOT, '.bench-data-'))
const log = createLogger({ level: 'warn' })
const store = await createStore(loadConfig({ SVC_DATA_DIR: dataDir, LOG_LEVEL: 'warn' }), log)
try {
  await migrate(store, log, join(REPO_ROOT, 'clickhouse'))
  progress(`seeding ${fmt(SPANS)} spans into ${dataDir}`)
  const t0 = performance.now()
  await seedSpans(store, { workspaceId, spans: SPANS })
  progress(`seeded in ${fmt((performance.now() - t0) / 1000, 1)} s`)

  const base: ListTracesQuery = { workspaceId, pageSize: PAGE, includeEmpty: true }
  const first = await listTraces(store, base)
  let deep = first.nextCursor
  for (let i = 0; i < 20 && deep; i++) deep = (await listTraces(store, { ...base, cursor: deep })).nextCursor
  const newest = first.rows[0] ? BigInt(Date.parse(first.rows[0].trace_start)) * 1_000_000n : 0n
  const mid = newest - 12n * 3600n * 1_000_000_000n

  const cases: Array<[string, ListTracesQuery]> = [
    ['first page (include_empty=true)', base],
    ['first page (LLM traces only)', { ...base, includeEmpty: false }],
    ['project filter', { ...base, includeEmpty: false, project: 'proj-3' }],
    ['1 h window, 12 h ago', { ...base, startNs: mid, endNs: mid + 3600n * 1_000_000_000n }],
    ['page 21 by cursor', { ...base, cursor: deep }],
    ['grade_min=B', { ...base, gradeMinRank: 4 }],
  ]
  const rows: Array<[string, string]> = []
  for (const [name, q] of cases) {
    for (let i = 0; i < 5; i++) await listTraces(store, q)
    const ms: number[] = []
    for (let i = 0; i < RUNS; i++) {
      const s = performance.now()
      await listTraces(store, q)
      ms.push(performance.now() - s)
    }
    const s = summarize(ms)
    rows.push([name, `p50 ${fmt(s.p50, 1)}  p95 ${fmt(s.p95, 1)}  p99 ${fmt(s.p99, 1)} ms`])
  }
  process.stdout.write(`\n== listTraces on ${store.kind}, ${fmt(SPANS)} spans in one workspace, page ${PAGE}, ${RUNS} runs each ==\n`)
  table(rows)
} finally {
  await store.close()
  rmSync(dataDir, { recursive: true, force: true })
}
