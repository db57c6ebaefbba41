/**
 * The combiner: the last word on each claim in the default mode. The rules (support.ts) each see one
 * kind of evidence and decide alone; the combiner weighs what they decided with what else is known
 * locally about the claim — the best word coverage by one statement, the sentence model's cosine to
 * the statements that cover it best, how many of its figures the evidence (and the user's request) states,
 * the dimensions of its figures, denial, length, how much evidence the trace has and how much of the
 * rest of the answer the rules backed — in a logistic regression fit on the development sets
 * (`pnpm eval:combiner --write`; combiner-weights.ts holds the fit). A claim is supported when the
 * predicted probability reaches the fit's threshold; otherwise it keeps a rule's "contradicted", or
 * is unsupported. Chosen over further rules because it carried over to traces nobody tuned on
 * (docs/engines.md, "The combiner"). What weighs most in the fit: how many figures the claim has and
 * how many the evidence states verbatim, which rule decided, whether its evidence is a tool result,
 * and how much of the rest of the answer the rules backed.
 *
 * It was fit on the default mode's signals, the sentence model's cosine and the rules' semantic
 * matches among them: a lexical judgement keeps the rules' verdicts.
 */
import type { Embedder } from '../semantic/types.js'
import { dot } from '../semantic/types.js'
import { coverage, readClaim } from './match.js'
import { embeddable } from './semantic.js'
import type { Dim, Quantity } from './quantity.js'
import type { Statement } from './statements.js'
import type { JudgeContext, Judgement } from './support.js'
import { fitLogistic, fitsSignals, type LogisticFit } from '../logistic.js'

const RULES = [
  'unsupported', 'quantity', 'derived', 'text', 'boolean-supported', 'boolean-contradicted', 'boolean-doubtful', 'conflict', 'relation', 'consequence', 'failure-report',
  'denied', 'failed-action', 'relation-false', 'relation-unread', 'action-unbacked', 'action-refused', 'conversion', 'entity-denied', 'entity-conflict', 'empty',
] as const
const DIMS: Dim[] = ['money', 'percent', 'duration', 'length', 'area', 'mass', 'volume', 'temperature', 'data', 'energy', 'speed', 'date', 'time', 'count', 'ratio']
const KINDS = ['document', 'tool_result', 'tool_error', 'message'] as const

/** The signals' names, in the order of a signal row (the fit records them, so a stale fit is refused). */
export const SIGNALS: readonly string[] = [
  ...RULES.map((r) => `rule:${r}`),
  'confidence', 'coverage', 'cosine', 'figures', 'no_figures', 'figures_in_evidence', 'figures_in_request',
  ...DIMS.map((d) => `dim:${d}`),
  'denial', 'log_words', 'log_statements', 'no_statements', 'tool_errors',
  ...KINDS.map((k) => `evidence:${k}`),
  'others_supported',
]

/** Statements whose cosine to a claim is read: those covering most of its words. */
const NEAREST = 6

export interface CombinerWeights extends LogisticFit {
  /** The judgement version of the rules the fit read: a rule change needs a new fit. */
  judgement: string
  /** Supported from this predicted probability on. */
  threshold: number
  /** The development sets the fit read, and how many claims. */
  fitted_on: string
  claims: number
}

export interface ClaimSignals {
  /** One row per claim, in SIGNALS order. */
  rows: number[][]
  /** Per claim, the statement the sentence model finds nearest (the evidence of a claim the combiner backs). */
  nearest: Array<Statement | null>
  embedded: number
}

const sameFigure = (q: Quantity, pool: Quantity[]) => pool.some((e) => e.dim === q.dim && Math.abs(e.value - q.value) <= Math.max(q.tol, e.tol, 1e-9))

