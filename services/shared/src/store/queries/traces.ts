import { nsDiffToMs, nsToIso } from '../time.js'
import type { Store } from '../types.js'

export interface TraceSpan {
  span_id: string
  parent_span_id: string | null
  name: string
  kind: string
  start_time: string
  duration_ms: number
  status_code: string
  attributes: Record<string, unknown>
  // Beyond the spec:
  end_time: string
  start_time_unix_ns: string
  end_time_unix_ns: string
  status_message: string
  service_name: string
  scope_name: string
  model: string
  input_tokens: number
  output_tokens: number
  cost_usd: number
  resource_attributes: Record<string, unknown>
  events: unknown[]
  links: unknown[]
}

export interface TraceDetail {
  trace_id: string
  project_id: string
  start_time: string
  duration_ms: number
  total_cost_usd: number
  grade: string
  spans: TraceSpan[]
  // Beyond the spec:
  end_time: string
  span_count: number
  /** The spans are the first MAX_DETAIL_SPANS of span_count. */
  spans_truncated: boolean
  input_tokens: number
  output_tokens: number
  score: number
  scorer_version: string
}

export interface UncompletedTrace {
  workspace_id: string
  trace_id: string
  org_id: string
  project_id: string
  last_received_at_ms: number
  span_count: number
  trace_start_ns: string
  trace_end_ns: string
}

export interface ScoreRow {
  trace_id: string
  grade: string
  score: number
  scorer_version: string
}

// Sums of float costs are rounded so the order ClickHouse adds them in cannot show as noise in the 16th digit.
export const roundUsd = (n: unknown) => Math.round(Number(n) * 1e10) / 1e10

/**
 * The newest grade of each of these traces (trace_grades_v1: one row per scoring,
 * newest wins); with `minRank`, only the traces whose newest grade has at least
 * that rank (the trace list's grade_min).
 */
export async function latestScores(store: Store, workspaceId: string, ids: string[], tag: string, minRank?: number): Promise<Map<string, ScoreRow>> {
  const rows = await store.query<ScoreRow>(
    `SELECT trace_id, argMax(grade, scored_at) AS grade, argMax(score, scored_at) AS score, argMax(scorer_version, scored_at) AS scorer_version
FROM trace_grades_v1
WHERE workspace_id = {ws:UUID} AND trace_id IN {ids:Array(String)}
GROUP BY trace_id${minRank === undefined ? '' : '\nHAVING argMax(grade_rank, scored_at) >= {minRank:Int8}'}`,
    { ws: workspaceId, ids, ...(minRank === undefined ? {} : { minRank }) },
    { tag },
  )
  return new Map(rows.map((r) => [r.trace_id, { trace_id: r.trace_id, grade: r.grade, score: Number(r.score), scorer_version: r.scorer_version }]))
}

interface SpanDbRow {
  span_id: string
  parent_span_id: string
  project_id: string
  name: string
  kind: string
  start_ns: string
  end_ns: string
  duration_ns: string
  status_code: string
  status_message: string
  service_name: string
  scope_name: string
  model: string
  input_tokens: number
  output_tokens: number
  cost_usd: number
  attributes: Record<string, string>
  resource_attributes: Record<string, string>
  json_attribute_keys: string[]
  events: string
  links: string
}

/**
 * Spans a trace detail carries, at most: the earliest by start time. span_count and
 * the totals are over all of them, and spans_truncated says when some were left out:
 * a producer can send a million spans under one trace id, and one GET must not load
 * them all into the process (nor send them to a browser).
 */
export const MAX_DETAIL_SPANS = 10_000

/** The trace's spans, newest delivery of each (ReplacingMergeTree collapses duplicates only when parts merge). */
const DEDUPED = (columns: string) => `SELECT ${columns}
FROM spans_v1
WHERE workspace_id = {ws:UUID} AND trace_id = {trace:String}
ORDER BY span_id, received_at DESC
LIMIT 1 BY span_id`

interface TotalsDbRow {
  span_count: number
  start_ns: string
  end_ns: string
  cost_usd: number
  input_tokens: number
  output_tokens: number
  project_id: string
}

