/**
 * Answers of the workspace dashboards' endpoints (usage, latency, drift, ingestion
 * health, sources, alignment flags, coding-agent analytics), as docs/api.md gives
 * them. Only the fields the pages read are typed.
 */
import type { Period } from '../ui/form'

export interface UsageTotals {
  trace_count: number
  span_count: number
  llm_calls: number
  unpriced_calls: number
  input_tokens: number
  output_tokens: number
  cache_read_tokens: number
  reasoning_tokens: number
  cost_usd: number
}
export interface ModelUsage { model: string; provider: string; llm_calls: number; unpriced_calls: number; input_tokens: number; output_tokens: number; cost_usd: number }
export interface ProjectUsage { project_id: string; trace_count: number; llm_calls: number; cost_usd: number }
export interface UsageSummary { data: { period: Period; workspace_id: string; totals: UsageTotals; by_model: ModelUsage[]; by_project: ProjectUsage[] } }

export interface UsagePoint { ts: string; trace_count: number; total_tokens: number; total_cost_usd: number }
export interface UsageTimeseries { days: number; points: UsagePoint[] }

export interface PhaseLatency { phase: string; p50_ms: number; p95_ms: number; p99_ms: number; call_count: number; error_count: number }
export interface Latency { period: Period; phases: PhaseLatency[] }
export interface PhaseTrace { trace_id: string; duration_ms: number; start_time: string; status: string }
export interface PhaseTraces { phase: string; metric: 'slow' | 'errors'; percentile: 'p95' | 'p99'; period: Period; threshold_ms: number | null; traces: PhaseTrace[] }

export type DriftStatus = 'ok' | 'warn' | 'alert'
export interface DriftDimension { name: string; recent: number; baseline: number; delta: number; direction: string }
export interface DriftAnomaly { agent: string; dimension: string; recent: number; baseline: number; delta: number; z_score: number; direction: string; basis: 'own_history' | 'fleet' }
export interface DriftCurrent { as_of: string; drift_score: number; status: DriftStatus; baseline_window_days: number; dimensions: DriftDimension[]; anomalies: DriftAnomaly[] }
export interface DriftHistory { days: number; points: Array<{ day: string; drift_score: number; status: DriftStatus; as_of: string }> }

export interface IngestionHealth {
  status: 'ok' | 'degraded' | 'idle'
  last_span_at: string | null
  spans_last_hour: number
  dead_letter_count_last_hour: number
  engines: Record<string, { status: 'ok' | 'stalled'; last_run_at: string | null }>
  semantic_model?: { status: 'loaded' | 'unavailable' | 'not_loaded'; model: string | null; reason: string | null; checked_at: string | null }
}

export interface SourceRow { domain: string; kind: string; authority_prior: number; citation_count: number; last_seen: string }
export interface SourceList { sources: SourceRow[] }

export interface UserFlags { end_user: string; flags: number; traces: number; high: number; medium: number; low: number; last_flag_at: string }
export interface FlagsByUser { users: UserFlags[]; total: number }

export interface EmployeeUsage {
  employee: string | null
  sessions: number
  api_requests: number
  prompts: number
  tool_calls: number
  cost_usd: number
  input_tokens: number
  output_tokens: number
  lines_added: number
  lines_removed: number
  commits: number
  pull_requests: number
  active_time_seconds: number
  last_activity_at: string | null
}
export interface CodingUsage { period: Period; totals: Omit<EmployeeUsage, 'employee' | 'last_activity_at'> & { employees: number }; employees: EmployeeUsage[] }
export interface Commit { commit_id: string; committed_at: string; agent: string; employee: string | null; repository: string | null; branch: string | null; message: string | null; files: string[]; lines_added: number; lines_removed: number }
export interface Commits { commits: Commit[] }
export interface TopFile { file_path: string; edits: number; commits: number; employees: number; sessions: number; lines_added: number; lines_removed: number; last_edited_at: string }
export interface TopFiles { files: TopFile[] }
