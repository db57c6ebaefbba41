/**
 * fleet_monitor's anomaly detection across the fleet of agents of a workspace.
 *
 * An agent is a project_id: the spec's agents report into projects, and project_id
 * is the finest stable grouping the hourly roll-ups keep (usage_hourly_v1).
 *
 * Dimensions per agent: cost_per_trace and tokens_per_trace (higher is worse), traces
 * (volume) and cost_share (the agent's share of the workspace's cost), both
 * `changed`: a busier agent, or one taking a bigger slice, is news, not a fault.
 * Only a growing share is flagged: shares sum to 1, so one agent's growth shrinks
 * every other's, and those echoes would bury the one agent that moved.
 *
 * Basis:
 * - own_history: the agent's baseline days where the dimension has a value (per-trace
 *   figures need MIN_TRACES traces that day; volume counts every day, quiet days as
 *   0; cost_share needs workspace cost that day), used when there are at least
 *   MIN_HISTORY_DAYS of them. Mean and population standard deviation; the deviation
 *   is floored at SD_FLOOR of the mean, so a perfectly flat baseline gives a large
 *   but finite z and the relative-change condition decides.
 * - fleet: an agent without that much history is compared on the per-trace figures
 *   with its peers' recent values (at least MIN_PEERS peers with MIN_TRACES traces):
 *   median and MAD x 1.4826 (the standard-deviation equivalent), same floor. Volume
 *   and share are sizes, and agents of very different sizes are normal, so they are
 *   compared with the agent's own history only.
 *
 * Rule: an anomaly when |z| >= Z_MIN and |relative change| >= DELTA_MIN, on a
 * positive baseline, and with MIN_TRACES recent traces (for volume: recent or
 * baseline mean at MIN_TRACES, so an agent going quiet counts but a 1-trace agent
 * does not). Most severe (largest |z|) first, at most MAX_ANOMALIES.
 */
export const Z_MIN = 3
export const DELTA_MIN = 0.5
export const MIN_TRACES = 10
export const MIN_HISTORY_DAYS = 3
export const MIN_PEERS = 3
export const SD_FLOOR = 0.1
export const MAX_ANOMALIES = 100

/** An agent's traffic over one day (or the recent 24 hours). */
export interface AgentDay {
  traces: number
  costUsd: number
  tokens: number
  llmCalls: number
}

export interface AgentFigures {
  /** project_id */
  agent: string
  /** One entry per baseline day, oldest first, the same days for every agent (zeros for quiet days). */
  baseline: AgentDay[]
  recent: AgentDay
}

export type FleetDimension = 'cost_per_trace' | 'tokens_per_trace' | 'traces' | 'cost_share'

export interface FleetAnomaly {
  agent: string
  dimension: FleetDimension
  recent: number
  baseline: number
  /** (recent - baseline) / baseline */
  delta: number
  z_score: number
  direction: 'worse' | 'better' | 'changed'
  basis: 'own_history' | 'fleet'
}

const DIMENSIONS: FleetDimension[] = ['cost_per_trace', 'tokens_per_trace', 'traces', 'cost_share']
const HIGHER_IS_WORSE: ReadonlySet<FleetDimension> = new Set(['cost_per_trace', 'tokens_per_trace'])
const PER_TRACE: ReadonlySet<FleetDimension> = HIGHER_IS_WORSE

const round = (x: number) => Math.round(x * 1e6) / 1e6
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

/** A dimension's value on one day; null when the day cannot carry one. `wsCost` is the workspace's cost that day. */
function value(dim: FleetDimension, d: AgentDay, wsCost: number): number | null {
  switch (dim) {
    case 'cost_per_trace':
      return d.traces >= MIN_TRACES ? d.costUsd / d.traces : null
    case 'tokens_per_trace':
      return d.traces >= MIN_TRACES ? d.tokens / d.traces : null
    case 'traces':
      return d.traces
    case 'cost_share':
      return wsCost > 0 ? d.costUsd / wsCost : null
  }
}

/** z with the deviation floored, so a flat reference gives a finite score. */
const zScore = (x: number, centre: number, spread: number) => (x - centre) / Math.max(spread, SD_FLOOR * Math.abs(centre), 1e-12)

function judge(agent: string, dim: FleetDimension, recent: number, centre: number, spread: number, basis: FleetAnomaly['basis']): FleetAnomaly | null {
  if (!(centre > 0)) return null
  const delta = (recent - centre) / centre
  const z = zScore(recent, centre, spread)
  if (Math.abs(z) < Z_MIN || Math.abs(delta) < DELTA_MIN || (dim === 'cost_share' && delta < 0)) return null
  const direction = HIGHER_IS_WORSE.has(dim) ? (delta > 0 ? 'worse' : 'better') : 'changed'
  return { agent, dimension: dim, recent: round(recent), baseline: round(centre), delta: round(delta), z_score: round(z), direction, basis }
}

export function detectFleetAnomalies(agents: AgentFigures[]): FleetAnomaly[] {
  const days = Math.max(0, ...agents.map((a) => a.baseline.length))
  const wsDayCost = Array.from({ length: days }, (_, i) => agents.reduce((s, a) => s + (a.baseline[i]?.costUsd ?? 0), 0))
  const wsRecentCost = agents.reduce((s, a) => s + a.recent.costUsd, 0)
  const recentOf = (a: AgentFigures, dim: FleetDimension) => value(dim, a.recent, wsRecentCost)
  const busy = (d: AgentDay) => d.traces >= MIN_TRACES

  const out: FleetAnomaly[] = []
  for (const a of [...agents].sort((x, y) => (x.agent < y.agent ? -1 : x.agent > y.agent ? 1 : 0))) {
    const history = a.baseline.filter(busy).length >= MIN_HISTORY_DAYS
    const baselineMean = a.baseline.length ? mean(a.baseline.map((d) => d.traces)) : 0
    for (const dim of DIMENSIONS) {
      const recent = recentOf(a, dim)
      if (recent === null) continue
      if (dim === 'traces' ? Math.max(recent, baselineMean) < MIN_TRACES : !busy(a.recent)) continue
      const own = a.baseline.map((d, i) => value(dim, d, wsDayCost[i]!)).filter((v): v is number => v !== null)
      if (history && own.length >= MIN_HISTORY_DAYS) {
        const m = mean(own)
        const sd = Math.sqrt(mean(own.map((v) => (v - m) ** 2)))
        const hit = judge(a.agent, dim, recent, m, sd, 'own_history')
        if (hit) out.push(hit)
        continue
      }
      if (!PER_TRACE.has(dim)) continue
      const peers = agents.filter((p) => p !== a && busy(p.recent)).map((p) => recentOf(p, dim)!)
      if (peers.length < MIN_PEERS) continue
      const med = median(peers)
      const mad = 1.4826 * median(peers.map((v) => Math.abs(v - med)))
      const hit = judge(a.agent, dim, recent, med, mad, 'fleet')
      if (hit) out.push(hit)
    }
  }
  // Stable sort: ties keep agent then dimension order, so the output is deterministic.
  return out.sort((x, y) => Math.abs(y.z_score) - Math.abs(x.z_score)).slice(0, MAX_ANOMALIES)
}
