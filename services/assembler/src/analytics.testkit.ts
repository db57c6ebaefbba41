/**
 * Fixture data for the analytics views (clickhouse/0023) and the example questions
 * of docs/analysts.md: a small fleet with known figures, stored the way the
 * service stores it. Spans go through the assembler's own row function and first-
 * delivery marking into spans_v1 (so the materialized views build traces_v1 and
 * the hourly roll-ups), a traces_v1 double count is repaired by the real
 * reconciliation (a signed correction row), workspaces come from a folded control
 * state through the real sync; engine outputs and coding-agent rows are inserted
 * as their writers store them.
 *
 * Times hang off T, 10:00 UTC yesterday: always inside the default 30-day window,
 * always more than a day before "now" minus two days for the staging workspace's
 * old trace. Every LLM span reports its own cost (svc.cost_usd) except one unpriced
 * model, so figures do not move with the price table.
 */
import { ControlState } from '@svc/shared/control/state'
import type { ControlEvent } from '@svc/shared/control/events'
import type { SpanRecord } from '@svc/shared/bus/records'
import { loadPriceTable } from '@svc/shared/domain/pricing'
import { createLogger } from '@svc/shared/log'
import { reconcileTraceTotals } from '@svc/shared/store/queries/trace-totals'
import type { Store } from '@svc/shared/store/index'
import { spanRow, spanKey, type SpanRow } from './assemble.js'
import { markFirstDeliveries } from './batch-rows.testkit.js'
import { workspaceSync } from './workspace-sync.js'

const DAY_MS = 86_400_000
const HOUR_MS = 3_600_000

/** 10:00 UTC yesterday. */
export function fixtureT(nowMs = Date.now()): number {
  return Math.floor(nowMs / DAY_MS) * DAY_MS - DAY_MS + 10 * HOUR_MS
}

export const ORG = { id: '0a000000-0000-4000-8000-000000000001', slug: 'acme', name: 'Acme Corp' }
export const WS = {
  prod: { id: '0b000000-0000-4000-8000-000000000001', slug: 'prod', name: 'Production' },
  staging: { id: '0b000000-0000-4000-8000-000000000002', slug: 'staging', name: 'Staging' },
  legacy: { id: '0b000000-0000-4000-8000-000000000003', slug: 'legacy', name: 'Legacy' },
}

/** Trace ids: the letter repeated, so results read easily. */
export const trace = (c: string) => c.repeat(32)
const span = (t: string, n: number) => `${t.slice(0, 1).repeat(14)}0${n}`

function controlState(): ControlState {
  const state = new ControlState()
  let n = 0
  const apply = (type: string, payload: Record<string, unknown>) =>
    state.apply({ type, payload, actor: 'fixture', at_ms: 1_700_000_000_000 + n, event_id: `e${n++}` } as ControlEvent)
  apply('org.created', { org_id: ORG.id, slug: ORG.slug, name: ORG.name })
  for (const w of Object.values(WS)) apply('workspace.created', { workspace_id: w.id, org_id: ORG.id, slug: w.slug, name: w.name })
  apply('workspace.setting_set', { workspace_id: WS.staging.id, name: 'retention', value: { enabled: true, hours: 24, updated_at_ms: 1_700_000_000_000 } })
  apply('workspace.deleted', { workspace_id: WS.legacy.id })
  return state
}

type SpanSpec = {
  trace: string
  n: number
  parent?: number
  name: string
  fromMs: number
  toMs: number
  attrs?: Record<string, string>
  service?: string
  project?: string
  error?: string
}

function record(ws: string, t0: number, s: SpanSpec): SpanRecord {
  const ns = (ms: number) => BigInt(t0 + ms) * 1_000_000n
  return {
    org_id: ORG.id, workspace_id: ws, project_id: s.project ?? 'support-bot', trace_id: s.trace, span_id: span(s.trace, s.n),
    parent_span_id: s.parent === undefined ? '' : span(s.trace, s.parent), name: s.name, kind: s.parent === undefined ? 'SERVER' : 'INTERNAL',
    start_time_unix_nano: ns(s.fromMs), end_time_unix_nano: ns(s.toMs), status_code: s.error ? 'ERROR' : 'OK', status_message: s.error ?? '',
    service_name: s.service ?? s.project ?? 'support-bot', scope_name: 'fixture', resource_attributes: { 'service.name': s.service ?? s.project ?? 'support-bot' },
    attributes: s.attrs ?? {}, json_attribute_keys: [], events_json: '[]', links_json: '[]', received_at_ms: t0 + s.toMs + 100,
  }
}

