/**
 * Drift of a workspace: a recent window compared with the baseline window before
 * it, over a few dimensions, folded into one score and a status.
 *
 * Per dimension: the relative change (recent - baseline) / baseline, except model
 * mix, which is the total variation distance between the two windows' shares of LLM
 * calls per model (0 = same mix, 1 = disjoint). Direction: worse when cost, tokens,
 * latency or errors go up or the reliability score goes down; better the other way;
 * changed/stable for the model mix. A dimension without data in either window is
 * left out. drift_score = the mean over dimensions of min(1, |change|), 0-1.
 * Status: ok below 0.15, warn below 0.35, alert from 0.35.
 */
export const DRIFT_WARN = 0.15
export const DRIFT_ALERT = 0.35

export interface WindowFigures {
  traces: number
  costUsd: number
  tokens: number
  calls: number
  errors: number
  p95Ms: number | null
  /** Mean reliability score 0-100 of scored traces, null when none was scored. */
  reliability: number | null
  /** LLM calls per model. */
  modelCalls: Record<string, number>
}

export interface DriftDimension {
  name: 'cost_per_trace' | 'tokens_per_trace' | 'p95_latency_ms' | 'error_rate' | 'reliability_score' | 'model_mix'
  recent: number
  baseline: number
  delta: number
  direction: 'worse' | 'better' | 'unchanged' | 'changed' | 'stable'
}

export interface Drift {
  drift_score: number
  status: 'ok' | 'warn' | 'alert'
  dimensions: DriftDimension[]
}

const round = (x: number) => Math.round(x * 1e6) / 1e6

function relative(name: DriftDimension['name'], recent: number | null, baseline: number | null, higherIsWorse: boolean): DriftDimension | null {
  if (recent === null || baseline === null || !Number.isFinite(recent) || !Number.isFinite(baseline) || baseline <= 0) return null
  const delta = (recent - baseline) / baseline
  const direction = Math.abs(delta) < 1e-9 ? 'unchanged' : (delta > 0) === higherIsWorse ? 'worse' : 'better'
  return { name, recent: round(recent), baseline: round(baseline), delta: round(delta), direction }
}

/** Total variation distance between two count distributions. */
export function mixDistance(a: Record<string, number>, b: Record<string, number>): number | null {
  const ta = Object.values(a).reduce((x, y) => x + y, 0)
  const tb = Object.values(b).reduce((x, y) => x + y, 0)
  if (ta === 0 || tb === 0) return null
  let sum = 0
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) sum += Math.abs((a[k] ?? 0) / ta - (b[k] ?? 0) / tb)
  return sum / 2
}

export function computeDrift(recent: WindowFigures, baseline: WindowFigures): Drift {
  const perTrace = (w: WindowFigures, v: number) => (w.traces > 0 ? v / w.traces : null)
  const rate = (w: WindowFigures) => (w.calls > 0 ? w.errors / w.calls : null)
  const dims = [
    relative('cost_per_trace', perTrace(recent, recent.costUsd), perTrace(baseline, baseline.costUsd), true),
    relative('tokens_per_trace', perTrace(recent, recent.tokens), perTrace(baseline, baseline.tokens), true),
    relative('p95_latency_ms', recent.p95Ms, baseline.p95Ms, true),
    // Error rates start at 0 often; compare them on a floor of 1% so a first error is a change, not infinity.
    relative('error_rate', rate(recent) === null ? null : Math.max(rate(recent)!, 0.01), rate(baseline) === null ? null : Math.max(rate(baseline)!, 0.01), true),
    relative('reliability_score', recent.reliability, baseline.reliability, false),
  ].filter((d): d is DriftDimension => d !== null)
  const mix = mixDistance(recent.modelCalls, baseline.modelCalls)
  if (mix !== null) dims.push({ name: 'model_mix', recent: 0, baseline: 0, delta: round(mix), direction: mix >= DRIFT_WARN ? 'changed' : 'stable' })
  const score = dims.length ? dims.reduce((a, d) => a + Math.min(1, Math.abs(d.delta)), 0) / dims.length : 0
  return { drift_score: round(score), status: score >= DRIFT_ALERT ? 'alert' : score >= DRIFT_WARN ? 'warn' : 'ok', dimensions: dims }
}
