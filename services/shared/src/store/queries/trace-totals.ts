import type { Store } from '../types.js'

/**
 * traces_v1's sums (span_count, cost, tokens) count each span once. The assembler
 * keeps them so: it marks spans it finds already stored (storedSpans) so the view
 * adds nothing for them, and where a crash may have split an insert from its view
 * insert it recomputes the sums (reconcileTraceTotals).
 */

export interface TraceRef {
  workspace_id: string
  trace_id: string
}

const refParams = (traces: TraceRef[]) => ({
  workspaces: [...new Set(traces.map((t) => t.workspace_id))],
  traces: [...new Set(traces.map((t) => t.trace_id))],
})

/**
 * Which spans of these traces are already stored. Nearly every batch holds only
 * traces never seen before, so this asks traces_v1 first (one narrow row per trace,
 * a twentieth of spans_v1's rows for a typical agent trace) and reads spans_v1's
 * granules only for the traces found there. A trace with stored spans has a
 * traces_v1 row, written by the same insert through traces_v1_mv, except when a
 * crash fell between the two parts of that insert; then the spans are replayed
 * (their offsets were not committed), counted afresh, and the assembler's replay
 * reconciliation makes the sums exact either way.
 *
 * Traces in `replayed` skip that shortcut: after such a crash their traces_v1 part
 * may be lost while a roll-up's landed, and a span counted there must not be
 * counted again (reconcileRollups adds what a roll-up missed).
 */
export async function storedSpans(store: Store, traces: TraceRef[], replayed: TraceRef[] = []): Promise<Array<TraceRef & { span_id: string }>> {
  const direct = new Set(replayed.map((t) => `${t.workspace_id}:${t.trace_id}`))
  const known = [...replayed, ...(await tracesWithTotals(store, traces.filter((t) => !direct.has(`${t.workspace_id}:${t.trace_id}`))))]
  if (known.length === 0) return []
  return store.query(
    `SELECT DISTINCT workspace_id, trace_id, span_id
FROM spans_v1
WHERE workspace_id IN {workspaces:Array(UUID)} AND trace_id IN {traces:Array(String)}`,
    refParams(known),
    { tag: 'assembler.stored-spans' },
  )
}

/** Which of these traces have a traces_v1 row (any sums counted for them so far). */
export async function tracesWithTotals(store: Store, traces: TraceRef[]): Promise<TraceRef[]> {
  if (traces.length === 0) return []
  return store.query(
    `SELECT DISTINCT workspace_id, trace_id
FROM traces_v1
WHERE workspace_id IN {workspaces:Array(UUID)} AND trace_id IN {traces:Array(String)}`,
    refParams(traces),
    { tag: 'assembler.traces-with-totals' },
  )
}

interface Drift {
  workspace_id: string
  trace_id: string
  org_id: string
  project_id: string
  start_ns: string
  end_ns: string
  has_llm: number
  last_ms: number
  expires_at: number
  d_spans: number
  d_cost: number
  d_in: number
  d_out: number
}

/** Cost differences below this are float noise from summation order, not a missing span. */
const COST_EPSILON = 1e-9

/**
 * Tables holding traces_v1's sums, in the order they are corrected: traces_v1, then
 * trace_list_v1 (clickhouse/0025), its copy in small granules that the trace list
 * reads. The copy is fed by a view on traces_v1's inserts, so a crash can land a
 * traces_v1 part without the copy's part; the replay then delivers the spans again
 * as repeats (first_delivery = 0, sums of zero), and traces_v1 looks right while
 * the copy stays short. So the copy is reconciled against the spans as well: after
 * traces_v1's corrections (which the view copies too), it gets its own.
 *
 * Why not read the list's sums from traces_v1 by id instead: traces_v1's granules
 * hold 8,192 rows, and a page's trace ids are spread over the key, so a page of 50
 * reads about 50 granules (400,000 rows at 100M spans) and one of 500 the whole
 * table; the copy's granules hold 256. Its other columns (start, end, project,
 * has_llm, expiry) are min/max/any, which a replay's repeats restore.
 */
const TOTALS_TABLES = ['traces_v1', 'trace_list_v1'] as const

/**
 * Makes the sums of traces_v1 and its copy (TOTALS_TABLES) for these traces equal
 * the sums over their distinct stored spans, by inserting one correction row per
 * trace that is off (its sums are the differences; its other columns are values
 * the trace already has, so min, max and any are unchanged). Safe to repeat: a
 * second run finds nothing to correct. The caller must be the only writer of these
 * traces meanwhile (the assembler owning their partition). Returns the number of
 * traces corrected in either table.
 */
