/**
 * content_reliability with the organization's model. The local layer does the
 * cheap part: it splits the answer into claims and, for each claim, pre-selects
 * the few evidence statements most likely to decide it (the one its own judge
 * chose first, then those sharing most words; rankedStatements in
 * reliability/judgement.ts). The prompt lists those passages once each and every
 * claim with the numbers of its own, so it grows with the number of claims, not
 * with the size of the trace's evidence. Every passage number the model returns
 * is checked against the passages that claim was given: an unknown number leaves the claim without evidence,
 * and a supported/contradicted verdict without evidence becomes unsupported (the
 * grade means "backed by what the agent had", not "true according to the
 * grader"). A claim the model skips keeps the local verdict. Scoring and grade
 * bands are the deterministic scorer's (scoreClaims), so both modes grade on one
 * scale.
 */
import { z } from 'zod'
import { SCORER_VERSION } from '@svc/shared/domain/versions'
import type { Claim, ContentReliability } from '../outputs.js'
import type { TraceView } from '../trace-view.js'
import { reliabilityOf, scoreClaims } from '../reliability/index.js'
import { judgeTrace, rankedStatements } from '../reliability/judgement.js'
import type { Statement } from '../reliability/statements.js'
import type { Embedder } from '../semantic/types.js'
import type { LlmClient } from './client.js'
import { clamp01, clip, DATA_NOT_INSTRUCTIONS, oneLine, pick } from './prompt.js'

/** Distinguishes LLM-judged grades from the deterministic scorer's. */
export const LLM_SCORER_VERSION = `${SCORER_VERSION}+llm`
export const ENGINE = 'content_reliability'

export const RELIABILITY_LIMITS = {
  /** Passages pre-selected per claim. */
  perClaim: 3,
  /** One passage. */
  passageChars: 300,
  /** Claims judged per trace. */
  maxClaims: 40,
  maxOutputTokens: 2000,
} as const

export const reliabilityAnswer = z.object({
  claims: z.array(
    z.object({
      claim: z.number(),
      verdict: z.enum(['supported', 'unsupported', 'contradicted']),
      confidence: z.number(),
      evidence: z.number().nullable(),
    }),
  ),
})
export type ReliabilityAnswer = z.infer<typeof reliabilityAnswer>

const SYSTEM = [
  "You audit an AI agent's answer claim by claim against the evidence the agent had during its run.",
  'Each numbered claim in <claims> lists the numbers of the <passages> to judge it against. Judge each claim only against those passages, not against your own knowledge:',
  '"supported" if a passage states it (paraphrase, unit and date conversion and simple arithmetic on the passages count), "contradicted" if a passage about the same thing states otherwise, "unsupported" if no passage settles it.',
  'For each claim give "claim" (its number), "evidence" (the number of the passage that decides the verdict, or null) and "confidence" between 0 and 1.',
  'Answer with JSON only: {"claims":[{"claim":number,"verdict":"supported"|"unsupported"|"contradicted","confidence":number,"evidence":number|null}]}.',
  DATA_NOT_INSTRUCTIONS,
].join('\n')

const render = (s: Statement) => `(${s.evidence.kind}${s.evidence.source ? `, ${s.evidence.source}` : ''}) ${s.text}`

export interface JudgedClaim {
  claim: string
  /** The passages this claim may be judged against (1-based numbers into the prompt's list). */
  passages: number[]
}

/**
 * The prompt: each pre-selected passage once, numbered, then each claim with the
 * numbers of its own passages. It grows with the claims and their few passages,
 * never with the size of the trace's evidence.
 */
export function reliabilityPrompt(claims: Array<{ claim: string; passages: Statement[] }>): { prompt: string; shown: Statement[]; judged: JudgedClaim[] } {
  const L = RELIABILITY_LIMITS
  const shown: Statement[] = []
  const number = new Map<Statement, number>()
  const judged = claims.map((c) => ({
    claim: c.claim,
    passages: c.passages.map((p) => number.get(p) ?? (shown.push(p), number.set(p, shown.length), shown.length)),
  }))
  const lines = ['<passages>', ...shown.map((p, i) => `[${i + 1}] ${clip(oneLine(render(p)), L.passageChars)}`), '</passages>', '<claims>']
  judged.forEach((c, i) => lines.push(`[${i + 1}] ${oneLine(c.claim)} (passages: ${c.passages.join(', ') || 'none'})`))
  lines.push('</claims>')
  return { prompt: lines.join('\n'), shown, judged }
}

/** The model's verdicts, every number checked (a passage must be one the claim was given); claims it skipped keep `fallback`. */
export function claimsFromAnswer(answer: ReliabilityAnswer, shown: Statement[], judged: JudgedClaim[], fallback: Claim[]): Claim[] {
  const out = [...fallback]
  for (const a of answer.claims) {
    const i = Number.isInteger(a.claim) ? a.claim - 1 : -1
    const c = judged[i]
    if (!c) continue
    const ev = typeof a.evidence === 'number' && c.passages.includes(a.evidence) ? (pick(shown, a.evidence)?.evidence ?? null) : null
    const verdict = ev ? a.verdict : 'unsupported'
    out[i] = {
      claim: c.claim,
      supported: verdict === 'supported',
      confidence: clamp01(a.confidence),
      evidence_span_id: ev?.span_id || null,
      verdict,
      source: ev?.source ?? null,
    }
  }
  return out
}

export async function llmContentReliability(view: TraceView, client: LlmClient, embedder: Embedder | null = null): Promise<ContentReliability> {
  const j = await judgeTrace(view, embedder)
  // Nothing to grade: no reason to spend the organization's tokens.
  if (!j.answer || !j.claims.length) return { trace_id: view.trace_id, grade: '', score: null, claims: [], scorer_version: LLM_SCORER_VERSION }
  const local = reliabilityOf(view, j.claims).claims
  const selected = j.claims.slice(0, RELIABILITY_LIMITS.maxClaims).map((c, i) => ({ claim: c.claim, passages: rankedStatements(j, i, RELIABILITY_LIMITS.perClaim) }))
  const { prompt, shown, judged } = reliabilityPrompt(selected)
  const res = await client.generate(reliabilityAnswer, { system: SYSTEM, prompt, maxOutputTokens: RELIABILITY_LIMITS.maxOutputTokens }, ENGINE)
  const claims = claimsFromAnswer(res.object, shown, judged, local.slice(0, RELIABILITY_LIMITS.maxClaims))
  const { score, grade } = scoreClaims(claims)
  return { trace_id: view.trace_id, grade, score, claims, scorer_version: LLM_SCORER_VERSION }
}
