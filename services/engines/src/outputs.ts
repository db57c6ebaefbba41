/**
 * What each engine produces: the payloads the API serves under
 * GET .../traces/{trace_id}/<engine> (spec "Engine outputs"), plus the few fields
 * beyond the spec each engine documents in docs/engines.md. A payload is stored as
 * JSON in engine_results_v1; the newest per (trace, engine) wins.
 */

export interface Claim {
  claim: string
  supported: boolean
  confidence: number
  /** The span whose content backs the claim; null when nothing retrieved backs it. */
  evidence_span_id: string | null
  // Beyond the spec:
  /** Why: supported, unsupported (no evidence) or contradicted (evidence disagrees). */
  verdict: 'supported' | 'unsupported' | 'contradicted'
  /** The evidence's source (document URL or id) when there is one. */
  source: string | null
}

export interface ContentReliability {
  trace_id: string
  /** Letter grade; '' when the trace has no output text to grade. */
  grade: string
  /** 0-1 (the trace list shows it as 0-100); null when ungradeable. */
  score: number | null
  claims: Claim[]
  scorer_version: string
}

export interface DecisionNode {
  id: string
  span_id: string
  /** What was decided: tool_choice, model_choice, branch, retry, retrieval, final_answer. */
  decision: string
  chosen: string
  alternatives: string[]
  basis: string
  confidence: number
}

export interface DecisionTrace {
  trace_id: string
  nodes: DecisionNode[]
  edges: Array<{ from: string; to: string }>
}

export interface SubTask {
  id: string
  text: string
  resolved: boolean
  span_ids: string[]
}

export interface Decomposition {
  trace_id: string
  /** The first user message; '' when the trace has none. */
  original_query: string
  sub_tasks: SubTask[]
  /** Share of sub-tasks resolved, 0-1; 1 when there is nothing to resolve. */
  coverage: number
}

export interface SourceEntry {
  url: string
  /** internal_kb, web, tool or citation. */
  kind: string
  /** The workspace's learned prior for the source's domain, 0-1. */
  authority_score: number
  /** Share of the trace's supported claims this source backs, 0-1. */
  influence_score: number
  /** verified (backs a supported claim), contradicted, unverified (used, backs no claim), cited_only, web_corroborated (broaden_sources: found on the web, not used by the agent). */
  verification_level: string
  explainer: string
  // Beyond the spec:
  domain: string
}

export interface SourcesMatrix {
  trace_id: string
  sources: SourceEntry[]
}

export interface OptimizationFinding {
  /** model_downgrade, prompt_cache, oversized_context, failing_retries, ... */
  kind: string
  span_id: string
  current_model: string
  /** '' when the finding is not about the model. */
  suggested_model: string
  rationale: string
  estimated_savings_usd: number
  // Beyond the spec: which engine found it (correlation or savings).
  engine: 'correlation' | 'savings'
}

export interface Optimization {
  trace_id: string
  findings: OptimizationFinding[]
  total_estimated_savings_usd: number
}
