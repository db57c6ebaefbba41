/**
 * The usage, cost and latency panels, read from the hourly roll-ups
 * (clickhouse/0009_create_usage_rollups.sql), and the latency drill-down, which
 * reads the top of phase_traces_v1 for one phase in the same window.
 */
import type { Phase } from '../../domain/genai.js'
import type { Store } from '../types.js'
import { tracesWithinRetention } from './retention.js'

/** A window of whole UTC hours: [fromMs, toMs), toMs being the end of the current hour. */
export interface HourWindow {
  fromMs: number
  toMs: number
}

const sec = (ms: number) => String(Math.floor(ms / 1000))

/** Selects one workspace's hours of a window in the hourly roll-ups; parameters from windowParams. */
export const IN_WINDOW = 'workspace_id = {ws:UUID} AND hour >= toDateTime({from:UInt32}) AND hour < toDateTime({to:UInt32})'
export const windowParams = (workspaceId: string, w: HourWindow) => ({ ws: workspaceId, from: sec(w.fromMs), to: sec(w.toMs) })

export interface UsageSummary {
  totals: { trace_count: number; span_count: number; llm_calls: number; unpriced_calls: number; input_tokens: number; output_tokens: number; cache_read_tokens: number; reasoning_tokens: number; cost_usd: number }
  by_model: Array<{ model: string; provider: string; llm_calls: number; unpriced_calls: number; input_tokens: number; output_tokens: number; cost_usd: number }>
  by_project: Array<{ project_id: string; trace_count: number; llm_calls: number; cost_usd: number }>
}

const num = (v: unknown) => Number(v ?? 0)
const usd = (v: unknown) => Math.round(Number(v ?? 0) * 1e9) / 1e9

export async function usageSummary(store: Store, workspaceId: string, w: HourWindow): Promise<UsageSummary> {
  const params = windowParams(workspaceId, w)
  const [totals, byModel, byProject] = await Promise.all([
    store.query<Record<string, unknown>>(
      `SELECT sum(traces) AS trace_count, sum(spans) AS span_count, sum(llm_calls) AS llm_calls, sum(unpriced_calls) AS unpriced_calls,
        sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens, sum(cache_read_tokens) AS cache_read_tokens,
        sum(reasoning_tokens) AS reasoning_tokens, sum(cost_usd) AS cost_usd
FROM usage_hourly_v1 WHERE ${IN_WINDOW}`,
      params,
      { tag: 'usage.summary.totals' },
    ),
    store.query<Record<string, unknown>>(
      `SELECT model, provider, sum(llm_calls) AS llm_calls, sum(unpriced_calls) AS unpriced_calls, sum(input_tokens) AS input_tokens,
        sum(output_tokens) AS output_tokens, sum(cost_usd) AS cost_usd
FROM usage_hourly_v1 WHERE ${IN_WINDOW} AND model != ''
GROUP BY model, provider ORDER BY cost_usd DESC, llm_calls DESC, model`,
      params,
      { tag: 'usage.summary.by-model' },
    ),
    store.query<Record<string, unknown>>(
      `SELECT project_id, sum(traces) AS trace_count, sum(llm_calls) AS llm_calls, sum(cost_usd) AS cost_usd
FROM usage_hourly_v1 WHERE ${IN_WINDOW}
GROUP BY project_id ORDER BY cost_usd DESC, trace_count DESC, project_id`,
      params,
      { tag: 'usage.summary.by-project' },
    ),
  ])
  const t = totals[0] ?? {}
  return {
    totals: {
      trace_count: num(t.trace_count), span_count: num(t.span_count), llm_calls: num(t.llm_calls), unpriced_calls: num(t.unpriced_calls),
      input_tokens: num(t.input_tokens), output_tokens: num(t.output_tokens), cache_read_tokens: num(t.cache_read_tokens), reasoning_tokens: num(t.reasoning_tokens), cost_usd: usd(t.cost_usd),
    },
    by_model: byModel.map((r) => ({ model: String(r.model), provider: String(r.provider), llm_calls: num(r.llm_calls), unpriced_calls: num(r.unpriced_calls), input_tokens: num(r.input_tokens), output_tokens: num(r.output_tokens), cost_usd: usd(r.cost_usd) })),
    by_project: byProject.map((r) => ({ project_id: String(r.project_id), trace_count: num(r.trace_count), llm_calls: num(r.llm_calls), cost_usd: usd(r.cost_usd) })),
  }
}

