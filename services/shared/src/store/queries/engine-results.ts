/**
 * The engines' reads and writes (clickhouse/0013_create_engine_results_v1.sql,
 * 0004_create_trace_scores_v1.sql and 0024_create_engine_sampling.sql): the spans of
 * finished traces for the workers, the results the sink lands, the traces the
 * workers skipped, and the latest result (or skip) per engine for the API.
 */
import type { Store } from '../types.js'
import { tracesWithinRetention } from './retention.js'

/** A spans_v1 row as the engines read it (times as integer nanosecond strings). */
export interface EngineInputSpan {
  trace_id: string
  span_id: string
  parent_span_id: string
  name: string
  kind: string
  start_time: string
  end_time: string
  status_code: string
  status_message: string
  model: string
  input_tokens: number
  output_tokens: number
  cost_usd: number
  attributes: Record<string, string>
  /** Unix seconds: the trace's own expiry, which its results inherit. */
  expires_at_s: number
}

/** How much of a trace is stored: span rows (copies of a span count each: a bound, not the span count) and their attributes' bytes. */
export interface StoredSize {
  spans: number
  bytes: number
}

/** The stored size of each of the given traces, counted in ClickHouse: nothing but two numbers per trace leaves it. */
export async function storedTraceSizes(store: Store, workspaceId: string, traceIds: string[]): Promise<Map<string, StoredSize>> {
  if (traceIds.length === 0) return new Map()
  const rows = await store.query<{ trace_id: string; spans: number; bytes: number }>(
    `SELECT trace_id, count() AS spans, sum(byteSize(attributes)) AS bytes FROM spans_v1
WHERE workspace_id = {ws:UUID} AND trace_id IN {ids:Array(String)} AND expires_at > now()
GROUP BY trace_id`,
    { ws: workspaceId, ids: traceIds },
    { tag: 'engines.trace-sizes' },
  )
  return new Map(rows.map((r) => [r.trace_id, { spans: Number(r.spans), bytes: Number(r.bytes) }]))
}

/** All spans of the given traces of one workspace, newest copy of each span. */
export async function spansOfTraces(store: Store, workspaceId: string, traceIds: string[]): Promise<EngineInputSpan[]> {
  if (traceIds.length === 0) return []
  return store.query<EngineInputSpan>(
    `SELECT trace_id, span_id, parent_span_id, name, kind,
    toString(toUnixTimestamp64Nano(start_time)) AS start_time,
    toString(toUnixTimestamp64Nano(end_time)) AS end_time,
    status_code, status_message, model, input_tokens, output_tokens, cost_usd, attributes,
    toUnixTimestamp(expires_at) AS expires_at_s
FROM spans_v1
WHERE workspace_id = {ws:UUID} AND trace_id IN {ids:Array(String)} AND expires_at > now()
ORDER BY trace_id, span_id, received_at DESC
LIMIT 1 BY trace_id, span_id`,
    { ws: workspaceId, ids: traceIds },
    { tag: 'engines.trace-spans' },
  )
}

export interface EngineResultRow {
  workspace_id: string
  trace_id: string
  engine: string
  engine_version: string
  mode: string
  payload: string
  llm_input_tokens: number
  llm_output_tokens: number
  /** Epoch ms. */
  computed_at: string
  /** Unix seconds. */
  expires_at: number
  [column: string]: unknown
}

export async function insertEngineResults(store: Store, rows: EngineResultRow[]): Promise<void> {
  if (rows.length) await store.insert('engine_results_v1', rows, { tag: 'engines.results' })
}

export interface TraceScoreRow {
  workspace_id: string
  trace_id: string
  grade: string
  grade_rank: number
  score: number
  scorer_version: string
  scored_at: string
  expires_at: number
  [column: string]: unknown
}

export async function insertTraceScores(store: Store, rows: TraceScoreRow[]): Promise<void> {
  if (rows.length) await store.insert('trace_scores_v1', rows, { tag: 'engines.trace-scores' })
}

export interface LatestEngineResult {
  engine: string
  engine_version: string
  mode: string
  payload: unknown
  computed_at_ms: number
}

/** The newest result of each named engine for one trace (engines with none are absent). */
export async function latestEngineResults(store: Store, workspaceId: string, traceId: string, engines: string[]): Promise<Map<string, LatestEngineResult>> {
  const rows = await store.query<{ engine: string; engine_version: string; mode: string; payload: string; computed_at_ms: number }>(
    `SELECT engine,
    argMax(engine_version, computed_at) AS engine_version,
    argMax(mode, computed_at) AS mode,
    argMax(payload, computed_at) AS payload,
    toUnixTimestamp64Milli(max(computed_at)) AS computed_at_ms
FROM engine_results_v1
WHERE workspace_id = {ws:UUID} AND trace_id = {trace:String} AND engine IN {engines:Array(String)} AND expires_at > now()
GROUP BY engine`,
    { ws: workspaceId, trace: traceId, engines },
    { tag: 'engines.latest-results' },
  )
  return new Map(rows.map((r) => [r.engine, { engine: r.engine, engine_version: r.engine_version, mode: r.mode, payload: JSON.parse(r.payload), computed_at_ms: Number(r.computed_at_ms) }]))
}

/** A trace an engine skipped (clickhouse/0024_create_engine_sampling.sql). */
export interface EngineSkipRow {
  workspace_id: string
  trace_id: string
  engine: string
  reason: string
  sample_rate: number
  /** Epoch ms. */
  skipped_at: string
  /** Unix seconds. */
  expires_at: number
  [column: string]: unknown
}

export async function recordSkippedTraces(store: Store, rows: EngineSkipRow[]): Promise<void> {
  if (rows.length) await store.insert('engine_skips_v1', rows, { tag: 'engines.skips' })
}

export interface EngineSkip {
  engine: string
  reason: string
  sample_rate: number
  skipped_at_ms: number
}

/** The newest skip of each named engine for one trace (engines that never skipped it are absent). */
export async function latestEngineSkips(store: Store, workspaceId: string, traceId: string, engines: string[]): Promise<Map<string, EngineSkip>> {
  const rows = await store.query<{ engine: string; reason: string; sample_rate: number; skipped_at_ms: number }>(
    `SELECT engine, argMax(reason, skipped_at) AS reason, argMax(sample_rate, skipped_at) AS sample_rate, toUnixTimestamp64Milli(max(skipped_at)) AS skipped_at_ms
FROM engine_skips_v1
WHERE workspace_id = {ws:UUID} AND trace_id = {trace:String} AND engine IN {engines:Array(String)} AND expires_at > now()
GROUP BY engine`,
    { ws: workspaceId, trace: traceId, engines },
    { tag: 'engines.latest-skips' },
  )
  return new Map(rows.map((r) => [r.engine, { engine: r.engine, reason: r.reason, sample_rate: Number(r.sample_rate), skipped_at_ms: Number(r.skipped_at_ms) }]))
}

/** Whether a trace exists in a workspace and started after the retention floor. */
export async function traceExists(store: Store, workspaceId: string, traceId: string, retentionFloorNs: bigint): Promise<boolean> {
  const rows = await store.query<{ n: number }>(
    `SELECT count() AS n FROM (${tracesWithinRetention('{trace:String}')})`,
    { ws: workspaceId, trace: traceId, floorNs: retentionFloorNs.toString() },
    { tag: 'engines.trace-exists' },
  )
  return Number(rows[0]?.n ?? 0) > 0
}
