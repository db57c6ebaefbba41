import type { TraceEngine } from '@svc/shared/bus/topics'
import type { PriceTable } from '@svc/shared/domain/pricing'
import type { AnalysisMode } from '@svc/shared/domain/semantic-model'
import type { AlignmentPolicy, PolicyPassage } from '../alignment/index.js'
import type { SearchClient } from '../crosscheck/search.js'
import type { LlmClient } from '../llm/client.js'
import type { Embedder } from '../semantic/types.js'
import type { TraceView } from '../trace-view.js'

/** What an engine may use besides the trace: the organization's model and search, and workspace knowledge. */
export interface EngineContext {
  orgId: string
  workspaceId: string
  prices: PriceTable
  /** The organization's LLM, or null: then the engine runs its deterministic algorithm. */
  llm: LlmClient | null
  /** The organization's search provider, or null (closed-knowledge-base mode). */
  search: SearchClient | null
  /** The workspace's broaden_sources setting (searching the open web needs `search` too). */
  broadenSources: boolean
  /** The workspace's learned authority prior of a source domain (0.5 when unknown). */
  priorOf(domain: string, kind: string): number
  /** The workspace's alignment policy (setting alignment_policy); absent = not enabled. */
  alignmentPolicy?: AlignmentPolicy
  /** The top-k embedded policy passages for each text (same order), by cosine similarity; absent = no documents. */
  searchPolicy?(texts: string[], k: number): Promise<PolicyPassage[][]>
  /**
   * The process's local sentence model (semantic/layer.ts), loaded on first call; null
   * when it cannot load, and then the engine runs lexically and reports
   * `deterministic-lexical`. Absent: lexical.
   */
  semantic?(): Promise<Embedder | null>
}


export interface EngineOutcome {
  /** The API body of the engine's endpoint. */
  payload: { trace_id: string } & Record<string, unknown>
  mode: AnalysisMode
  usage?: { inputTokens: number; outputTokens: number }
  /** Rows for other tables, landed by the sink (see result-sink.ts). */
  extras?: Record<string, unknown>
}

export interface EngineDefinition {
  name: TraceEngine
  /** Bumped when the algorithm changes, so results say which algorithm produced them. */
  version: string
  run(view: TraceView, ctx: EngineContext): Promise<EngineOutcome>
}