const llm = (model: string, provider: string, input: number, output: number, cost: number | null, extra: Record<string, string> = {}) => ({
  'gen_ai.operation.name': 'chat', 'gen_ai.request.model': model, ...(provider ? { 'gen_ai.provider.name': provider } : {}),
  'gen_ai.usage.input_tokens': String(input), 'gen_ai.usage.output_tokens': String(output), ...(cost === null ? {} : { 'svc.cost_usd': String(cost) }), ...extra,
})
const tool = (name: string) => ({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name })
const agent = (endUser?: string) => ({ 'gen_ai.operation.name': 'invoke_agent', ...(endUser ? { 'svc.end_user': endUser } : {}) })

/** The prod workspace's traces, offsets in ms from their own start. */
function prodSpans(): Array<SpanSpec & { startMin: number }> {
  const A = trace('a'), B = trace('b'), C = trace('c'), D = trace('d'), E = trace('e')
  const research = { project: 'research-agent' }
  return [
    { startMin: 0, trace: A, n: 0, name: 'invoke_agent support-bot', fromMs: 0, toMs: 4000, attrs: agent('u-1') },
    { startMin: 0, trace: A, n: 1, parent: 0, name: 'chat gpt-4o', fromMs: 100, toMs: 1100, attrs: llm('gpt-4o', 'openai', 1000, 200, 0.01, { 'gen_ai.usage.cache_read.input_tokens': '400' }) },
    { startMin: 0, trace: A, n: 2, parent: 0, name: 'execute_tool search_kb', fromMs: 1200, toMs: 1320, attrs: tool('search_kb') },
    { startMin: 0, trace: A, n: 3, parent: 0, name: 'chat gpt-4o', fromMs: 1400, toMs: 2200, attrs: llm('gpt-4o', 'openai', 1000, 200, 0.01) },
    { startMin: 10, trace: B, n: 0, name: 'invoke_agent support-bot', fromMs: 0, toMs: 3000, attrs: agent('u-2') },
    { startMin: 10, trace: B, n: 1, parent: 0, name: 'chat gpt-4o-mini', fromMs: 100, toMs: 600, attrs: llm('gpt-4o-mini', 'openai', 500, 50, 0.0003) },
    { startMin: 10, trace: B, n: 2, parent: 0, name: 'execute_tool search_kb', fromMs: 700, toMs: 1700, attrs: tool('search_kb'), error: 'timeout' },
    { startMin: 10, trace: B, n: 3, parent: 0, name: 'execute_tool search_kb', fromMs: 1800, toMs: 1900, attrs: tool('search_kb') },
    { startMin: 20, trace: C, n: 0, name: 'research run', fromMs: 0, toMs: 6000, attrs: { 'openinference.span.kind': 'AGENT', 'svc.end_user': 'u-1' }, ...research },
    { startMin: 20, trace: C, n: 1, parent: 0, name: 'claude', fromMs: 100, toMs: 2100, attrs: llm('claude-sonnet-4', 'anthropic', 3000, 500, 0.02, { 'gen_ai.usage.cache_read.input_tokens': '2000' }), ...research },
    { startMin: 20, trace: C, n: 2, parent: 0, name: 'web_search', fromMs: 2200, toMs: 2500, attrs: { 'openinference.span.kind': 'TOOL', 'tool.name': 'web_search' }, ...research },
    { startMin: 20, trace: C, n: 3, parent: 0, name: 'web_search', fromMs: 2600, toMs: 3000, attrs: { 'openinference.span.kind': 'TOOL', 'tool.name': 'web_search' }, ...research },
    { startMin: 30, trace: D, n: 0, name: 'research run', fromMs: 0, toMs: 2000, attrs: agent(), ...research },
    { startMin: 30, trace: D, n: 1, parent: 0, name: 'chat my-local-model', fromMs: 100, toMs: 400, attrs: llm('my-local-model', '', 100, 10, null), ...research },
    { startMin: 40, trace: E, n: 0, name: 'invoke_agent support-bot', fromMs: 0, toMs: 1000, attrs: agent('u-3') },
    { startMin: 40, trace: E, n: 1, parent: 0, name: 'chat gpt-4o-mini', fromMs: 100, toMs: 300, attrs: llm('gpt-4o-mini', 'openai', 200, 20, 0.0001) },
  ]
}

