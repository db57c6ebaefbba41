/**
 * content_reliability: the final answer's claims, each judged against the evidence
 * the trace gathered before answering, and a score and grade over them.
 */
import { gradeForScore } from '@svc/shared/domain/grades'
import { SCORER_VERSION } from '@svc/shared/domain/versions'
import type { Claim, ContentReliability } from '../outputs.js'
import type { TraceView } from '../trace-view.js'
import { splitClaims } from './claims.js'
import { evidenceOf, finalOutput, promptMessages } from './evidence.js'
import { quantities } from './quantity.js'
import { requestStatements, statementsOf } from './statements.js'
import { judge, type JudgeContext } from './support.js'

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

/** What the user asked, from every prompt's user messages and the root's input: yardsticks, not evidence. */
function requestText(view: TraceView): string {
  const out = new Set<string>()
  for (const sp of view.spans) {
    if (sp.span_type === 'llm') for (const m of promptMessages(sp.content.prompt)) if (m.role === 'user' || m.role === 'human') out.add(m.text)
    if (!sp.parent_span_id) out.add(sp.attributes['input.value'] ?? sp.attributes['traceloop.entity.input'] ?? '')
  }
  return [...out].join('\n')
}

/** What every claim of a trace is judged against, prepared once. */
export function judgeContext(view: TraceView, answer: string): JudgeContext {
  return { statements: statementsOf(evidenceOf(view)), request: requestStatements(requestText(view)), answerQuantities: quantities(answer) }
}

export function contentReliability(view: TraceView): ContentReliability {
  const out = finalOutput(view)
  const texts = out ? splitClaims(out.text) : []
  const ctx: JudgeContext = texts.length ? judgeContext(view, out!.text) : { statements: [], request: [], answerQuantities: [] }
  const claims: Claim[] = texts.map((claim) => {
    const j = judge(claim, ctx)
    return {
      claim,
      supported: j.verdict === 'supported',
      confidence: j.confidence,
      evidence_span_id: j.evidence?.span_id || null,
      verdict: j.verdict,
      source: j.evidence?.source ?? null,
    }
  })
  const { score, grade } = scoreClaims(claims)
  return { trace_id: view.trace_id, grade, score, claims, scorer_version: SCORER_VERSION }
}
