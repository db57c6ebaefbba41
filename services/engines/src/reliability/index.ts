/**
 * content_reliability: the final answer's claims, each judged against the evidence
 * the trace gathered before answering, and a score and grade over them.
 */
import { gradeForScore } from '@svc/shared/domain/grades'
import { SCORER_VERSION } from '@svc/shared/domain/versions'
import type { Claim, ContentReliability } from '../outputs.js'
import type { TraceView } from '../trace-view.js'
import type { Embedder } from '../semantic/types.js'
import { judgeTrace, type TraceJudgement } from './judgement.js'

/**
 * What a contradicted claim costs against an unsupported one. Weighing it twice
 * (version 1) ranked traces worse against the share of their claims a person finds
 * supported (Spearman 0.47 against 0.54 on the v2 development set, 0.77 against
 * 0.81 on the old set): a trace's grade is about how much of the answer is backed.
 */
export const CONTRADICTION_WEIGHT = 1

/**
 * Confidence-weighted share of supported claims: each claim votes with its
 * confidence (a doubtful gap costs less than a clear one), contradicted claims
 * vote CONTRADICTION_WEIGHT times against.
 * score = sum(c, supported) / (sum(c, supported) + sum(c, unsupported) + CONTRADICTION_WEIGHT * sum(c, contradicted)).
 * No claims: nothing to grade (null, '').
 */
export function scoreClaims(claims: Claim[]): { score: number | null; grade: string } {
  if (claims.length === 0) return { score: null, grade: '' }
  let good = 0
  let all = 0
  for (const c of claims) {
    const w = Math.max(c.confidence, 0.05)
    if (c.verdict === 'supported') {
      good += w
      all += w
    } else all += c.verdict === 'contradicted' ? CONTRADICTION_WEIGHT * w : w
  }
  const score = Math.round((good / all) * 10000) / 10000
  return { score, grade: gradeForScore(score) }
}

/**
 * The trace's claims with their verdicts, score and grade, from the shared
 * judgement (judgement.ts): with the sentence model when `embedder` is given,
 * lexical otherwise; `rulesOnly` without the combiner (for the evaluation).
 */
export async function contentReliability(view: TraceView, embedder: Embedder | null = null, rulesOnly = false): Promise<ContentReliability> {
  return reliabilityOf(view, (await judgeTrace(view, embedder, rulesOnly)).claims)
}

/** content_reliability's output for judged claims. */
export function reliabilityOf(view: TraceView, judged: TraceJudgement['claims']): ContentReliability {
  const claims: Claim[] = judged.map(({ claim, judgement }) => ({
    claim,
    supported: judgement.verdict === 'supported',
    confidence: judgement.confidence,
    evidence_span_id: judgement.evidence?.span_id || null,
    verdict: judgement.verdict,
    source: judgement.evidence?.source ?? null,
  }))
  const { score, grade } = scoreClaims(claims)
  return { trace_id: view.trace_id, grade, score, claims, scorer_version: SCORER_VERSION }
}
