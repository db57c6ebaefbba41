/**
 * What retention removes, and the filter every read of trace data applies
 * (docs/architecture.md, "Retention").
 *
 * A trace is inside a workspace's window while it started (its earliest span) at
 * or after the window's floor. Outside it, all of it goes: its spans, its traces_v1
 * rows, and every row derived from it (PER_TRACE_TABLES, TRACE_INDEX_TABLES). Dead letters go by when
 * they were received. Roll-ups (usage, latency, drift, the sources counted before
 * trace_sources_v1, engine runs and job counts) hold neither text nor trace ids and outlive the
 * window by design.
 */
import { mutationTarget } from '../cluster.js'
import type { Store } from '../types.js'

/**
 * Tables whose rows each belong to one trace, keyed (workspace_id, trace_id), with
 * the column that says when a row was written. A table of this kind that is not
 * listed here is a leak: retention.test.ts checks the list against the schema.
 */
export const PER_TRACE_TABLES = {
  trace_scores_v1: 'scored_at',
  // trace_scores_v1's rows again, in small granules (clickhouse/0025).
  trace_grades_v1: 'scored_at',
  engine_results_v1: 'computed_at',
  alignment_flags_v1: 'computed_at',
  trace_completions_v1: 'completed_at',
  trace_sources_v1: 'analysed_at',
  engine_skips_v1: 'skipped_at',
} as const
export type PerTraceTable = keyof typeof PER_TRACE_TABLES

/**
 * Tables of traces_v1's rows in another order or granule, or of a trace's spans'
 * extremes, for the read side (clickhouse/0025 and 0026): they go with traces_v1's rows, by the same
 * condition, just before them. Not counted apart in the sweep's figures.
 */
export const TRACE_INDEX_TABLES = ['trace_starts_v1', 'trace_list_v1', 'phase_traces_v1'] as const

const CUTOFF = '{cutoff:DateTime64(3)}'
/** The workspace's traces that started before the cutoff: one of their traces_v1 rows did (a trace's start is the min over its rows). */
const EXPIRED_TRACES = `SELECT trace_id FROM traces_v1 WHERE workspace_id = {ws:UUID} AND trace_start < ${CUTOFF}`

/**
 * Rows of a per-trace table (or spans_v1) outside the window: of a trace that
 * started before the cutoff, or written before it for a trace traces_v1 no longer
 * knows (what sweeps that deleted only spans and trace rows left behind).
 */
function expiredRowsOf(table: PerTraceTable | 'spans_v1', writtenAt: string): string {
  return `(trace_id IN (${EXPIRED_TRACES}) OR (${writtenAt} < ${CUTOFF} AND trace_id NOT IN (
    SELECT trace_id FROM traces_v1 WHERE workspace_id = {ws:UUID} AND trace_id IN (SELECT trace_id FROM ${table} WHERE workspace_id = {ws:UUID} AND ${writtenAt} < ${CUTOFF}))))`
}
/** Spans outside the window: started before the cutoff, or of a trace that did (a trace goes whole). */
const EXPIRED_SPANS = `workspace_id = {ws:UUID} AND (start_time < ${CUTOFF} OR ${expiredRowsOf('spans_v1', 'received_at')})`
const EXPIRED_DEAD_LETTERS = `workspace_id = {ws:String} AND received_at < ${CUTOFF}`

export interface ExpiryPreview {
  spans: number
  traces: number
  /** Start of the oldest span that would go, ns since the epoch; null when nothing would. */
  oldestNs: string | null
}

/** What a cutoff would delete in a workspace: distinct spans, and the traces they belong to. */
export async function previewExpiry(store: Store, workspaceId: string, cutoffMs: number): Promise<ExpiryPreview> {
  const [row] = await store.query<{ spans: number; traces: number; oldest: string }>(
    `SELECT uniqExact(trace_id, span_id) AS spans, uniqExact(trace_id) AS traces, toString(toUnixTimestamp64Nano(min(start_time))) AS oldest
FROM spans_v1
WHERE ${EXPIRED_SPANS}`,
    { ws: workspaceId, cutoff: String(cutoffMs) },
    { tag: 'retention.preview' },
  )
  const spans = Number(row?.spans ?? 0)
  return { spans, traces: Number(row?.traces ?? 0), oldestNs: spans > 0 ? row!.oldest : null }
}

