/**
 * The engines' semantic layer as other processes see it: which analysis mode a
 * result was computed in, and the local sentence model's state, which the engine
 * processes publish in the shared cache and GET .../health/ingestion reads
 * (services/engines/src/semantic/layer.ts loads the model).
 */
import type { Cache } from '../cache/types.js'

/**
 * How an engine result was computed: `deterministic` (the local algorithms, with the
 * sentence model where they read meaning), `deterministic-lexical` (the same without
 * the model: it could not load, so matching is by words only), `llm` (the
 * organization's model judged).
 */
export const ANALYSIS_MODES = ['deterministic', 'deterministic-lexical', 'llm'] as const
export type AnalysisMode = (typeof ANALYSIS_MODES)[number]

/** The deterministic mode of a run that needed the sentence model: did it have it. */
export const deterministicMode = (semantic: boolean): AnalysisMode => (semantic ? 'deterministic' : 'deterministic-lexical')

export interface SemanticModelStatus {
  /** not_loaded: no engine has needed it yet (it loads on first use). */
  status: 'loaded' | 'unavailable' | 'not_loaded'
  model: string
  /** Why it is unavailable ('' otherwise). */
  reason: string
  checked_at_ms: number
}

const KEY = 'engines:semantic-model:v1'

/** The newest state an engine process published (the last writer wins when several run). */
export async function publishSemanticStatus(cache: Cache, s: SemanticModelStatus): Promise<void> {
  await cache.set(KEY, JSON.stringify(s))
}

export async function readSemanticStatus(cache: Cache): Promise<SemanticModelStatus | null> {
  const raw = await cache.get(KEY)
  if (!raw) return null
  try {
    return JSON.parse(raw) as SemanticModelStatus
  } catch {
    return null
  }
}
