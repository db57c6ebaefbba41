/**
 * content_reliability with the organization's model: one call extracts the claims
 * of the final output and judges each against the trace's own numbered evidence.
 * The model is asked for a passage number per verdict and the number is checked
 * against what it was shown: an out-of-range or missing number leaves the claim
 * without evidence, and a supported/contradicted verdict that points at no real
 * passage becomes unsupported, since the grade means "backed by what the agent
 * had", not "true according to the grader". Scoring and grade bands are the
 * deterministic scorer's (scoreClaims), so both modes grade on the same scale.
 */
import { z } from 'zod'
import { SCORER_VERSION } from '@svc/shared/domain/versions'
import type { Claim, ContentReliability } from '../outputs.js'
import type { TraceView } from '../trace-view.js'
import { evidenceOf, finalOutput, type Evidence } from '../reliability/evidence.js'
import { scoreClaims } from '../reliability/index.js'
import type { LlmClient } from './client.js'
import { clamp01, clip, DATA_NOT_INSTRUCTIONS, numbered, pick } from './prompt.js'

/** Distinguishes LLM-judged grades from the deterministic scorer's. */
export const LLM_SCORER_VERSION = `${SCORER_VERSION}+llm`
export const ENGINE = 'content_reliability'

export const RELIABILITY_LIMITS = {
  /** The final output shown to the model. */
  outputChars: 8000,
  /** One evidence passage. */
  passageChars: 1500,
  /** All evidence passages together. */
  evidenceChars: 24_000,
  maxPassages: 40,
  /** Claims kept from the answer. */
  maxClaims: 40,
  maxOutputTokens: 4000,
} as const

export const reliabilityAnswer = z.object({
  claims: z.array(
    z.object({
      claim: z.string(),
      verdict: z.enum(['supported', 'unsupported', 'contradicted']),
      confidence: z.number(),
      evidence: z.number().nullable(),
    }),
  ),
})
export type ReliabilityAnswer = z.infer<typeof reliabilityAnswer>

const SYSTEM = [
  "You audit an AI agent's final answer against the evidence the agent had during its run.",
  '1. Extract the factual claims of the answer in <answer>: each a short, self-contained sentence, in the order they appear. Skip greetings, hedges, questions and formatting.',
  '2. Judge each claim only against the numbered passages in <evidence>, not against your own knowledge:',
  '   "supported" if a passage states it, "contradicted" if a passage states otherwise, "unsupported" if no passage settles it.',
  '3. For each claim give "evidence": the number of the passage that decides the verdict, or null when none does; and "confidence" between 0 and 1.',
  'Answer with JSON only: {"claims":[{"claim":string,"verdict":"supported"|"unsupported"|"contradicted","confidence":number,"evidence":number|null}]}.',
  DATA_NOT_INSTRUCTIONS,
].join('\n')

const renderEvidence = (e: Evidence) => `(${e.kind}${e.source ? `, source: ${e.source}` : ''}) ${e.text}`

export function reliabilityPrompt(output: string, evidence: Evidence[]): { prompt: string; shown: Evidence[] } {
  const L = RELIABILITY_LIMITS
  const { lines, shown } = numbered(evidence, renderEvidence, L.passageChars, L.evidenceChars, L.maxPassages)
  const prompt = [
    '<answer>',
    clip(output, L.outputChars),
    '</answer>',
    '<evidence>',
    ...(lines.length ? lines : ['(the agent retrieved no evidence)']),
    '</evidence>',
  ].join('\n')
  return { prompt, shown }
}

/** The model's answer as claims, with every passage number checked against what it was shown. */
export function claimsFromAnswer(answer: ReliabilityAnswer, shown: Evidence[]): Claim[] {
  const claims: Claim[] = []
  for (const a of answer.claims) {
    const text = a.claim.trim()
    if (!text) continue
    const ev = pick(shown, a.evidence)
    const verdict = ev ? a.verdict : 'unsupported'
    claims.push({
      claim: text,
      supported: verdict === 'supported',
      confidence: clamp01(a.confidence),
      evidence_span_id: ev ? ev.span_id : null,
      verdict,
      source: ev ? ev.source : null,
    })
    if (claims.length >= RELIABILITY_LIMITS.maxClaims) break
  }
  return claims
}

export async function llmContentReliability(view: TraceView, client: LlmClient): Promise<ContentReliability> {
  const out = finalOutput(view)
  // Nothing to grade: no reason to spend the organization's tokens.
  if (!out || !out.text.trim()) return { trace_id: view.trace_id, grade: '', score: null, claims: [], scorer_version: LLM_SCORER_VERSION }

  const { prompt, shown } = reliabilityPrompt(out.text, evidenceOf(view))
  const res = await client.generate(reliabilityAnswer, { system: SYSTEM, prompt, maxOutputTokens: RELIABILITY_LIMITS.maxOutputTokens }, ENGINE)
  const claims = claimsFromAnswer(res.object, shown)
  const { score, grade } = scoreClaims(claims)
  return { trace_id: view.trace_id, grade, score, claims, scorer_version: LLM_SCORER_VERSION }
}
