/**
 * GET traces: the trace list, ids first. Candidates come from trace_starts_v1 (each
 * trace's rows keyed by its own start, read newest first), the page's figures from
 * trace_list_v1 and its grades from trace_grades_v1 (clickhouse/0025); see
 * docs/architecture.md, "The trace list".
 */
import { nsToIso } from '../time.js'
import type { Store } from '../types.js'
import { latestScores, roundUsd, type ScoreRow } from './traces.js'

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
/** The same for candidates screened on their rows (plausibleIds): nearly all of them pass, bar traces with older rows. */
const LOOKUP_PLAUSIBLE_PER_TRACE = 1.125

/** One trace_starts_v1 row: part of a trace, with the project and LLM content of the insert that wrote it. */
interface Candidate {
  trace_id: string
  start_ns: string
  project_id: string
  has_llm: number
}

/**
 * The candidates' trace ids newest first, without the traces that cannot pass the
 * project or LLM filter: none of their rows has the project (the list's project
 * is any() over a trace's rows) or LLM content. Every row of a trace newer than the
 * oldest candidate row is itself a candidate when the scan has no upper bound (no
 * end time, no cursor), so such a trace is left out only on all its rows; one with
 * an older row starts at or before the horizon, where the page is not taken from
 * the look-ups anyway (pageOfCandidates). `screened` then; with an upper bound, a
 * trace's newer rows are not scanned, and every candidate may pass.
 */
function plausibleIds(candidates: Candidate[], f: ListFilters): { ids: string[]; screened: boolean } {
  const ids = [...new Set(candidates.map((c) => c.trace_id))]
  if (f.bounded) return { ids, screened: false }
  const plausible = new Set(candidates.filter((c) => (f.project === null || c.project_id === f.project) && (!f.llmOnly || Number(c.has_llm) === 1)).map((c) => c.trace_id))
  return { ids: ids.filter((id) => plausible.has(id)), screened: true }
}

/**
 * The ids of these traces that pass a filter on the whole trace which the candidate
 * rows do not hold (the minimum grade), in any order.
 */
type Screen = (ids: string[]) => Promise<Set<string>>

/** Before a grade screen has seen any candidate, it is taken to keep this share of them. */
const SCREEN_FIRST_PASS_RATE = 0.5

/**
 * The page from one candidate scan (rows newest first; `complete` when the scan
 * found fewer rows than it asked for), or undefined when the scan must widen.
 * Looks up the newest plausible candidates first (plausibleIds): the rows before
 * the first row of a plausible trace left out are rows of traces looked up or of
 * traces that cannot pass, so a trace that passes and is newer than that row is
 * among the traces looked up, and the page is exact when its last row is newer.
 * A page of 50 thus looks up about 60 traces, and page_size=500 about 560, when
 * the candidates are screened (else twice the page, and a project filter five
 * times as many, as it keeps a fifth of the traces): the look-ups,
 * a granule of trace_list_v1 per trace, are most of a page's cost, the scan of
 * trace_starts_v1 reads only narrow rows in key order.
 *
 * With a `screen` (grade_min), the plausible ids are screened newest first, only as
 * many as it takes to find the traces to look up, and the ones that fail are left
 * out like the implausible ones: a trace whose grade fails cannot be on the page.
 * The look-ups are then of traces that pass, not of every candidate with the grade
 * applied to them (about two and a half times as many at a grade that keeps 40%).
 */
async function pageOfCandidates(
  candidates: Candidate[],
  complete: boolean,
  f: ListFilters,
  pageSize: number,
  lookUp: (ids: string[]) => Promise<PageRow[]>,
  screen?: Screen,
): Promise<PageRow[] | undefined> {
  const { ids, screened } = plausibleIds(candidates, f)
  const perTrace = screened ? LOOKUP_PLAUSIBLE_PER_TRACE : LOOKUP_TRACES_PER_TRACE
  // Ids known to pass, newest first, and how far into `ids` the screen has read.
  const passing: string[] = screen ? [] : ids
  let screenedTo = screen ? 0 : ids.length
  const failed = new Set<string>()
  const take = async (m: number): Promise<string[]> => {
    while (screen && passing.length < m && screenedTo < ids.length) {
      const rate = screenedTo ? Math.max(passing.length / screenedTo, 0.05) : SCREEN_FIRST_PASS_RATE
      const chunk = ids.slice(screenedTo, screenedTo + Math.ceil(((m - passing.length) / rate) * 1.25))
      const kept = await screen(chunk)
      for (const id of chunk) {
        if (kept.has(id)) passing.push(id)
        else failed.add(id)
      }
      screenedTo += chunk.length
    }
    return passing.slice(0, m)
  }
  const left = new Set(ids)
  for (let m = Math.ceil((pageSize + 1) * perTrace); ; m *= 4) {
    const taken = new Set(await take(m))
    const all = screenedTo === ids.length && taken.size === passing.length
    const found = taken.size ? await lookUp([...taken]) : []
    if (all && complete) return found
    const horizon = all ? candidates[candidates.length - 1]! : candidates.find((c) => left.has(c.trace_id) && !taken.has(c.trace_id) && !failed.has(c.trace_id))!
    if (found.length === pageSize + 1 && BigInt(found[pageSize]!.start_ns) > BigInt(horizon.start_ns)) return found
    if (all) return undefined
  }
}

