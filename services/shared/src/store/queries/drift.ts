/**
 * Inputs of the drift roll-up (from the hourly roll-ups and trace scores), the
 * per-agent figures of fleet_monitor's anomaly detection, and the stored rows.
 */
import { computeDrift, type Drift, type DriftDimension, type WindowFigures } from '../../domain/drift.js'
import { detectFleetAnomalies, type AgentDay, type AgentFigures, type FleetAnomaly } from '../../domain/fleet.js'
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

const DAY_MS = 86_400_000

/**
 * Per agent (project_id): the recent 24 hours before `nowMs` and each of the
 * `baselineDays` 24-hour days before them, oldest first, quiet days as zeros. Days
 * are counted back from `nowMs` (not calendar days) so they line up with the drift
 * windows; an hour belongs to the day its start falls in, as in windowFigures.
 */
export async function fleetFigures(store: Store, workspaceId: string, nowMs: number, baselineDays: number): Promise<AgentFigures[]> {
  const rows = await store.query<{ project_id: string; ago: number; traces: number; cost: number; tokens: number; calls: number }>(
    `SELECT project_id, intDiv({to:UInt32} - 1 - toUInt32(hour), 86400) AS ago, sum(traces) AS traces, sum(cost_usd) AS cost,
       sum(input_tokens) + sum(output_tokens) AS tokens, sum(llm_calls) AS calls
FROM usage_hourly_v1 WHERE ${IN_WINDOW}
GROUP BY project_id, ago`,
    windowParams(workspaceId, { fromMs: nowMs - (baselineDays + 1) * DAY_MS, toMs: nowMs }),
    { tag: 'drift.fleet' },
  )
  const zero = (): AgentDay => ({ traces: 0, costUsd: 0, tokens: 0, llmCalls: 0 })
  const agents = new Map<string, AgentFigures>()
  for (const r of rows) {
    const ago = Number(r.ago)
    if (ago < 0 || ago > baselineDays) continue
    let a = agents.get(r.project_id)
    if (!a) agents.set(r.project_id, (a = { agent: r.project_id, baseline: Array.from({ length: baselineDays }, zero), recent: zero() }))
    const d = ago === 0 ? a.recent : a.baseline[baselineDays - ago]!
    d.traces += Number(r.traces)
    d.costUsd += Number(r.cost)
    d.tokens += Number(r.tokens)
    d.llmCalls += Number(r.calls)
  }
  return [...agents.values()]
}

export interface DriftRow extends Drift {
  day: string
  baseline_window_days: number
  computed_at_ms: number
  /** fleet_monitor's anomalies across the workspace's agents, most severe first. */
  anomalies: FleetAnomaly[]
}

export async function saveDrift(store: Store, workspaceId: string, row: DriftRow): Promise<void> {
  await store.insert('drift_daily_v1', [
    {
      workspace_id: workspaceId,
      day: row.day,
      drift_score: row.drift_score,
      status: row.status,
      baseline_window_days: row.baseline_window_days,
      dimensions: JSON.stringify(row.dimensions),
      anomalies: JSON.stringify(row.anomalies),
      computed_at: String(row.computed_at_ms),
    },
  ])
}

/** Stored days from `fromDay` (YYYY-MM-DD), oldest first, the newest computation of each. */
export async function driftHistory(store: Store, workspaceId: string, fromDay: string): Promise<DriftRow[]> {
  const rows = await store.query<{ d: string; drift_score: number; status: string; baseline_window_days: number; dimensions: string; anomalies: string; computed_at_ms: number }>(
    `SELECT toString(day) AS d, argMax(drift_score, computed_at) AS drift_score, argMax(status, computed_at) AS status,
       argMax(baseline_window_days, computed_at) AS baseline_window_days, argMax(dimensions, computed_at) AS dimensions,
       argMax(anomalies, computed_at) AS anomalies, toUnixTimestamp64Milli(max(computed_at)) AS computed_at_ms
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
    // Rows written before fleet_monitor carry the column default, '[]'.
    anomalies: JSON.parse(r.anomalies || '[]') as FleetAnomaly[],
    computed_at_ms: Number(r.computed_at_ms),
  }))
}

/**
 * The drift of the last 24 hours against the `baselineDays` days before them, and
 * the fleet's anomalies over the same days. `anomalies: false` skips the detection
 * (an empty list), for reads where fleet_monitor is off.
 */
export async function measureDrift(store: Store, workspaceId: string, nowMs: number, baselineDays: number, opts: { anomalies?: boolean } = {}): Promise<DriftRow> {
  const recentFrom = nowMs - DAY_MS
  const [recent, baseline, fleet] = await Promise.all([
    windowFigures(store, workspaceId, recentFrom, nowMs),
    windowFigures(store, workspaceId, recentFrom - baselineDays * DAY_MS, recentFrom),
    opts.anomalies === false ? [] : fleetFigures(store, workspaceId, nowMs, baselineDays),
  ])
  return {
    ...computeDrift(recent, baseline),
    day: new Date(nowMs).toISOString().slice(0, 10),
    baseline_window_days: baselineDays,
    computed_at_ms: nowMs,
    anomalies: detectFleetAnomalies(fleet),
  }
}
