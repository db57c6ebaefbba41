import { nsDiffToMs, nsToIso } from '../time.js'
import type { Store } from '../types.js'

/** Keyset position: the last row of a page, in nanoseconds so ties in the same millisecond are exact. */
export interface TraceCursor {
  start_ns: string
  trace_id: string
}

export interface ListTracesQuery {
  workspaceId: string
  pageSize: number
  cursor?: TraceCursor | null
  /** trace_start lower bound, inclusive. */
  startNs?: bigint | null
  /** trace_start upper bound, exclusive. */
  endNs?: bigint | null
  project?: string | null
  includeEmpty: boolean
  /** Only traces whose latest grade has at least this rank (D=0 ... A+=8); unscored traces are excluded. */
  gradeMinRank?: number | null
  /** Traces starting before this are outside the workspace's retention and hidden. */
  retentionFloorNs?: bigint | null
}

/** One row of GET traces, exactly the spec's fields. */
export interface TraceListRow {
  trace_id: string
  ws_uuid_out: string
  project_id_out: string
  trace_start: string
  trace_end: string
  cost_usd_total: number
  input_tokens: number
  output_tokens: number
  grade: string
  score: number
  scorer_version: string
  span_count: number
}

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

interface ScoreRow {
  trace_id: string
  grade: string
  score: number
  scorer_version: string
}

// Sums of float costs are rounded so the order ClickHouse adds them in cannot show as noise in the 16th digit.
const roundUsd = (n: unknown) => Math.round(Number(n) * 1e10) / 1e10

interface PageRow {
  trace_id: string
  start_ns: string
  end_ns: string
  project: string
  spans: number
  cost: number
  tokens_in: number
  tokens_out: number
}

/** First candidate scan covers this many rows per wanted trace; each retry widens it 8x. */
const CANDIDATE_ROWS_PER_TRACE = 4
const MAX_CANDIDATE_ROWS = 50_000
/** The first look-up takes this many of the newest candidate traces per wanted trace; each retry 4x. */
const LOOKUP_TRACES_PER_TRACE = 2

/**
 * The page from one candidate scan (rows newest first; `complete` when the scan
 * found fewer rows than it asked for), or undefined when the scan must widen.
 * Looks up the newest candidates first: the rows before the first row of a trace
 * left out are themselves the newest rows, so a trace newer than that row is among
 * the traces looked up, and the page is exact when its last row is newer. A filter
 * that keeps a fifth of the traces (a project) thus looks up a few hundred traces
 * for a page of 50 instead of every candidate, and page_size=500 about 1,000
 * instead of 2,000: the look-ups, a granule of trace_list_v1 per trace, are most
 * of a page's cost, the scan of trace_starts_v1 reads only narrow rows in key order.
 */
async function pageOfCandidates(
  candidates: Array<{ trace_id: string; start_ns: string }>,
  complete: boolean,
  pageSize: number,
  lookUp: (ids: string[]) => Promise<PageRow[]>,
): Promise<PageRow[] | undefined> {
  const ids = [...new Set(candidates.map((c) => c.trace_id))]
  for (let m = (pageSize + 1) * LOOKUP_TRACES_PER_TRACE; ; m *= 4) {
    const taken = new Set(ids.slice(0, m))
    const found = await lookUp([...taken])
    const all = taken.size === ids.length
    if (all && complete) return found
    const horizon = all ? candidates[candidates.length - 1]! : candidates.find((c) => !taken.has(c.trace_id))!
    if (found.length === pageSize + 1 && BigInt(found[pageSize]!.start_ns) > BigInt(horizon.start_ns)) return found
    if (all) return undefined
  }
}

/**
 * A page of the trace list, newest first (trace_start desc, trace_id desc).
 *
 * Phase 1 picks the page's trace ids. A trace's trace_start is the min over its
 * traces_v1 rows (several until parts merge, or when spans arrive over several
 * inserts), and sorting every trace of a workspace by it costs a full read, so the
 * page is found from candidates instead: the newest K rows of trace_starts_v1 (one
 * per traces_v1 row, keyed by its own start, so read in key order from the newest
 * granule), re-aggregated exactly from trace_list_v1 (all rows of those traces,
 * looked up by id in small granules), then filtered and sorted. Every filter used to
 * pick rows is one that the row holding a qualifying trace's true minimum must pass
 * (lower bounds hold for all its rows, upper bounds and the cursor for its minimum),
 * so every qualifying trace whose start is newer than the K-th row's is a candidate;
 * the page is exact when its last row is newer than that, or when fewer than K rows
 * matched (the newest candidates are looked up first: pageOfCandidates). Otherwise
 * K grows, and past MAX_CANDIDATE_ROWS the full aggregation answers. Filters on the whole trace (project, LLM content, grade) apply to the
 * candidates only, so none of them reads the workspace's other traces.
 * clickhouse/0025_create_trace_list_indexes.sql says why these two tables.
 *
 * The page's sums come with it (trace_list_v1 copies traces_v1's, each span counted
 * once; the assembler reconciles the copy's sums after a crash as it does
 * traces_v1's, trace-totals.ts TOTALS_TABLES says why the list does not read
 * traces_v1 by id instead); a second query adds the latest scores (trace_grades_v1:
 * trace_scores_v1's rows in small granules).
 */
