/**
 * Shapes of the REST API's answers the console reads, as the API document
 * (../shared/spec/service-api.md) and docs/api.md give them; /openapi.json is the
 * generated reference. Only the fields the pages use are typed.
 */
import type { Role } from '../lib/roles'

export interface MeWorkspace { workspace_id: string; slug: string; name: string; role: Role | null }
export interface Membership { org_id: string; org_slug: string; org_name: string; role: Role | null; workspaces: MeWorkspace[] }
export interface Me {
  principal_type: 'user' | 'api_key'
  user_id: string | null
  email: string | null
  auth_method: string
  memberships: Membership[]
}

export interface Session { token_type: 'cookie'; expires_in: number; csrf_token: string }

export interface TraceRow {
  trace_id: string
  project_id_out: string
  trace_start: string
  trace_end: string
  cost_usd_total: number
  input_tokens: number
  output_tokens: number
  grade: string
  score: number
  scorer_version: string
  span_count: number
}
export interface TracePage { data: TraceRow[]; next_cursor: string | null; meta: { workspace_id: string; request_id: string } }

export interface TraceSpan {
  span_id: string
  parent_span_id: string | null
  name: string
  kind: string
  start_time: string
  end_time?: string
  duration_ms: number
  status_code: string
  status_message?: string
  service_name?: string
  model?: string
  input_tokens?: number
  output_tokens?: number
  cost_usd?: number
  attributes: Record<string, unknown>
  resource_attributes?: Record<string, unknown>
  events?: unknown[]
}
export interface TraceDetail {
  trace_id: string
  project_id: string
  start_time: string
  end_time?: string
  duration_ms: number
  total_cost_usd: number
  grade: string
  score?: number
  span_count?: number
  /** The spans are the first 10,000 of span_count (docs/api.md "Trace detail"). */
  spans_truncated?: boolean
  input_tokens?: number
  output_tokens?: number
  spans: TraceSpan[]
}

/** What every engine output carries besides its own fields (docs/api.md "Engine outputs"). */
export interface Provenance {
  computed_at: string | null
  analysis_mode: string | null
  engine_version: string | null
  /** Not computed and never will be (unless the trace re-opens): why. */
  skipped?: string | null
}

export interface Claim { claim: string; supported: boolean; confidence: number; evidence_span_id: string | null; verdict?: string; source?: string | null }
export interface CrosscheckClaim { claim: string; verdict: string; confidence: number; url: string | null; basis: string }
export interface ContentReliability extends Provenance {
  trace_id: string
  grade: string
  score: number | null
  claims: Claim[]
  scorer_version: string
  external_crosscheck: { mode: string; claims: CrosscheckClaim[]; checked: number; note: string } | null
}

export interface DecisionNode { id: string; span_id: string; decision: string; chosen: string; alternatives: string[]; basis: string; confidence: number; kind?: string }
export interface DecisionTrace extends Provenance { trace_id: string; nodes: DecisionNode[]; edges: Array<{ from: string; to: string }> }

export interface SubTask { id: string; text: string; resolved: boolean; span_ids: string[] }
export interface Decomposition extends Provenance { trace_id: string; original_query: string; sub_tasks: SubTask[]; coverage: number | null }

export interface SourceEntry { url: string; kind: string; authority_score: number; influence_score: number; verification_level: string; explainer: string; domain?: string }
export interface SourcesMatrix extends Provenance { trace_id: string; sources: SourceEntry[]; mode?: string; note?: string }

export interface Finding { kind: string; span_id: string; current_model: string; suggested_model: string; rationale: string; estimated_savings_usd: number; engine?: string }
export interface Optimization extends Provenance { trace_id: string; findings: Finding[]; total_estimated_savings_usd: number | null }

export interface AlignmentFlag { flag_id: string; trace_id: string; policy_excerpt: string; agent_output: string; severity: string; confidence: number; created_at: string; unclear?: boolean }
export interface AlignmentFlags { flags: AlignmentFlag[]; total: number }
