import type { Store } from '../types.js'

/**
 * What the hourly roll-ups say for a workspace, and what they should say: the same
 * figures over each distinct stored span once (rollups.test.ts, the assembler's
 * replay test, the crash-recovery test). Equal means exact.
 */
export interface RollupFigures {
  usage: unknown[]
  latency: unknown[]
}

const DISTINCT_SPANS = `SELECT trace_id, span_id, any(start_time) AS st, any(project_id) AS project_id, any(model) AS model, any(provider) AS provider,
       any(parent_span_id) AS parent, any(is_llm) AS llm, any(input_tokens) AS i, any(output_tokens) AS o, any(cost_usd) AS c,
       multiIf(any(span_type) = 'chain', 'agent', any(span_type) = '', 'other', any(span_type)) AS phase, any(status_code) = 'ERROR' AS err, any(duration_ns) AS d
FROM spans_v1 WHERE workspace_id = {ws:UUID} GROUP BY trace_id, span_id`

export async function rollupFigures(store: Store, workspaceId: string): Promise<RollupFigures> {
  const ws = { ws: workspaceId }
  const [usage, latency] = await Promise.all([
    store.query(
      `SELECT toString(hour) AS h, project_id, model, provider, sum(spans) AS spans, sum(traces) AS traces, sum(llm_calls) AS llm, sum(input_tokens) AS i, sum(output_tokens) AS o, round(sum(cost_usd), 9) AS cost
FROM usage_hourly_v1 WHERE workspace_id = {ws:UUID} GROUP BY h, project_id, model, provider ORDER BY h, project_id, model, provider`,
      ws,
    ),
    store.query(
      `SELECT toString(hour) AS h, phase, sum(calls) AS calls, sum(errors) AS errors, arrayMap(x -> round(x, 6), quantilesTDigestMerge(0.5, 0.95, 0.99)(duration_ms)) AS q
FROM latency_hourly_v1 WHERE workspace_id = {ws:UUID} GROUP BY h, phase ORDER BY h, phase`,
      ws,
    ),
  ])
  return { usage, latency }
}

export async function rollupReference(store: Store, workspaceId: string): Promise<RollupFigures> {
  const ws = { ws: workspaceId }
  const [usage, latency] = await Promise.all([
    store.query(
      `SELECT toString(toStartOfHour(st)) AS h, project_id, model, provider, toUInt64(count()) AS spans, toUInt64(countIf(parent = '')) AS traces, toUInt64(countIf(llm = 1)) AS llm,
       sum(i) AS i, sum(o) AS o, round(sum(c), 9) AS cost
FROM (${DISTINCT_SPANS}) GROUP BY h, project_id, model, provider ORDER BY h, project_id, model, provider`,
      ws,
    ),
    store.query(
      `SELECT toString(toStartOfHour(st)) AS h, phase, toUInt64(count()) AS calls, toUInt64(countIf(err)) AS errors, arrayMap(x -> round(x, 6), quantilesTDigest(0.5, 0.95, 0.99)(d / 1e6)) AS q
FROM (${DISTINCT_SPANS}) GROUP BY h, phase ORDER BY h, phase`,
      ws,
    ),
  ])
  return { usage, latency }
}