export async function listTraces(store: Store, q: ListTracesQuery): Promise<{ rows: TraceListRow[]; nextCursor: TraceCursor | null }> {
  const pageSize = Math.max(1, Math.floor(q.pageSize))
  const params: Record<string, unknown> = { ws: q.workspaceId, limit: pageSize + 1 }
  // Conditions a row must meet to possibly hold a qualifying trace's minimum.
  const rowWhere = ['workspace_id = {ws:UUID}']
  // The exact conditions, on the re-aggregated trace.
  const having: string[] = []
  const grade = q.gradeMinRank !== undefined && q.gradeMinRank !== null
  // The latest grade of these traces (a parameter of trace ids, or all) is at least the minimum.
  const gradeIn = (ids: string) =>
    `trace_id IN (SELECT trace_id FROM trace_grades_v1 WHERE workspace_id = {ws:UUID}${ids ? ` AND trace_id IN ${ids}` : ''} GROUP BY trace_id HAVING argMax(grade_rank, scored_at) >= {gradeMin:Int8})`
  if (grade) params.gradeMin = q.gradeMinRank
  if (!q.includeEmpty) having.push('max(has_llm) = 1')
  if (q.project !== undefined && q.project !== null) {
    having.push('project = {project:String}')
    params.project = q.project
  }
  const lowerBound = (name: string, ns: bigint) => {
    params[name] = ns.toString()
    rowWhere.push(`trace_start >= fromUnixTimestamp64Nano({${name}:Int64}, 'UTC')`)
    having.push(`ts >= fromUnixTimestamp64Nano({${name}:Int64}, 'UTC')`)
  }
  if (q.startNs !== undefined && q.startNs !== null) lowerBound('startNs', q.startNs)
  if (q.retentionFloorNs !== undefined && q.retentionFloorNs !== null) lowerBound('floorNs', q.retentionFloorNs)
  if (q.endNs !== undefined && q.endNs !== null) {
    params.endNs = q.endNs.toString()
    rowWhere.push(`trace_start < fromUnixTimestamp64Nano({endNs:Int64}, 'UTC')`)
    having.push(`ts < fromUnixTimestamp64Nano({endNs:Int64}, 'UTC')`)
  }
  if (q.cursor) {
    params.cursorNs = q.cursor.start_ns
    params.cursorId = q.cursor.trace_id
    rowWhere.push(`trace_start <= fromUnixTimestamp64Nano({cursorNs:Int64}, 'UTC')`)
    having.push(`(ts, trace_id) < (fromUnixTimestamp64Nano({cursorNs:Int64}, 'UTC'), {cursorId:String})`)
  }
  const pageSql = (candidates: boolean) => {
    const ids = candidates ? '{ids:Array(String)}' : ''
    const where = ['workspace_id = {ws:UUID}', ...(candidates ? [`trace_id IN ${ids}`] : []), ...(grade ? [gradeIn(ids)] : [])]
    return `SELECT
    trace_id,
    min(trace_start) AS ts,
    toString(toUnixTimestamp64Nano(ts)) AS start_ns,
    toString(toUnixTimestamp64Nano(max(trace_end))) AS end_ns,
    any(project_id) AS project,
    sum(span_count) AS spans,
    sum(cost_usd_total) AS cost,
    sum(input_tokens) AS tokens_in,
    sum(output_tokens) AS tokens_out
FROM trace_list_v1
WHERE ${where.join(' AND ')}
GROUP BY trace_id
${having.length ? `HAVING ${having.join(' AND ')}` : ''}
ORDER BY ts DESC, trace_id DESC
LIMIT {limit:UInt32}`
  }

  // The candidate scan is a statement of its own: as a subquery of the page's, it
  // measured several times slower (ClickHouse did not read it in key order there).
  const candidateScan = `SELECT trace_id, toString(toUnixTimestamp64Nano(trace_start)) AS start_ns FROM trace_starts_v1 WHERE ${rowWhere.join(' AND ')} ORDER BY trace_start DESC LIMIT {k:UInt32}`
  let page: PageRow[] | undefined
  // A project or grade filter keeps only a share of the newest traces, so its first scan is wider.
  const firstK = (pageSize + 1) * CANDIDATE_ROWS_PER_TRACE * ((q.project !== undefined && q.project !== null) || grade ? 8 : 1)
  for (let k = firstK; k <= MAX_CANDIDATE_ROWS && !page; k *= 8) {
    const candidates = await store.query<{ trace_id: string; start_ns: string }>(candidateScan, { ...params, k }, { tag: 'traces.list.candidates' })
    // No rows: the full aggregation tells "none" from "none yet".
    if (candidates.length === 0) break
    page = await pageOfCandidates(candidates, candidates.length < k, pageSize, (ids) =>
      store.query<PageRow>(pageSql(true), { ...params, ids }, { tag: 'traces.list.page' }),
    )
  }
  page ??= await store.query<PageRow>(pageSql(false), params, { tag: 'traces.list.page-full' })

  const more = page.length > pageSize
  const shown = more ? page.slice(0, pageSize) : page
  if (shown.length === 0) return { rows: [], nextCursor: null }

  const scores = await latestScores(store, q.workspaceId, shown.map((r) => r.trace_id), 'traces.list.scores')
  const rows = shown.map((r): TraceListRow => {
    const g = scores.get(r.trace_id)
    return {
      trace_id: r.trace_id,
      ws_uuid_out: q.workspaceId,
      project_id_out: r.project,
      trace_start: nsToIso(r.start_ns),
      trace_end: nsToIso(r.end_ns),
      cost_usd_total: roundUsd(r.cost),
      input_tokens: Number(r.tokens_in),
      output_tokens: Number(r.tokens_out),
      grade: g?.grade ?? '',
      score: g?.score ?? 0,
      scorer_version: g?.scorer_version ?? '',
      span_count: Number(r.spans),
    }
  })
  const last = shown[shown.length - 1]!
  return { rows, nextCursor: more ? { start_ns: last.start_ns, trace_id: last.trace_id } : null }
}