/**
 * One trace with its spans, or null when it has none, or started before the
 * retention floor (a trace is inside the window whole or not at all). The totals
 * read only the small columns of every span; the spans, the first MAX_DETAIL_SPANS
 * by start time.
 */
export async function getTrace(
  store: Store,
  q: { workspaceId: string; traceId: string; retentionFloorNs?: bigint | null; maxSpans?: number },
): Promise<TraceDetail | null> {
  const params: Record<string, unknown> = { ws: q.workspaceId, trace: q.traceId, limit: q.maxSpans ?? MAX_DETAIL_SPANS }
  const [totals, rows, scores] = await Promise.all([
    store.query<TotalsDbRow>(
      // The root span names the trace's project; a trace whose root has not arrived takes its earliest span's.
      `SELECT count() AS span_count,
    toString(min(toUnixTimestamp64Nano(start_time))) AS start_ns,
    toString(max(toUnixTimestamp64Nano(end_time))) AS end_ns,
    sum(cost_usd) AS cost_usd, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
    argMin(project_id, (parent_span_id != '', start_time, span_id)) AS project_id
FROM (${DEDUPED('span_id, parent_span_id, project_id, start_time, end_time, cost_usd, input_tokens, output_tokens')})`,
      params,
      { tag: 'traces.detail.totals' },
    ),
    store.query<SpanDbRow>(
      `SELECT * EXCEPT (start_time) FROM (${DEDUPED(`span_id, parent_span_id, project_id, name, kind,
    toString(toUnixTimestamp64Nano(start_time)) AS start_ns,
    toString(toUnixTimestamp64Nano(end_time)) AS end_ns,
    toString(duration_ns) AS duration_ns,
    status_code, status_message, service_name, scope_name, model,
    input_tokens, output_tokens, cost_usd,
    attributes, resource_attributes, json_attribute_keys, events, links, start_time`)})
ORDER BY start_time, span_id
LIMIT {limit:UInt32}`,
      params,
      { tag: 'traces.detail.spans' },
    ),
    latestScores(store, q.workspaceId, [q.traceId], 'traces.detail.score'),
  ])
  const t = totals[0]
  if (!t || Number(t.span_count) === 0) return null
  const [start, end] = [BigInt(t.start_ns), BigInt(t.end_ns)]
  if (q.retentionFloorNs !== undefined && q.retentionFloorNs !== null && start < q.retentionFloorNs) return null
  const score = scores.get(q.traceId)
  return {
    trace_id: q.traceId,
    project_id: t.project_id,
    start_time: nsToIso(start),
    duration_ms: Math.round(nsDiffToMs(start, end)),
    total_cost_usd: roundUsd(t.cost_usd),
    grade: score?.grade ?? '',
    spans: rows.map(spanOut),
    end_time: nsToIso(end),
    span_count: Number(t.span_count),
    spans_truncated: rows.length < Number(t.span_count),
    input_tokens: Number(t.input_tokens),
    output_tokens: Number(t.output_tokens),
    score: score?.score ?? 0,
    scorer_version: score?.scorer_version ?? '',
  }
}

function spanOut(r: SpanDbRow): TraceSpan {
  const jsonKeys = new Set(r.json_attribute_keys)
  return {
    span_id: r.span_id,
    parent_span_id: r.parent_span_id === '' ? null : r.parent_span_id,
    name: r.name,
    kind: r.kind,
    start_time: nsToIso(r.start_ns),
    duration_ms: Number(BigInt(r.duration_ns)) / 1e6,
    status_code: r.status_code,
    attributes: decodeAttributes(r.attributes, jsonKeys, ''),
    end_time: nsToIso(r.end_ns),
    start_time_unix_ns: r.start_ns,
    end_time_unix_ns: r.end_ns,
    status_message: r.status_message,
    service_name: r.service_name,
    scope_name: r.scope_name,
    model: r.model,
    input_tokens: Number(r.input_tokens),
    output_tokens: Number(r.output_tokens),
    cost_usd: Number(r.cost_usd),
    resource_attributes: decodeAttributes(r.resource_attributes, jsonKeys, 'resource.'),
    events: parseJsonArray(r.events),
    links: parseJsonArray(r.links),
  }
}