export async function reconcileTraceTotals(store: Store, traces: TraceRef[]): Promise<number> {
  if (traces.length === 0) return 0
  const corrected = new Set<string>()
  for (const table of TOTALS_TABLES) for (const d of await correctTotals(store, traces, table)) corrected.add(`${d.workspace_id}:${d.trace_id}`)
  return corrected.size
}

/** One table's correction rows for these traces, inserted; returns the traces that were off. */
async function correctTotals(store: Store, traces: TraceRef[], table: (typeof TOTALS_TABLES)[number]): Promise<Drift[]> {
  const drifts = await store.query<Drift>(
    `SELECT
    s.workspace_id AS workspace_id, s.trace_id AS trace_id, s.org_id AS org_id, s.project_id AS project_id,
    toString(toUnixTimestamp64Nano(s.trace_start)) AS start_ns, toString(toUnixTimestamp64Nano(s.trace_end)) AS end_ns,
    s.has_llm AS has_llm, toUnixTimestamp64Milli(s.last_received_at) AS last_ms, toUnixTimestamp(s.expires_at) AS expires_at,
    s.spans - t.spans AS d_spans, s.cost - t.cost AS d_cost, s.tokens_in - t.tokens_in AS d_in, s.tokens_out - t.tokens_out AS d_out
FROM
(
    SELECT workspace_id, trace_id, any(org) AS org_id, any(project) AS project_id,
           min(st) AS trace_start, max(et) AS trace_end, max(llm) AS has_llm, max(recv) AS last_received_at, max(exp) AS expires_at,
           toInt64(count()) AS spans, sum(c) AS cost, toInt64(sum(i)) AS tokens_in, toInt64(sum(o)) AS tokens_out
    FROM
    (
        SELECT workspace_id, trace_id, span_id, any(org_id) AS org, any(project_id) AS project,
               min(start_time) AS st, max(end_time) AS et, max(is_llm) AS llm, max(received_at) AS recv, max(expires_at) AS exp,
               any(cost_usd) AS c, any(input_tokens) AS i, any(output_tokens) AS o
        FROM spans_v1
        WHERE workspace_id IN {workspaces:Array(UUID)} AND trace_id IN {traces:Array(String)}
        GROUP BY workspace_id, trace_id, span_id
    )
    GROUP BY workspace_id, trace_id
) AS s
LEFT JOIN
(
    SELECT workspace_id, trace_id, sum(span_count) AS spans, sum(cost_usd_total) AS cost, sum(input_tokens) AS tokens_in, sum(output_tokens) AS tokens_out
    FROM ${table}
    WHERE workspace_id IN {workspaces:Array(UUID)} AND trace_id IN {traces:Array(String)}
    GROUP BY workspace_id, trace_id
) AS t ON t.workspace_id = s.workspace_id AND t.trace_id = s.trace_id
WHERE d_spans != 0 OR abs(d_cost) > {eps:Float64} OR d_in != 0 OR d_out != 0`,
    { ...refParams(traces), eps: COST_EPSILON },
    { tag: `assembler.reconcile-${table}` },
  )
  if (drifts.length === 0) return []
  // The list leaves out traces none of whose trace_starts_v1 rows has the project
  // (queries/trace-list.ts plausibleIds), and this row's any() over the spans may be
  // a project no traces_v1 row of a mixed trace took; first, so a crash between the
  // two inserts leaves at most a row that lets the trace through.
  if (table === 'trace_list_v1')
    await store.insert(
      'trace_starts_v1',
      drifts.map((d) => ({ workspace_id: d.workspace_id, trace_start: d.start_ns, trace_id: d.trace_id, project_id: d.project_id, has_llm: Number(d.has_llm), expires_at: Number(d.expires_at) })),
    )
  await store.insert(
    table,
    drifts.map((d) => ({
      workspace_id: d.workspace_id,
      trace_id: d.trace_id,
      org_id: d.org_id,
      project_id: d.project_id,
      trace_start: d.start_ns,
      trace_end: d.end_ns,
      has_llm: Number(d.has_llm),
      last_received_at: String(d.last_ms),
      expires_at: Number(d.expires_at),
      span_count: Number(d.d_spans),
      cost_usd_total: Number(d.d_cost),
      input_tokens: Number(d.d_in),
      output_tokens: Number(d.d_out),
    })),
  )
  return drifts
}
