import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '@svc/shared/config'
import { createLogger } from '@svc/shared/log'
import { createStore, type Store } from '@svc/shared/store/index'
import { migrate } from '@svc/shared/store/migrate'
import { ANALYTICS_VIEWS } from '@svc/shared/store/analytics'
import { loadAnalyticsFixture, schemaMarkdown, trace } from './analytics.testkit.js'

/**
 * The analytics views (clickhouse/0023) over the fixture fleet, and every example
 * question of docs/analysts.md: the document's SQL blocks are run as written and
 * their results compared exactly, so the document and the schema cannot drift.
 */
const DOC = fileURLToPath(new URL('../../../docs/analysts.md', import.meta.url))
const log = createLogger({ level: 'silent' })
let dir: string
let store: Store
let Y: string
let Y2: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-analytics-'))
  store = await createStore(loadConfig({ SVC_DATA_DIR: dir }), log)
  await migrate(store, log)
  const { T } = await loadAnalyticsFixture(store)
  Y = new Date(T).toISOString().slice(0, 10)
  Y2 = new Date(T - 2 * 86_400_000).toISOString().slice(0, 10)
})

afterAll(async () => {
  await store?.close()
  rmSync(dir, { recursive: true, force: true })
})

/** `### heading` → the SQL block under it, from the document's example section. */
function examples(): Map<string, string> {
  const doc = readFileSync(DOC, 'utf8')
  const section = doc.slice(doc.indexOf('\n## Example questions'))
  const out = new Map<string, string>()
  for (const m of section.matchAll(/^### (.+)\n[\s\S]*?```sql\n([\s\S]*?)```/gm)) out.set(m[1]!, m[2]!)
  return out
}

const EXPECTED: Record<string, (d: { Y: string; Y2: string }) => unknown[]> = {
  'Cost per model per day': ({ Y }) => [
    { day: Y, model: 'claude-sonnet-4', calls: 1, cost_usd: 0.02 },
    { day: Y, model: 'gpt-4o', calls: 2, cost_usd: 0.02 },
    { day: Y, model: 'gpt-4o-mini', calls: 2, cost_usd: 0.0004 },
    { day: Y, model: 'my-local-model', calls: 1, cost_usd: 0 },
  ],
  // search_kb took 120, 1000 (failed) and 100 ms; web_search 300 and 400 ms.
  'Slowest tools by p95 latency': () => [
    { tool_name: 'search_kb', calls: 3, p95_ms: 1000, avg_ms: 406.7 },
    { tool_name: 'web_search', calls: 2, p95_ms: 400, avg_ms: 350 },
  ],
  'Error rate by tool': () => [
    { tool_name: 'search_kb', calls: 3, errors: 1, error_rate: 0.333, sample_error: 'timeout' },
    { tool_name: 'web_search', calls: 2, errors: 0, error_rate: 0, sample_error: '' },
  ],
  // A was graded C, then B (newest wins); D is ungradeable and E never scored: neither counts.
  'Grade distribution per agent': () => [
    { agent: 'research-agent', grade: 'C+', traces: 1, avg_score: 60 },
    { agent: 'support-bot', grade: 'A', traces: 1, avg_score: 92 },
    { agent: 'support-bot', grade: 'B', traces: 1, avg_score: 80 },
  ],
  // A's older sources analysis (3 unsupported on kb.acme.com) is replaced by its newer one.
  'Unsupported claims by source domain': () => [
    { domain: 'kb.acme.com', kind: 'internal_kb', traces: 2, supported: 2, unsupported: 2, unsupported_share: 0.5 },
    { domain: 'random-blog.net', kind: 'web', traces: 1, supported: 0, unsupported: 2, unsupported_share: 1 },
    { domain: 'arxiv.org', kind: 'web', traces: 1, supported: 3, unsupported: 0, unsupported_share: 0 },
    { domain: 'wikipedia.org', kind: 'web', traces: 1, supported: 1, unsupported: 0, unsupported_share: 0 },
  ],
  'Token waste from repeated prompts': () => [{ model: 'gpt-4o', repeated_calls: 1, wasted_input_tokens: 1000, wasted_output_tokens: 200, wasted_usd: 0.01 }],
  'Prompt-cache hit share per model': () => [
    { model: 'claude-sonnet-4', cached_tokens: 2000, all_input_tokens: 3000, cache_hit_share: 0.667 },
    { model: 'gpt-4o', cached_tokens: 400, all_input_tokens: 2000, cache_hit_share: 0.2 },
    { model: 'gpt-4o-mini', cached_tokens: 0, all_input_tokens: 700, cache_hit_share: 0 },
    { model: 'my-local-model', cached_tokens: 0, all_input_tokens: 100, cache_hit_share: 0 },
  ],
  'Traces and cost per end user': () => [
    { end_user: 'u-1', traces: 2, cost_usd: 0.04 },
    { end_user: 'u-2', traces: 1, cost_usd: 0.0003 },
    { end_user: 'u-3', traces: 1, cost_usd: 0.0001 },
  ],
  // Alice's session sent the cost metric (1.25): its api_request event's 1.2 is not added. Bob's came from events.
  'Coding-agent cost per developer': () => [
    { employee: 'alice@acme.com', agent: 'claude_code', sessions: 1, cost_usd: 1.25, tokens: 1300, prompts: 2 },
    { employee: 'bob@acme.com', agent: 'claude_code', sessions: 1, cost_usd: 0.4, tokens: 2100, prompts: 1 },
  ],
  // Roll-ups outlive retention: staging's two traces show here (and nowhere else); the deleted workspace never does.
  'Daily traces, tokens and spend per workspace': ({ Y, Y2 }) => [
    { org_slug: 'acme', workspace_slug: 'prod', day: Y, traces: 5, input_tokens: 5800, cost_usd: 0.0404 },
    { org_slug: 'acme', workspace_slug: 'staging', day: Y2, traces: 1, input_tokens: 100, cost_usd: 0.001 },
    { org_slug: 'acme', workspace_slug: 'staging', day: Y, traces: 1, input_tokens: 100, cost_usd: 0.001 },
  ],
  'Most expensive traces this week': () => [
    { trace_id: trace('a'), project_id: 'support-bot', span_count: 4, cost_usd: 0.02, duration_ms: 4000, grade: 'B' },
    { trace_id: trace('c'), project_id: 'research-agent', span_count: 4, cost_usd: 0.02, duration_ms: 6000, grade: 'C+' },
    { trace_id: trace('b'), project_id: 'support-bot', span_count: 4, cost_usd: 0.0003, duration_ms: 3000, grade: 'A' },
  ],
  'LLM calls the price table does not know': () => [{ model: 'my-local-model', provider: '', calls: 1, input_tokens: 100, output_tokens: 10 }],
  // A's older correlation result (oversized_context) is replaced by its newer one.
  'Estimated savings by finding kind': () => [
    { kind: 'model_downgrade', findings: 1, savings_usd: 0.015 },
    { kind: 'prompt_cache', findings: 1, savings_usd: 0.01 },
  ],
  // openai: 1000, 800, 500 and 200 ms.
  'LLM latency by provider': () => [
    { provider: 'anthropic', calls: 1, p50_ms: 2000, p95_ms: 2000 },
    { provider: 'openai', calls: 4, p50_ms: 800, p95_ms: 1000 },
    { provider: '', calls: 1, p50_ms: 300, p95_ms: 300 },
  ],
}

describe('docs/analysts.md example questions', () => {
  it('has at least 12, each with an expected result here', () => {
    const names = [...examples().keys()]
    expect(names.length).toBeGreaterThanOrEqual(12)
    expect(names.sort()).toEqual(Object.keys(EXPECTED).sort())
  })

  for (const [name, expected] of Object.entries(EXPECTED)) {
    it(name, async () => {
      const sql = examples().get(name)
      expect(sql, `no SQL under "### ${name}"`).toBeDefined()
      expect(await store.query(sql!)).toEqual(expected({ Y, Y2 }))
    })
  }
})

describe('analytics views', () => {
  it('traces: each span once (a redelivered span, a signed correction row), the newest grade, only live workspaces inside their window', async () => {
    const rows = await store.query(
      `SELECT workspace_slug, trace_id, span_count, round(cost_usd, 6) AS cost, input_tokens, grade, grade_rank, score, scorer_version, isNull(scored_at) AS unscored
       FROM analytics.traces ORDER BY trace_id`,
    )
    expect(rows).toEqual([
      { workspace_slug: 'prod', trace_id: trace('a'), span_count: 4, cost: 0.02, input_tokens: 2000, grade: 'B', grade_rank: 4, score: 80, scorer_version: 'cr-2', unscored: 0 },
      { workspace_slug: 'prod', trace_id: trace('b'), span_count: 4, cost: 0.0003, input_tokens: 500, grade: 'A', grade_rank: 7, score: 92, scorer_version: 'cr-2', unscored: 0 },
      { workspace_slug: 'prod', trace_id: trace('c'), span_count: 4, cost: 0.02, input_tokens: 3000, grade: 'C+', grade_rank: 2, score: 60, scorer_version: 'cr-2', unscored: 0 },
      { workspace_slug: 'prod', trace_id: trace('d'), span_count: 2, cost: 0, input_tokens: 100, grade: '', grade_rank: null, score: null, scorer_version: 'cr-2', unscored: 0 },
      { workspace_slug: 'prod', trace_id: trace('e'), span_count: 2, cost: 0.0001, input_tokens: 200, grade: '', grade_rank: null, score: null, scorer_version: '', unscored: 1 },
    ])
    // The internal table does hold the other workspaces' traces.
    const raw = await store.query(`SELECT trace_id FROM traces_v1 WHERE trace_id IN {t:Array(String)} GROUP BY trace_id ORDER BY trace_id`, { t: [trace('1'), trace('9')] })
    expect(raw).toEqual([{ trace_id: trace('1') }, { trace_id: trace('9') }])
  })

  it('spans: one row per span; staging (24-hour window, an expired row) and the deleted workspace show nothing', async () => {
    expect(await store.query(`SELECT workspace_slug, count() AS spans, uniqExact(span_id) AS distinct_spans FROM analytics.spans GROUP BY workspace_slug`)).toEqual([
      { workspace_slug: 'prod', spans: 16, distinct_spans: 16 },
    ])
    const stored = await store.query(`SELECT uniqExact(span_id) AS n FROM spans_v1 WHERE trace_id IN {t:Array(String)}`, { t: [trace('1'), trace('9')] })
    expect(stored).toEqual([{ n: 4 }])
  })

  it('workspaces: slugs, names and the window in force, deleted ones left out', async () => {
    expect(await store.query(`SELECT org_slug, org_name, workspace_slug, workspace_name, retention_hours FROM analytics.workspaces ORDER BY workspace_slug`)).toEqual([
      { org_slug: 'acme', org_name: 'Acme Corp', workspace_slug: 'prod', workspace_name: 'Production', retention_hours: 720 },
      { org_slug: 'acme', org_name: 'Acme Corp', workspace_slug: 'staging', workspace_name: 'Staging', retention_hours: 24 },
    ])
  })

  it('every view has a workspace_id column (row policies filter on it) and is the list the grant command covers', async () => {
    const views = await store.query<{ table: string; has: number }>(
      `SELECT name AS table, (SELECT count() FROM system.columns WHERE database = 'analytics' AND table = t.name AND name = 'workspace_id') AS has
       FROM system.tables AS t WHERE database = 'analytics' ORDER BY name`,
    )
    expect(views.map((v) => v.table)).toEqual([...ANALYTICS_VIEWS].sort())
    for (const v of views) expect(Number(v.has), v.table).toBe(1)
  })

  it('every column has a comment, and docs/analysts.md lists them all as ClickHouse has them', async () => {
    const uncommented = await store.query(`SELECT table, name FROM system.columns WHERE database = 'analytics' AND comment = ''`)
    expect(uncommented).toEqual([])
    const doc = readFileSync(DOC, 'utf8')
    const section = doc.slice(doc.indexOf('<!-- schema:start -->\n') + '<!-- schema:start -->\n'.length, doc.indexOf('\n<!-- schema:end -->'))
    expect(section).toBe(await schemaMarkdown(store))
  })
})