async function storeSpans(store: Store, ws: string, t0: number, specs: Array<SpanSpec & { startMin: number }>, retentionHours = 720): Promise<SpanRow[]> {
  const ctx = { retentionHours, costProvider: 'openai', prices: loadPriceTable() }
  const rows = specs.map((s) => spanRow(record(ws, t0 + s.startMin * 60_000, s), ctx))
  await store.insert('spans_v1', rows)
  return rows
}

export interface Fixture {
  T: number
}

/** Loads the fixture into a migrated store. */
export async function loadAnalyticsFixture(store: Store, nowMs = Date.now()): Promise<Fixture> {
  const T = fixtureT(nowMs)
  await workspaceSync({ store, state: controlState(), defaultRetentionHours: 720, log: createLogger({ level: 'silent' }) }).syncOnce(nowMs)

  const prod = await storeSpans(store, WS.prod.id, T, prodSpans())
  // A client retry: A's tool span arrives again in a later batch; the assembler marks the copy (first_delivery = 0).
  const again = prod.filter((r) => r.span_id === span(trace('a'), 2)).map((r) => ({ ...r, received_at: String(Number(r.received_at) + 5000) }))
  markFirstDeliveries(again, new Set(prod.map(spanKey)))
  await store.insert('spans_v1', again)
  // E counted twice in traces_v1 (as a view part applied twice would); the reconciliation adds a negative correction row.
  const e = await store.query<Record<string, unknown>>(`SELECT * FROM traces_v1 WHERE trace_id = {t:String}`, { t: trace('e') })
  await store.insert('traces_v1', e.map((r) => ({ ...r })))
  await reconcileTraceTotals(store, [{ workspace_id: WS.prod.id, trace_id: trace('e') }])

  // Staging keeps 24 hours: a trace from two days ago is outside the window; one written under a 1-hour window has expired.
  const staging = (t: string, name: string): Array<SpanSpec & { startMin: number }> => [
    { startMin: 0, trace: t, n: 0, name, fromMs: 0, toMs: 1000, attrs: agent() },
    { startMin: 0, trace: t, n: 1, parent: 0, name: 'chat gpt-4o', fromMs: 100, toMs: 600, attrs: llm('gpt-4o', 'openai', 100, 10, 0.001) },
  ]
  await storeSpans(store, WS.staging.id, T - 2 * DAY_MS, staging(trace('1'), 'old run'))
  await storeSpans(store, WS.staging.id, T, staging(trace('2'), 'expired run'), 1)
  // The deleted workspace's data stays stored (until retention) and is never shown.
  await storeSpans(store, WS.legacy.id, T, staging(trace('9'), 'legacy run'))

  await loadEngineOutputs(store, T)
  await loadCodingAgent(store, T)
  return { T }
}

async function loadEngineOutputs(store: Store, T: number): Promise<void> {
  const expires = Math.floor(T / 1000) + 720 * 3600
  const score = (t: string, grade: string, rank: number, value: number, atMin: number) =>
    ({ workspace_id: WS.prod.id, trace_id: trace(t), grade, grade_rank: rank, score: value, scorer_version: 'cr-2', scored_at: String(T + atMin * 60_000), expires_at: expires })
  await store.insert('trace_scores_v1', [
    score('a', 'C', 1, 55, 50), score('a', 'B', 4, 80, 55), score('b', 'A', 7, 92, 50), score('c', 'C+', 2, 60, 50), score('d', '', -1, 0, 50),
    { ...score('1', 'A', 7, 90, 50), workspace_id: WS.staging.id }, { ...score('9', 'A', 7, 90, 50), workspace_id: WS.legacy.id },
  ])
  const finding = (kind: string, spanId: string, current: string, suggested: string, usd: number, why: string) =>
    ({ kind, span_id: spanId, current_model: current, suggested_model: suggested, estimated_savings_usd: usd, rationale: why })
  const result = (t: string, engine: string, findings: unknown[], atMin: number) => ({
    workspace_id: WS.prod.id, trace_id: trace(t), engine, engine_version: '1', mode: 'deterministic',
    payload: JSON.stringify({ trace_id: trace(t), findings }), llm_input_tokens: 0, llm_output_tokens: 0, computed_at: String(T + atMin * 60_000), expires_at: expires,
  })
  await store.insert('engine_results_v1', [
    // An older analysis of A found something else; only the newest result counts.
    result('a', 'correlation', [finding('oversized_context', span(trace('a'), 1), 'gpt-4o', '', 0.004, 'older analysis')], 50),
    result('a', 'correlation', [finding('prompt_cache', span(trace('a'), 3), 'gpt-4o', '', 0.01, 'the same prompt was already answered')], 55),
    result('c', 'savings', [finding('model_downgrade', span(trace('c'), 1), 'claude-sonnet-4', 'claude-haiku-4', 0.015, 'a short answer')], 50),
    result('b', 'correlation', [], 50),
  ])
  const sources = (t: string, atMin: number, list: Array<[string, string, number, number]>) => ({
    workspace_id: WS.prod.id, trace_id: trace(t), analysed_at: String(T + atMin * 60_000),
    domains: list.map((s) => s[0]), kinds: list.map((s) => s[1]), citations: list.map(() => 1),
    supported: list.map((s) => s[2]), unsupported: list.map((s) => s[3]), last_seen: list.map(() => String(T)), expires_at: expires,
  })
  await store.insert('trace_sources_v1', [
    sources('a', 50, [['kb.acme.com', 'internal_kb', 0, 3]]),
    sources('a', 55, [['kb.acme.com', 'internal_kb', 2, 1], ['wikipedia.org', 'web', 1, 0]]),
    sources('b', 50, [['kb.acme.com', 'internal_kb', 0, 1]]),
    sources('c', 50, [['arxiv.org', 'web', 3, 0], ['random-blog.net', 'web', 0, 2]]),
  ])
}