/** Rows a cutoff would delete, per table (traces_v1 in traces, the others in rows). */
export type ExpiryCounts = Record<'spans_v1' | 'traces_v1' | PerTraceTable | 'dead_letters_v1', number>

export async function countExpired(store: Store, workspaceId: string, cutoffMs: number): Promise<ExpiryCounts> {
  const derived = Object.entries(PER_TRACE_TABLES).map(([table, at]) => `(SELECT count() FROM ${table} WHERE workspace_id = {ws:UUID} AND ${expiredRowsOf(table as PerTraceTable, at)}) AS ${table}`)
  const [row] = await store.query<Record<keyof ExpiryCounts, number | string>>(
    `SELECT (SELECT count() FROM spans_v1 WHERE ${EXPIRED_SPANS}) AS spans_v1,
    (SELECT uniqExact(trace_id) FROM (${EXPIRED_TRACES})) AS traces_v1,
    ${derived.join(',\n    ')},
    (SELECT count() FROM dead_letters_v1 WHERE ${EXPIRED_DEAD_LETTERS}) AS dead_letters_v1`,
    { ws: workspaceId, cutoff: String(cutoffMs) },
    { tag: 'retention.count' },
  )
  return Object.fromEntries(Object.entries(row ?? {}).map(([k, v]) => [k, Number(v)])) as ExpiryCounts
}

/**
 * Deletes what lies outside a workspace's window (lightweight DELETE: rows vanish
 * from reads at once, parts are rewritten by merges). Row TTL removes rows past
 * their own expires_at anyway; this catches up what was written under a longer
 * window than today's. traces_v1 goes last, because it says which traces are
 * expired: a sweep cut short leaves that for the next one to finish.
 */
export async function deleteExpired(store: Store, workspaceId: string, cutoffMs: number): Promise<void> {
  const params = { ws: workspaceId, cutoff: String(cutoffMs) }
  for (const [table, at] of Object.entries(PER_TRACE_TABLES))
    await store.command(`DELETE FROM ${mutationTarget(table, store.cluster)} WHERE workspace_id = {ws:UUID} AND ${expiredRowsOf(table as PerTraceTable, at)}`, params, { tag: `retention.delete-${table}` })
  await store.command(`DELETE FROM ${mutationTarget('spans_v1', store.cluster)} WHERE ${EXPIRED_SPANS}`, params, { tag: 'retention.delete-spans' })
  for (const table of [...TRACE_INDEX_TABLES, 'traces_v1'])
    await store.command(`DELETE FROM ${mutationTarget(table, store.cluster)} WHERE workspace_id = {ws:UUID} AND trace_id IN (${EXPIRED_TRACES})`, params, { tag: `retention.delete-${table}` })
  await store.command(`DELETE FROM ${mutationTarget('dead_letters_v1', store.cluster)} WHERE ${EXPIRED_DEAD_LETTERS}`, params, { tag: 'retention.delete-dead-letters' })
}

/**
 * The trace ids among `candidates` (a subquery or list of trace ids) inside the
 * window: known to traces_v1 and started at or after the floor. Every read of
 * per-trace data filters through this, so a trace outside a shortened window
 * disappears from every endpoint at once (the sweep deletes it within the hour).
 * Binds {ws:UUID} and {floorNs:Int64} (retentionFloorNs, domain/retention.ts).
 */
export const tracesWithinRetention = (candidates: string) =>
  `SELECT trace_id FROM traces_v1 WHERE workspace_id = {ws:UUID} AND trace_id IN (${candidates})
  GROUP BY trace_id HAVING min(trace_start) >= fromUnixTimestamp64Nano({floorNs:Int64}, 'UTC')`
