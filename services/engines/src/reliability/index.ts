/**
 * content_reliability: the final answer's claims, each judged against the evidence
 * the trace gathered before answering, and a score and grade over them.
 */
import { gradeForScore } from '@svc/shared/domain/grades'
import { SCORER_VERSION } from '@svc/shared/domain/versions'
import type { Claim, ContentReliability } from '../outputs.js'
import type { TraceView } from '../trace-view.js'
import { splitClaims } from './claims.js'
import { evidenceOf, finalOutput } from './evidence.js'
import { judgeClaim } from './support.js'

/** A contradiction is worse than a gap: the answer states something the evidence denies. */
export const CONTRADICTION_WEIGHT = 2

/**
 * Confidence-weighted share of supported claims: each claim votes with its
 * confidence, contradicted claims vote CONTRADICTION_WEIGHT times against.
 * score = sum(c, supported) / (sum(c, supported) + sum(c, unsupported) + 2 * sum(c, contradicted)).
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

export function contentReliability(view: TraceView): ContentReliability {
  const out = finalOutput(view)
  const texts = out ? splitClaims(out.text) : []
  const evidence = texts.length ? evidenceOf(view) : []
  const claims: Claim[] = texts.map((claim) => {
    const j = judgeClaim(claim, evidence)
    return {
      claim,
      supported: j.verdict === 'supported',
      confidence: j.confidence,
      evidence_span_id: j.evidence?.span_id ?? null,
      verdict: j.verdict,
      source: j.evidence?.source ?? null,
    }
  })
  const { score, grade } = scoreClaims(claims)
  return { trace_id: view.trace_id, grade, score, claims, scorer_version: SCORER_VERSION }
}
