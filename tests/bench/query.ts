/**
 * pnpm bench:query [--spans 1000000] [--runs 200] [--data-dir DIR]
 *
 * Seeds one workspace with realistic spans (20 per trace, a day of traffic), then
 * starts the all-in-one service on that data and times the trace list over HTTP:
 * the first page, filtered pages (project, grade), a time-bounded page, and a deep page
 * reached through cursors, and the usage and latency panels. Prints p50/p95/p99 per query, then the ceilings with the
 * service stopped: the same page from the store directly (the list's statements
 * without HTTP, auth and JSON), and the bare engine's floor for one round trip
 * (SELECT 1), with our first page as a ratio of each.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { loadConfig } from '@svc/shared/config'
import { stableUuid } from '@svc/shared/control/secrets'
import { createLogger } from '@svc/shared/log'
import { createStore } from '@svc/shared/store/index'
import { migrate } from '@svc/shared/store/migrate'
import type { Store } from '@svc/shared/store/types'
import { listTraces } from '@svc/shared/store/queries/trace-list'
import { exited, freePort, REPO_ROOT, spawnAllInOne, waitForHealth } from '../support/process.js'
import { seedSpans } from './seed-spans.js'
import { fmt, progress, summarize, table } from './stats.js'

const { values: args } = parseArgs({ options: { spans: { type: 'string', default: '1000000' }, runs: { type: 'string', default: '200' }, 'data-dir': { type: 'string' } } })
const SPANS = Number(args.spans)
const RUNS = Number(args.runs)
// --data-dir keeps the seeded data for the next run (seeding 100M spans takes minutes); a fresh temporary directory otherwise.
const KEEP = args['data-dir'] !== undefined
const SEEDED_MARK = `.bench-query-seeded-${SPANS}`
// Polls of system.merges, 10 s apart, before timing starts anyway (a 100M-span load settled in about a minute here).
const MAX_MERGE_WAITS = 90
const KEY = 'dr_benchQueryKey000000000000000000000000001'

const dataDir = KEEP ? resolve(args['data-dir']!) : mkdtempSync(join(REPO_ROOT, '.bench-data-'))
const env = {
  SVC_BUS: 'embedded', SVC_DATA_DIR: dataDir, SVC_HOST: '127.0.0.1', LOG_LEVEL: 'warn', SVC_QUIET_BOOTSTRAP: 'true',
  SVC_INIT_ORG_SLUG: 'bench', SVC_INIT_WORKSPACE_SLUG: 'bench', SVC_INIT_API_KEY: KEY, SVC_INIT_USER_PASSWORD: 'bench-password',
}
// The bootstrap derives the workspace id from the slugs, so the seed can target it before the service exists.
const workspaceId = stableUuid(`workspace:${stableUuid('org:bench')}:bench`)

if (existsSync(join(dataDir, SEEDED_MARK))) progress(`reusing ${fmt(SPANS)} seeded spans in ${dataDir}`)
else {
  // The seed's sums add up: seeding over a run that stopped part way would count its spans twice.
  if (KEEP && existsSync(dataDir) && readdirSync(dataDir).length > 0) throw new Error(`${dataDir} holds no finished seed of ${fmt(SPANS)} spans (${SEEDED_MARK} is missing): remove it or name an empty directory`)
  progress(`seeding ${fmt(SPANS)} spans into ${dataDir}`)
  mkdirSync(dataDir, { recursive: true })
  const log = createLogger({ level: 'warn' })
  const store = await createStore(loadConfig(env), log)
  await migrate(store, log)
  const t0 = performance.now()
  await seedSpans(store, { workspaceId, spans: SPANS })
  progress(`seeded in ${fmt((performance.now() - t0) / 1000, 1)} s`)
  // A bulk load leaves merges running for minutes; timed reads would share the cores with them.
  for (let merging = await runningMerges(store), waits = 0; merging > 0 && waits < MAX_MERGE_WAITS; merging = await runningMerges(store), waits++) {
    progress(`waiting for ${merging} background merge(s) to finish`)
    await new Promise((r) => setTimeout(r, 10_000))
  }
  await store.close()
  if (KEEP) writeFileSync(join(dataDir, SEEDED_MARK), '')
}

const [ingestPort, apiPort] = [await freePort(), await freePort()]
const child = spawnAllInOne({ ...env, SVC_INGEST_PORT: String(ingestPort), SVC_API_PORT: String(apiPort) })
try {
  const api = `http://127.0.0.1:${apiPort}/v1/observ/orgs/bench/workspaces/bench/traces`
  await waitForHealth(`http://127.0.0.1:${apiPort}/health`, child)
  const get = async (q: string) => {
    // Paths starting /../ are siblings of /traces (the usage panels).
    const url = q.startsWith('/../') ? `${api.replace(/\/traces$/, '')}/${q.slice(4)}` : `${api}${q}`
    const res = await fetch(url, { headers: { 'x-svc-api-key': KEY } })
    if (res.status !== 200) throw new Error(`${q}: ${res.status} ${await res.text()}`)
    return (await res.json()) as { data: Array<{ trace_start: string }>; next_cursor: string | null }
  }
  const first = await get('?include_empty=true')
  const mid = first.data[0] ? new Date(Date.parse(first.data[0].trace_start) - 12 * 3600_000).toISOString() : ''
  let deep = first.next_cursor
  for (let i = 0; i < 20 && deep; i++) deep = (await get(`?include_empty=true&cursor=${deep}`)).next_cursor

  const cases: Array<[string, string]> = [
    ['first page (include_empty=true)', '?include_empty=true'],
    ['first page (default: LLM traces only)', ''],
    ['project filter', '?project=proj-3'],
    ['start/end window (1 h, 12 h ago)', `?start_time=${mid}&end_time=${new Date(Date.parse(mid) + 3600_000).toISOString()}`],
    ['page 21 by cursor', `?include_empty=true&cursor=${deep ?? ''}`],
    ['grade_min=B (latest grade B or better)', '?include_empty=true&grade_min=B'],
    ['page_size=500', '?include_empty=true&page_size=500'],
    ['usage summary (month)', '/../usage/summary?period=month'],
    ['usage timeseries (30 days)', '/../usage/timeseries'],
    ['latency panel (month)', '/../usage/latency?period=month'],
    ['latency drill-down (llm, slow p95, month)', '/../usage/latency/phase/traces?phase=llm&metric=slow&period=month'],
  ]
  const rows: Array<[string, string]> = []
  const firstPageMs: number[] = []
  for (const [name, q] of cases) {
    progress(`timing ${name}`)
    for (let i = 0; i < 5; i++) await get(q)
    const ms: number[] = []
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now()
      await get(q)
      ms.push(performance.now() - t0)
    }
    const s = summarize(ms)
    if (name.startsWith('first page (include_empty')) firstPageMs.push(...ms)
    rows.push([name, `p50 ${fmt(s.p50, 1)}  p95 ${fmt(s.p95, 1)}  p99 ${fmt(s.p99, 1)} ms`])
  }
  child.kill('SIGTERM')
  await exited(child)

  progress('timing the ceilings on the store directly')
  const log = createLogger({ level: 'warn' })
  const store = await createStore(loadConfig(env), log)
  const time = async (f: () => Promise<unknown>) => {
    for (let i = 0; i < 5; i++) await f()
    const ms: number[] = []
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now()
      await f()
      ms.push(performance.now() - t0)
    }
    return summarize(ms)
  }
  const direct = await time(() => listTraces(store, { workspaceId, pageSize: 50, includeEmpty: true }))
  const floor = await time(() => store.query('SELECT 1'))
  await store.close()
  const http = summarize(firstPageMs)
  rows.push(
    ['ceiling: same page, store only', `p50 ${fmt(direct.p50, 1)}  p95 ${fmt(direct.p95, 1)} ms → ours (HTTP) at p50 ${fmt((direct.p50 / http.p50) * 100, 1)}% of its speed`],
    ['ceiling: SELECT 1 round trip', `p50 ${fmt(floor.p50, 2)}  p95 ${fmt(floor.p95, 2)} ms`],
  )
  process.stdout.write(`\n== read API over HTTP, ${fmt(SPANS)} spans in one workspace (embedded mode, ${RUNS} runs each) ==\n`)
  table(rows)
} finally {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM')
    await exited(child)
  }
  if (!KEEP) rmSync(dataDir, { recursive: true, force: true })
}
process.exit(0)

async function runningMerges(store: Store): Promise<number> {
  const [r] = await store.query<{ n: string }>('SELECT count() AS n FROM system.merges')
  return Number(r?.n ?? 0)
}