async function loadCodingAgent(store: Store, T: number): Promise<void> {
  const ns = (ms: number) => String(BigInt(ms) * 1_000_000n)
  const metric = (name: string, type: string, delta: number, atMin: number) => ({
    workspace_id: WS.prod.id, metric_name: name, series_id: `${name}:${type}`, time_ns: ns(T + atMin * 60_000), start_ns: '0', metric_type: 'sum',
    temporality: 'delta', agent: 'claude_code', employee: 'alice@acme.com', session_id: 's-1', model: 'claude-sonnet-4', type, value: delta,
    count: 0, delta, count_delta: 0, attributes: {}, received_at: String(T),
  })
  await store.insert('coding_agent_metrics_v1', [
    metric('claude_code.cost.usage', '', 1.25, 0),
    metric('claude_code.token.usage', 'input', 1000, 0),
    metric('claude_code.token.usage', 'output', 300, 0),
  ])
  const event = (id: string, name: string, employee: string, session: string, cost: number, input: number, output: number) => ({
    workspace_id: WS.prod.id, event_time: String(T), event_id: id, agent: 'claude_code', event_name: name, employee, session_id: session,
    model: name === 'api_request' ? 'claude-sonnet-4' : '', cost_usd: cost, input_tokens: input, output_tokens: output, cache_read_tokens: 0,
    cache_creation_tokens: 0, lines_added: 0, lines_removed: 0, duration_ms: 0, tool_name: '', success: -1, decision: '', attributes: {}, received_at: String(T),
  })
  await store.insert('coding_agent_events_v1', [
    // Alice's session sent the cost and token metrics: its api_request figures must not count again.
    event('e1', 'api_request', 'alice@acme.com', 's-1', 1.2, 900, 280),
    event('e2', 'user_prompt', 'alice@acme.com', 's-1', 0, 0, 0),
    event('e3', 'user_prompt', 'alice@acme.com', 's-1', 0, 0, 0),
    event('e4', 'tool_result', 'alice@acme.com', 's-1', 0, 0, 0),
    // Bob's session sent events only.
    event('e5', 'api_request', 'bob@acme.com', 's-2', 0.4, 2000, 100),
    event('e6', 'user_prompt', 'bob@acme.com', 's-2', 0, 0, 0),
  ])
}

/**
 * docs/analysts.md's schema section as it must read: every view of the analytics
 * database with its comment, and every column with its type and comment, in
 * ClickHouse's own order. The test compares the document with this.
 */
export async function schemaMarkdown(store: Store): Promise<string> {
  const views = await store.query<{ name: string; comment: string }>(
    `SELECT name, comment FROM system.tables WHERE database = 'analytics' ORDER BY name`,
  )
  const cols = await store.query<{ table: string; name: string; type: string; comment: string }>(
    `SELECT table, name, type, comment FROM system.columns WHERE database = 'analytics' ORDER BY table, position`,
  )
  const cell = (s: string) => s.replace(/\|/g, '\\|')
  return views
    .map((v) => [
      `### analytics.${v.name}`,
      '',
      v.comment,
      '',
      '| Column | Type | Meaning |',
      '|---|---|---|',
      ...cols.filter((c) => c.table === v.name).map((c) => `| \`${c.name}\` | \`${c.type}\` | ${cell(c.comment)} |`),
    ].join('\n'))
    .join('\n\n')
}