/** The signals of each claim the rules judged; the claims and their nearest statements embedded in one call. */
export async function claimSignals(claims: Array<{ claim: string; judgement: Judgement }>, ctx: JudgeContext, embedder: Embedder): Promise<ClaimSignals> {
  const pool = ctx.statements.filter(embeddable)
  const evidenceFigures = ctx.statements.flatMap((s) => s.quantities)
  const requestFigures = ctx.request.flatMap((s) => s.quantities)
  const toolErrors = pool.some((s) => s.evidence.kind === 'tool_error') ? 1 : 0
  const supported = claims.filter((c) => c.judgement.verdict === 'supported').length
  const read = claims.map(({ claim }) => readClaim(claim))
  const near = read.map((c) => pool.map((s) => ({ s, cov: coverage(c, s) })).sort((a, b) => b.cov - a.cov).slice(0, NEAREST))
  const texts = new Map<string, number>()
  const at = (t: string) => texts.get(t) ?? (texts.set(t, texts.size), texts.size - 1)
  const claimAt = claims.map(({ claim }) => at(claim))
  const nearAt = near.map((ns) => ns.map((n) => at(n.s.text)))
  const vectors = claims.length ? await embedder.embed([...texts.keys()]) : []
  const nearest: Array<Statement | null> = []
  const rows = claims.map(({ claim, judgement }, i) => {
    const c = read[i]!
    const cosines = nearAt[i]!.map((k) => dot(vectors[claimAt[i]!]!, vectors[k]!))
    const best = cosines.length ? cosines.indexOf(Math.max(...cosines)) : -1
    nearest.push(best < 0 ? null : near[i]![best]!.s)
    const qs = c.quantities
    const share = (n: number) => (qs.length ? n / qs.length : 0)
    return [
      ...RULES.map((r) => (judgement.rule === r ? 1 : 0)),
      judgement.confidence,
      near[i]![0]?.cov ?? 0,
      best < 0 ? 0 : cosines[best]!,
      Math.min(qs.length, 5) / 5,
      qs.length ? 0 : 1,
      share(qs.filter((q) => sameFigure(q, evidenceFigures)).length),
      share(qs.filter((q) => sameFigure(q, requestFigures)).length),
      ...DIMS.map((d) => (qs.some((q) => q.dim === d) ? 1 : 0)),
      [...c.pol.values()].some(Boolean) ? 1 : 0,
      Math.log1p(claim.split(/\s+/).length),
      Math.log1p(pool.length),
      pool.length ? 0 : 1,
      toolErrors,
      ...KINDS.map((k) => (judgement.evidence?.kind === k ? 1 : 0)),
      (supported - (judgement.verdict === 'supported' ? 1 : 0)) / Math.max(1, claims.length - 1),
    ]
  })
  return { rows, nearest, embedded: texts.size }
}

/** A weight set fits these signals (same names, same order). */
export const fits = (w: CombinerWeights) => fitsSignals(w, SIGNALS)

/**
 * The combiner's verdict on a judged claim: supported at p ≥ threshold (with the rule's evidence, else the
 * nearest statement's), else the rule's "contradicted", else unsupported. Its confidence is the probability of
 * the side it took.
 */
export function combined(j: Judgement, p: number, nearest: Statement | null, w: CombinerWeights): Judgement {
  const q = Math.round(p * 1000) / 1000
  if (p >= w.threshold) return { verdict: 'supported', confidence: q, evidence: j.verdict === 'supported' ? j.evidence : (j.evidence ?? nearest?.evidence ?? null), rule: j.rule, combined: q }
  const against = Math.round((1 - p) * 1000) / 1000
  if (j.verdict === 'contradicted') return { ...j, confidence: against, combined: q }
  return { verdict: 'unsupported', confidence: against, evidence: null, rule: j.rule, combined: q }
}

/** One labelled claim for the fit: its signals and whether a person found it supported. */
export interface Example {
  x: readonly number[]
  supported: boolean
}

/** The combiner's fit on labelled claims (logistic.ts), with what it was fit on. */
export function fitCombiner(data: Example[], meta: Pick<CombinerWeights, 'judgement' | 'threshold' | 'fitted_on'>): CombinerWeights {
  return { ...meta, ...fitLogistic(data.map((e) => ({ x: e.x, y: e.supported })), SIGNALS), claims: data.length }
}