async function latestScores(store: Store, workspaceId: string, ids: string[], tag: string): Promise<Map<string, ScoreRow>> {
  const rows = await store.query<ScoreRow>(
    `SELECT trace_id, argMax(grade, scored_at) AS grade, argMax(score, scored_at) AS score, argMax(scorer_version, scored_at) AS scorer_version
FROM trace_grades_v1
WHERE workspace_id = {ws:UUID} AND trace_id IN {ids:Array(String)}
GROUP BY trace_id`,
    { ws: workspaceId, ids },
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
 * One trace with its spans, or null when it has none, or started before the
 * retention floor (a trace is inside the window whole or not at all).
 * Spans are de-duplicated by span_id keeping the newest delivery, since
 * ReplacingMergeTree collapses duplicates only when parts merge.
 */
export async function getTrace(
  store: Store,
  q: { workspaceId: string; traceId: string; retentionFloorNs?: bigint | null },
): Promise<TraceDetail | null> {
  const params: Record<string, unknown> = { ws: q.workspaceId, trace: q.traceId }
  const [rows, scores] = await Promise.all([
    store.query<SpanDbRow>(
      `SELECT
    span_id, parent_span_id, project_id, name, kind,
    toString(toUnixTimestamp64Nano(start_time)) AS start_ns,
    toString(toUnixTimestamp64Nano(end_time)) AS end_ns,
    toString(duration_ns) AS duration_ns,
    status_code, status_message, service_name, scope_name, model,
    input_tokens, output_tokens, cost_usd,
    attributes, resource_attributes, json_attribute_keys, events, links
FROM spans_v1
WHERE workspace_id = {ws:UUID} AND trace_id = {trace:String}
ORDER BY span_id, received_at DESC
LIMIT 1 BY span_id`,
      params,
      { tag: 'traces.detail.spans' },
    ),
    latestScores(store, q.workspaceId, [q.traceId], 'traces.detail.score'),
  ])
  if (rows.length === 0) return null

  const byStart = rows
    .map((r) => ({ r, start: BigInt(r.start_ns), end: BigInt(r.end_ns) }))
    .sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : a.r.span_id < b.r.span_id ? -1 : 1))
  let start = byStart[0]!.start
  if (q.retentionFloorNs !== undefined && q.retentionFloorNs !== null && start < q.retentionFloorNs) return null
  let end = byStart[0]!.end
  let cost = 0
  let input = 0
  let output = 0
  for (const { r, start: s, end: e } of byStart) {
    if (s < start) start = s
    if (e > end) end = e
    cost += Number(r.cost_usd)
    input += Number(r.input_tokens)
    output += Number(r.output_tokens)
  }
  // The root span names the trace's project; a trace whose root has not arrived takes its earliest span's.
  const root = byStart.find((x) => x.r.parent_span_id === '') ?? byStart[0]!
  const score = scores.get(q.traceId)
  return {
    trace_id: q.traceId,
    project_id: root.r.project_id,
    start_time: nsToIso(start),
    duration_ms: Math.round(nsDiffToMs(start, end)),
    total_cost_usd: roundUsd(cost),
    grade: score?.grade ?? '',
    spans: byStart.map(({ r }) => spanOut(r)),
    end_time: nsToIso(end),
    span_count: byStart.length,
    input_tokens: input,
    output_tokens: output,
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