/** Restores the original type of values stored as JSON text (keys in json_attribute_keys, resource keys prefixed). */
function decodeAttributes(map: Record<string, string>, jsonKeys: Set<string>, prefix: string): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(map)) {
    if (!jsonKeys.has(prefix + k)) {
      out[k] = v
      continue
    }
    try {
      out[k] = JSON.parse(v)
    } catch {
      out[k] = v
    }
  }
  return out
}

function parseJsonArray(text: string): unknown[] {
  if (!text) return []
  try {
    const v: unknown = JSON.parse(text)
    return Array.isArray(v) ? v : []
  } catch {
    return []
  }
}

/**
 * Traces that received spans since sinceMs (and none after quietBeforeMs) but have
 * no completion covering their newest span: no trace_completions_v1 row, or one
 * recorded before later spans arrived. A restarted assembler re-arms these so a
 * crash between storing spans and emitting engine jobs loses no completion.
 * span_count is de-duplicated by span_id.
 */
export async function findUncompletedTraces(
  store: Store,
  q: { sinceMs: number; quietBeforeMs: number; limit: number },
): Promise<UncompletedTrace[]> {
  const rows = await store.query<{
    workspace_id: string
    trace_id: string
    org_id: string
    project_id: string
    last_ms: number
    start_ns: string
    end_ns: string
    span_count: number
  }>(
    `WITH uncompleted AS
(
    SELECT t.workspace_id AS workspace_id, t.trace_id AS trace_id, t.org_id AS org_id, t.project_id AS project_id,
           t.last_ms AS last_ms, t.start_ns AS start_ns, t.end_ns AS end_ns
    FROM
    (
        SELECT workspace_id, trace_id, any(org_id) AS org_id, any(project_id) AS project_id,
               max(last_received_at) AS last,
               toUnixTimestamp64Milli(last) AS last_ms,
               toString(toUnixTimestamp64Nano(min(trace_start))) AS start_ns,
               toString(toUnixTimestamp64Nano(max(trace_end))) AS end_ns
        FROM traces_v1
        GROUP BY workspace_id, trace_id
        HAVING last >= fromUnixTimestamp64Milli({since:Int64}, 'UTC') AND last <= fromUnixTimestamp64Milli({quietBefore:Int64}, 'UTC')
    ) AS t
    LEFT JOIN
    (
        SELECT workspace_id, trace_id, max(last_received_at) AS covered, 1 AS present
        FROM trace_completions_v1
        GROUP BY workspace_id, trace_id
    ) AS c ON c.workspace_id = t.workspace_id AND c.trace_id = t.trace_id
    WHERE c.present = 0 OR t.last > c.covered
    ORDER BY last_ms DESC, workspace_id, trace_id
    LIMIT {limit:UInt32}
)
SELECT u.workspace_id AS workspace_id, u.trace_id AS trace_id, u.org_id AS org_id, u.project_id AS project_id,
       u.last_ms AS last_ms, u.start_ns AS start_ns, u.end_ns AS end_ns, s.span_count AS span_count
FROM uncompleted AS u
LEFT JOIN
(
    SELECT workspace_id, trace_id, uniqExact(span_id) AS span_count
    FROM spans_v1
    WHERE (workspace_id, trace_id) IN (SELECT workspace_id, trace_id FROM uncompleted)
    GROUP BY workspace_id, trace_id
) AS s ON s.workspace_id = u.workspace_id AND s.trace_id = u.trace_id
ORDER BY last_ms DESC, workspace_id, trace_id`,
    { since: String(Math.floor(q.sinceMs)), quietBefore: String(Math.floor(q.quietBeforeMs)), limit: Math.max(0, Math.floor(q.limit)) },
    { tag: 'assembler.recover' },
  )
  return rows.map((r) => ({
    workspace_id: r.workspace_id,
    trace_id: r.trace_id,
    org_id: r.org_id,
    project_id: r.project_id,
    last_received_at_ms: Number(r.last_ms),
    span_count: Number(r.span_count),
    trace_start_ns: r.start_ns,
    trace_end_ns: r.end_ns,
  }))
}
