/**
 * The figures behind GET .../health/ingestion, and the write paths the engine
 * workers report through (engine_runs_v1, engine_jobs_hourly_v1).
 */
import type { Store } from '../types.js'

export interface EngineRun {
  workspace_id: string
  engine: string
  finished_at_ms: number
  ok: boolean
}

export async function recordEngineRuns(store: Store, runs: EngineRun[]): Promise<void> {
  if (runs.length === 0) return
  await store.insert(
    'engine_runs_v1',
    runs.map((r) => ({ workspace_id: r.workspace_id, engine: r.engine, last_run_at: String(r.finished_at_ms), last_ok_at: r.ok ? String(r.finished_at_ms) : 0, runs: 1, failures: r.ok ? 0 : 1 })),
  )
}

/** One batch's jobs of one workspace by outcome (engine_jobs_hourly_v1). */
export interface EngineJobCounts {
  workspace_id: string
  engine: string
  at_ms: number
  analysed: number
  skipped: number
  failed: number
}

export async function recordEngineJobCounts(store: Store, counts: EngineJobCounts[]): Promise<void> {
  const rows = counts.filter((c) => c.analysed + c.skipped + c.failed > 0)
  if (rows.length === 0) return
  await store.insert(
    'engine_jobs_hourly_v1',
    rows.map((c) => ({ workspace_id: c.workspace_id, engine: c.engine, hour: Math.floor(c.at_ms / 3_600_000) * 3600, analysed: c.analysed, skipped: c.skipped, failed: c.failed })),
    { tag: 'engines.job-counts' },
  )
}

export interface IngestionFigures {
  lastSpanAtMs: number | null
  spansLastHour: number
  deadLettersLastHour: number
  /** Completions (engine jobs emitted) older than the stall threshold: their newest emission time. */
  oldestPendingJobsAtMs: number | null
  engines: Map<string, { lastRunAtMs: number | null; lastOkAtMs: number | null }>
  /** Jobs per engine since the start of the previous hour (as spansLastHour). */
  engineJobs: Map<string, { analysed: number; skipped: number }>
}

/** `stallBeforeMs`: jobs emitted before this and not followed by a run count against an engine. */
export async function ingestionFigures(store: Store, workspaceId: string, nowMs: number, stallBeforeMs: number): Promise<IngestionFigures> {
  const hourAgo = String(nowMs - 3_600_000)
  const [last, spans, dead, jobs, runs, jobCounts] = await Promise.all([
    store.query<{ ms: number }>(`SELECT toUnixTimestamp64Milli(max(last_received_at)) AS ms FROM traces_v1 WHERE workspace_id = {ws:UUID}`, { ws: workspaceId }, { tag: 'health.last-span' }),
    store.query<{ n: number }>(
      `SELECT sum(spans) AS n FROM usage_hourly_v1 WHERE workspace_id = {ws:UUID} AND hour >= toStartOfHour(fromUnixTimestamp64Milli({from:Int64}))`,
      { ws: workspaceId, from: hourAgo },
      { tag: 'health.spans' },
    ),
    store.query<{ n: number }>(
      // One record dead-lettered twice (a crash before its batch's commit) counts once: by where it was read when known, else by its place on the .dlq.
      `SELECT uniqExact(if(original_topic = '', tuple(toString(dlq_topic), toInt64(dlq_partition), toInt64(dlq_offset)), tuple(toString(original_topic), toInt64(original_partition), original_offset))) AS n
FROM dead_letters_v1 WHERE workspace_id = {ws:String} AND received_at >= fromUnixTimestamp64Milli({from:Int64})`,
      { ws: workspaceId, from: hourAgo },
      { tag: 'health.dead-letters' },
    ),
    store.query<{ ms: number }>(
      `SELECT toUnixTimestamp64Milli(max(completed_at)) AS ms FROM trace_completions_v1 WHERE workspace_id = {ws:UUID} AND completed_at < fromUnixTimestamp64Milli({before:Int64})`,
      { ws: workspaceId, before: String(stallBeforeMs) },
      { tag: 'health.pending-jobs' },
    ),
    store.query<{ engine: string; run_ms: number; ok_ms: number }>(
      `SELECT engine, toUnixTimestamp64Milli(max(last_run_at)) AS run_ms, toUnixTimestamp64Milli(max(last_ok_at)) AS ok_ms FROM engine_runs_v1 WHERE workspace_id = {ws:UUID} GROUP BY engine`,
      { ws: workspaceId },
      { tag: 'health.engine-runs' },
    ),
    store.query<{ engine: string; analysed: number; skipped: number }>(
      `SELECT engine, sum(analysed) AS analysed, sum(skipped) AS skipped FROM engine_jobs_hourly_v1
WHERE workspace_id = {ws:UUID} AND hour >= toStartOfHour(fromUnixTimestamp64Milli({from:Int64})) GROUP BY engine`,
      { ws: workspaceId, from: hourAgo },
      { tag: 'health.engine-jobs' },
    ),
  ])
  const ms = (v: unknown) => (Number(v) > 1 ? Number(v) : null)
  return {
    lastSpanAtMs: ms(last[0]?.ms),
    spansLastHour: Number(spans[0]?.n ?? 0),
    deadLettersLastHour: Number(dead[0]?.n ?? 0),
    oldestPendingJobsAtMs: ms(jobs[0]?.ms),
    engines: new Map(runs.map((r) => [r.engine, { lastRunAtMs: ms(r.run_ms), lastOkAtMs: ms(r.ok_ms) }])),
    engineJobs: new Map(jobCounts.map((r) => [r.engine, { analysed: Number(r.analysed), skipped: Number(r.skipped) }])),
  }
}