/** One point per UTC calendar day from `firstDayMs` for `days` days, days without traffic included. */
export async function usageByDay(store: Store, workspaceId: string, firstDayMs: number, days: number) {
  const rows = await store.query<{ day: string; trace_count: number; total_tokens: number; total_cost_usd: number }>(
    `SELECT toString(toDate(hour)) AS day, sum(traces) AS trace_count, sum(input_tokens) + sum(output_tokens) AS total_tokens, sum(cost_usd) AS total_cost_usd
FROM usage_hourly_v1
WHERE ${IN_WINDOW}
GROUP BY day`,
    windowParams(workspaceId, { fromMs: firstDayMs, toMs: firstDayMs + days * 86_400_000 }),
    { tag: 'usage.timeseries' },
  )
  const byDay = new Map(rows.map((r) => [r.day, r]))
  return Array.from({ length: days }, (_, i) => {
    const ts = new Date(firstDayMs + i * 86_400_000)
    const r = byDay.get(ts.toISOString().slice(0, 10))
    return { ts: ts.toISOString(), trace_count: num(r?.trace_count), total_tokens: num(r?.total_tokens), total_cost_usd: usd(r?.total_cost_usd) }
  })
}

export interface PhaseLatency {
  phase: Phase
  p50_ms: number
  p95_ms: number
  p99_ms: number
  call_count: number
  error_count: number
}

export async function latencyByPhase(store: Store, workspaceId: string, w: HourWindow): Promise<PhaseLatency[]> {
  const rows = await store.query<{ phase: Phase; q: number[]; calls: number; errors: number }>(
    `SELECT phase, quantilesTDigestMerge(0.5, 0.95, 0.99)(duration_ms) AS q, sum(calls) AS calls, sum(errors) AS errors
FROM latency_hourly_v1
WHERE ${IN_WINDOW}
GROUP BY phase ORDER BY phase`,
    windowParams(workspaceId, w),
    { tag: 'usage.latency' },
  )
  const ms = (v: number | undefined) => Math.round((v ?? 0) * 1000) / 1000
  return rows.map((r) => ({ phase: r.phase, p50_ms: ms(r.q[0]), p95_ms: ms(r.q[1]), p99_ms: ms(r.q[2]), call_count: num(r.calls), error_count: num(r.errors) }))
}

/** Span types of a phase, as the latency view groups them. */
const PHASE_TYPES: Record<Phase, string[]> = { llm: ['llm'], tool: ['tool'], retrieval: ['retrieval'], embedding: ['embedding'], agent: ['agent', 'chain'], other: ['other', ''] }

/** First read of phase_traces_v1 covers this many rows per wanted trace; each retry widens it 8x. */
const HIT_ROWS_PER_TRACE = 4
const MAX_HIT_ROWS = 50_000

interface PhaseTracesQuery {
  workspaceId: string
  phase: Phase
  window: HourWindow
  metric: 'errors' | 'slow'
  thresholdMs: number
  limit: number
  retentionFloorNs: bigint
}

/**
 * Traces with a span of the phase in the window that errored, or that took at
 * least `thresholdMs`; slowest (or latest, for errors) first. Only traces inside
 * the retention window (`retentionFloorNs`) are candidates.
 *
 * The hits come from phase_traces_v1 (clickhouse/0026_create_phase_traces_v1.sql):
 * its top K rows for the phase and metric in the window, read in key order from
 * the top value down, ranked per trace by their max (the first row of each, as
 * they come sorted). A trace whose max is above the
 * K-th row's value has all its rows above it, so its rank is exact; the answer is
 * when its last trace is above that value, or when fewer than K rows matched.
 * Otherwise K grows, and past MAX_HIT_ROWS the spans answer (phaseTracesFromSpans).
 * The retention check and the traces' own start, end and status come from the
 * traces' rows (trace_list_v1, spans_v1) for the few traces shown.
 */
export async function phaseTraces(store: Store, q: PhaseTracesQuery) {
  const ranked = await rankedByTopRows(store, q)
  const rows = ranked === undefined ? await phaseTracesFromSpans(store, q) : await phaseTraceRows(store, q.workspaceId, ranked)
  const traces = rows.map((r) => ({
    trace_id: r.trace_id,
    duration_ms: Number((BigInt(r.end_ns) - BigInt(r.start_ns)) / 1_000_000n),
    start_time: new Date(Number(BigInt(r.start_ns) / 1_000_000n)).toISOString(),
    status: Number(r.errored) ? 'ERROR' : 'OK',
  }))
  return q.metric === 'slow' ? traces.sort((a, b) => b.duration_ms - a.duration_ms || a.trace_id.localeCompare(b.trace_id)) : traces.sort((a, b) => b.start_time.localeCompare(a.start_time) || a.trace_id.localeCompare(b.trace_id))
}

interface PhaseTraceRow {
  trace_id: string
  start_ns: string
  end_ns: string
  errored: number
}