interface ListFilters {
  params: Record<string, unknown>
  /** Conditions a row must meet to possibly hold a qualifying trace's minimum. */
  rowWhere: string[]
  /** The exact conditions, on the re-aggregated trace. */
  having: string[]
  /** Filters on the whole trace: a minimum grade, a project, LLM content. */
  grade: boolean
  project: string | null
  llmOnly: boolean
  /** An upper bound on the rows scanned (an end time or a cursor). */
  bounded: boolean
}

/** The query's filters as conditions on trace_starts_v1's rows and on the re-aggregated traces. */
function listFilters(q: ListTracesQuery, pageSize: number): ListFilters {
  const params: Record<string, unknown> = { ws: q.workspaceId, limit: pageSize + 1 }
  const rowWhere = ['workspace_id = {ws:UUID}']
  const having: string[] = []
  const grade = q.gradeMinRank !== undefined && q.gradeMinRank !== null
  const project = q.project ?? null
  if (grade) params.gradeMin = q.gradeMinRank
  if (!q.includeEmpty) having.push('max(has_llm) = 1')
  if (project !== null) {
    having.push('project = {project:String}')
    params.project = project
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
  const bounded = (q.endNs !== undefined && q.endNs !== null) || !!q.cursor
  return { params, rowWhere, having, grade, project, llmOnly: !q.includeEmpty, bounded }
}

/**
 * The page's query over trace_list_v1: of the candidates' ids (a parameter, already
 * screened on the grade), or of the whole workspace.
 */
function pageSql(f: ListFilters, candidates: boolean): string {
  // The latest grade of the workspace's traces is at least the minimum.
  const gradeIn = 'trace_id IN (SELECT trace_id FROM trace_grades_v1 WHERE workspace_id = {ws:UUID} GROUP BY trace_id HAVING argMax(grade_rank, scored_at) >= {gradeMin:Int8})'
  const where = ['workspace_id = {ws:UUID}', ...(candidates ? ['trace_id IN {ids:Array(String)}'] : f.grade ? [gradeIn] : [])]
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
${f.having.length ? `HAVING ${f.having.join(' AND ')}` : ''}
ORDER BY ts DESC, trace_id DESC
LIMIT {limit:UInt32}`
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
 * K grows, and past MAX_CANDIDATE_ROWS the full aggregation answers. Filters on
 * the whole trace (project, LLM content, grade) apply to the candidates only, so
 * none of them reads the workspace's other traces.
 * clickhouse/0025_create_trace_list_indexes.sql says why these two tables.
 *
 * The page's sums come with it (trace_list_v1 copies traces_v1's, each span counted
 * once; the assembler reconciles the copy's sums after a crash as it does
 * traces_v1's, trace-totals.ts TOTALS_TABLES says why the list does not read
 * traces_v1 by id instead); the latest scores (trace_grades_v1: trace_scores_v1's
 * rows in small granules) come from grade_min's screen, else from a second query.
 */
export async function listTraces(store: Store, q: ListTracesQuery): Promise<{ rows: TraceListRow[]; nextCursor: TraceCursor | null }> {
  const pageSize = Math.max(1, Math.floor(q.pageSize))
  const filters = listFilters(q, pageSize)
  const { params, rowWhere } = filters

  // The candidate scan is a statement of its own: as a subquery of the page's, it
  // measured several times slower (ClickHouse did not read it in key order there).
  const candidateScan = `SELECT trace_id, toString(toUnixTimestamp64Nano(trace_start)) AS start_ns, project_id, has_llm FROM trace_starts_v1 WHERE ${rowWhere.join(' AND ')} ORDER BY trace_start DESC LIMIT {k:UInt32}`
  let page: PageRow[] | undefined
  // A project or grade filter keeps only a share of the newest traces, so its first scan is wider.
  const firstK = (pageSize + 1) * CANDIDATE_ROWS_PER_TRACE * (filters.project !== null || filters.grade ? 8 : 1)
  // A grade_min screen's look-ups carry the grades the page shows.
  const graded = new Map<string, ScoreRow>()
  const screen: Screen | undefined = filters.grade
    ? async (ids) => {
        const kept = await latestScores(store, q.workspaceId, ids, 'traces.list.grades', q.gradeMinRank!)
        for (const [id, s] of kept) graded.set(id, s)
        return new Set(kept.keys())
      }
    : undefined
  for (let k = firstK; k <= MAX_CANDIDATE_ROWS && !page; k *= 8) {
    const candidates = await store.query<Candidate>(candidateScan, { ...params, k }, { tag: 'traces.list.candidates' })
    // No rows: the full aggregation tells "none" from "none yet".
    if (candidates.length === 0) break
    page = await pageOfCandidates(
      candidates,
      candidates.length < k,
      filters,
      pageSize,
      (ids) => store.query<PageRow>(pageSql(filters, true), { ...params, ids }, { tag: 'traces.list.page' }),
      screen,
    )
  }
  page ??= await store.query<PageRow>(pageSql(filters, false), params, { tag: 'traces.list.page-full' })

  const more = page.length > pageSize
  const shown = more ? page.slice(0, pageSize) : page
  if (shown.length === 0) return { rows: [], nextCursor: null }

  const unknown = shown.map((r) => r.trace_id).filter((id) => !graded.has(id))
  const scores = unknown.length ? new Map([...graded, ...(await latestScores(store, q.workspaceId, unknown, 'traces.list.scores'))]) : graded
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

