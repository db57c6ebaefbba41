/** Inputs of the drift roll-up (from the hourly roll-ups and trace scores) and its stored rows. */
import { computeDrift, type Drift, type DriftDimension, type WindowFigures } from '../../domain/drift.js'
import type { Store } from '../types.js'
import { IN_WINDOW, windowParams } from './usage.js'

/** Figures of a workspace's traffic in [fromMs, toMs). */
export async function windowFigures(store: Store, workspaceId: string, fromMs: number, toMs: number): Promise<WindowFigures> {
  const params = windowParams(workspaceId, { fromMs, toMs })
  const [usage, models, lat, scores] = await Promise.all([
    store.query<{ traces: number; cost: number; tokens: number }>(
      `SELECT sum(traces) AS traces, sum(cost_usd) AS cost, sum(input_tokens) + sum(output_tokens) AS tokens FROM usage_hourly_v1 WHERE ${IN_WINDOW}`,
      params,
      { tag: 'drift.usage' },
    ),
    store.query<{ model: string; calls: number }>(`SELECT model, sum(llm_calls) AS calls FROM usage_hourly_v1 WHERE ${IN_WINDOW} AND model != '' GROUP BY model`, params, { tag: 'drift.models' }),
    store.query<{ calls: number; errors: number; q: number[] }>(
      `SELECT sum(calls) AS calls, sum(errors) AS errors, quantilesTDigestMerge(0.5, 0.95, 0.99)(duration_ms) AS q FROM latency_hourly_v1 WHERE ${IN_WINDOW}`,
      params,
      { tag: 'drift.latency' },
    ),
    store.query<{ n: number; avg: number }>(
      `SELECT count() AS n, avg(score) AS avg FROM (SELECT argMax(score, scored_at) AS score, argMax(grade_rank, scored_at) AS r FROM trace_scores_v1 WHERE workspace_id = {ws:UUID} AND scored_at >= toDateTime64({from:UInt32}, 3) AND scored_at < toDateTime64({to:UInt32}, 3) GROUP BY trace_id) WHERE r >= 0`,
      params,
      { tag: 'drift.scores' },
    ),
  ])
  const u = usage[0]
  const l = lat[0]
  const calls = Number(l?.calls ?? 0)
  return {
    traces: Number(u?.traces ?? 0),
    costUsd: Number(u?.cost ?? 0),
    tokens: Number(u?.tokens ?? 0),
    calls,
    errors: Number(l?.errors ?? 0),
    p95Ms: calls > 0 ? Number(l!.q[1]) : null,
    reliability: Number(scores[0]?.n ?? 0) > 0 ? Number(scores[0]!.avg) : null,
    modelCalls: Object.fromEntries(models.map((m) => [m.model, Number(m.calls)])),
  }
}

export interface DriftRow extends Drift {
  day: string
  baseline_window_days: number
  computed_at_ms: number
}

export async function saveDrift(store: Store, workspaceId: string, row: DriftRow): Promise<void> {
  await store.insert('drift_daily_v1', [
    { workspace_id: workspaceId, day: row.day, drift_score: row.drift_score, status: row.status, baseline_window_days: row.baseline_window_days, dimensions: JSON.stringify(row.dimensions), computed_at: String(row.computed_at_ms) },
  ])
}

/** Stored days from `fromDay` (YYYY-MM-DD), oldest first, the newest computation of each. */
export async function driftHistory(store: Store, workspaceId: string, fromDay: string): Promise<DriftRow[]> {
  const rows = await store.query<{ d: string; drift_score: number; status: string; baseline_window_days: number; dimensions: string; computed_at_ms: number }>(
    `SELECT toString(day) AS d, argMax(drift_score, computed_at) AS drift_score, argMax(status, computed_at) AS status,
       argMax(baseline_window_days, computed_at) AS baseline_window_days, argMax(dimensions, computed_at) AS dimensions, toUnixTimestamp64Milli(max(computed_at)) AS computed_at_ms
FROM drift_daily_v1 WHERE workspace_id = {ws:UUID} AND day >= toDate({from:String})
GROUP BY day ORDER BY day`,
    { ws: workspaceId, from: fromDay },
    { tag: 'drift.history' },
  )
  return rows.map((r) => ({
    day: r.d,
    drift_score: Number(r.drift_score),
    status: r.status as DriftRow['status'],
    baseline_window_days: Number(r.baseline_window_days),
    dimensions: JSON.parse(r.dimensions) as DriftDimension[],
    computed_at_ms: Number(r.computed_at_ms),
  }))
}

const DAY_MS = 86_400_000

/** The drift of the last 24 hours against the `baselineDays` days before them. */
export async function measureDrift(store: Store, workspaceId: string, nowMs: number, baselineDays: number): Promise<DriftRow> {
  const recentFrom = nowMs - DAY_MS
  const [recent, baseline] = await Promise.all([
    windowFigures(store, workspaceId, recentFrom, nowMs),
    windowFigures(store, workspaceId, recentFrom - baselineDays * DAY_MS, recentFrom),
  ])
  return { ...computeDrift(recent, baseline), day: new Date(nowMs).toISOString().slice(0, 10), baseline_window_days: baselineDays, computed_at_ms: nowMs }
}