/** The page's traces ranked from phase_traces_v1's top rows, as phaseTraces says; undefined past MAX_HIT_ROWS. */
async function rankedByTopRows(store: Store, q: PhaseTracesQuery): Promise<string[] | undefined> {
  const params = {
    ws: q.workspaceId, phase: q.phase, metric: q.metric, from: sec(q.window.fromMs), to: sec(q.window.toMs),
    threshold: q.metric === 'slow' ? String(Math.floor(q.thresholdMs * 1e6)) : '0',
  }
  const hits = `SELECT trace_id, toString(value) AS v FROM phase_traces_v1
    WHERE workspace_id = {ws:UUID} AND phase = {phase:String} AND metric = {metric:String} AND value >= {threshold:UInt64}
      AND hour >= toDateTime({from:UInt32}) AND hour < toDateTime({to:UInt32})
    ORDER BY value DESC LIMIT {k:UInt32}`
  for (let k = (q.limit + 1) * HIT_ROWS_PER_TRACE; k <= MAX_HIT_ROWS; k *= 8) {
    const found = await store.query<{ trace_id: string; v: string }>(hits, { ...params, k }, { tag: 'usage.latency.phase-hits' })
    const top = new Map<string, bigint>()
    for (const h of found) if (!top.has(h.trace_id)) top.set(h.trace_id, BigInt(h.v))
    const kept = top.size === 0 ? [] : await store.query<{ trace_id: string }>(
      `SELECT trace_id FROM trace_list_v1 WHERE workspace_id = {ws:UUID} AND trace_id IN {ids:Array(String)}
GROUP BY trace_id HAVING min(trace_start) >= fromUnixTimestamp64Nano({floorNs:Int64}, 'UTC')`,
      { ws: q.workspaceId, ids: [...top.keys()], floorNs: q.retentionFloorNs.toString() },
      { tag: 'usage.latency.phase-hits-retention' },
    )
    const inside = new Set(kept.map((r) => r.trace_id))
    const page = [...top].filter(([t]) => inside.has(t)).map(([trace_id, v]) => ({ trace_id, top: v }))
      .sort((a, b) => (a.top === b.top ? (a.trace_id < b.trace_id ? -1 : 1) : a.top > b.top ? -1 : 1)).slice(0, q.limit)
    const horizon = found.length ? BigInt(found[found.length - 1]!.v) : 0n
    if (found.length < k || (page.length === q.limit && page[q.limit - 1]!.top > horizon)) return page.map((r) => r.trace_id)
  }
  return undefined
}

/** These traces' own start, end and status, from their spans. */
async function phaseTraceRows(store: Store, workspaceId: string, ids: string[]): Promise<PhaseTraceRow[]> {
  if (ids.length === 0) return []
  return store.query<PhaseTraceRow>(
    `SELECT trace_id, toString(toUnixTimestamp64Nano(min(start_time))) AS start_ns, toString(toUnixTimestamp64Nano(max(end_time))) AS end_ns, max(status_code = 'ERROR') AS errored
FROM spans_v1
WHERE workspace_id = {ws:UUID} AND trace_id IN {ids:Array(String)}
GROUP BY trace_id`,
    { ws: workspaceId, ids },
    { tag: 'usage.latency.phase-traces' },
  )
}

/** The drill-down from the phase's spans in the window, for when the hits are too many to rank from their top rows. */
async function phaseTracesFromSpans(store: Store, q: PhaseTracesQuery): Promise<PhaseTraceRow[]> {
  // The spans that make a trace a hit; the trace itself must be inside the retention window too.
  const match = `workspace_id = {ws:UUID} AND start_time >= toDateTime64({from:UInt32}, 9) AND start_time < toDateTime64({to:UInt32}, 9)
      AND start_time >= fromUnixTimestamp64Nano({floorNs:Int64}, 'UTC') AND span_type IN {types:Array(String)} AND first_delivery = 1
      AND ${q.metric === 'errors' ? "status_code = 'ERROR'" : 'duration_ns >= {threshold_ns:UInt64}'}`
  return store.query<PhaseTraceRow>(
    `WITH hits AS (
    SELECT trace_id, max(duration_ns) AS worst, max(start_time) AS latest
    FROM spans_v1
    WHERE ${match} AND trace_id IN (${tracesWithinRetention(`SELECT trace_id FROM spans_v1 WHERE ${match}`)})
    GROUP BY trace_id
    ORDER BY ${q.metric === 'errors' ? 'latest' : 'worst'} DESC, trace_id
    LIMIT {limit:UInt32}
)
SELECT trace_id, toString(toUnixTimestamp64Nano(min(start_time))) AS start_ns, toString(toUnixTimestamp64Nano(max(end_time))) AS end_ns, max(status_code = 'ERROR') AS errored
FROM spans_v1
WHERE workspace_id = {ws:UUID} AND trace_id IN (SELECT trace_id FROM hits)
GROUP BY trace_id`,
    { ws: q.workspaceId, from: sec(q.window.fromMs), to: sec(q.window.toMs), types: PHASE_TYPES[q.phase], threshold_ns: String(Math.floor(q.thresholdMs * 1e6)), limit: q.limit, floorNs: q.retentionFloorNs.toString() },
    { tag: 'usage.latency.phase-traces-spans' },
  )
}
