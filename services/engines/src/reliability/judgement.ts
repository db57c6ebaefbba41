/**
 * One claim judgement per trace, shared by content_reliability, sources and
 * external_crosscheck. Each engine keeps its own consumer group, so each can run
 * (and scale) on its own; the judgement is a pure function of the trace's spans
 * and the judge's version, computed once per process and kept in a small cache
 * keyed by workspace, trace, a fingerprint of the spans and the judge version (and
 * whether the sentence model took part). Engines of one process (`pnpm start`, or
 * SVC_ENGINES listing several) share one computation; separate processes compute
 * the same judgement, never a different one. A re-opened trace has other spans,
 * hence another key: re-analysis never reads a stale judgement.
 */
import type { Embedder } from '../semantic/types.js'
import { Lru } from '../semantic/lru.js'
import type { TraceView } from '../trace-view.js'
import { CONTINUES, splitClaimsWithTopics, type SplitClaim } from './claims.js'
import { claimSignals, combined, fits, type CombinerWeights } from './combiner.js'
import { probability } from '../logistic.js'
import { COMBINER_WEIGHTS } from './combiner-weights.js'
import { evidenceOf, finalOutput, promptMessages } from './evidence.js'
import { dayKey, readClaim } from './match.js'
import { normalizeWs } from './text.js'
import { quantities } from './quantity.js'
import { semanticScores } from './semantic.js'
import { requestStatements, statementsOf, type Statement } from './statements.js'
import { CONFIDENCE, CONTRAST, judge, type JudgeContext, type Judgement } from './support.js'
import { offsetsIn } from './zones.js'
import { JUDGEMENT_VERSION } from '@svc/shared/domain/versions'

// (The version lives with the API's others: SCORER_VERSION carries it.)
export { JUDGEMENT_VERSION }

/**
 * Bounds on one trace's work, far above any answer of the labelled sets (at most a few dozen claims and a
 * hundred figures): an answer's first claims are judged, and the figures of its first stretch are operands.
 */
const MAX_CLAIMS = 200
const MAX_ANSWER_FIGURES = 400
/** An answer's figures are read from its first 20,000 characters (the longest labelled answer has 6,000). */
const MAX_ANSWER_CHARS = 20_000

/** The answer up to the last sentence or line that ends within the bound, so no figure is cut in two. */
function headOf(text: string): string {
  if (text.length <= MAX_ANSWER_CHARS) return text
  const cut = Math.max(text.lastIndexOf('. ', MAX_ANSWER_CHARS), text.lastIndexOf('\n', MAX_ANSWER_CHARS))
  return text.slice(0, cut > 0 ? cut + 1 : MAX_ANSWER_CHARS)
}

export interface TraceJudgement {
  answer: { text: string; span_id: string } | null
  claims: Array<{ claim: string; judgement: Judgement }>
  /** The statements the claims were judged against, and the user's words (for the LLM judge's pre-selection). */
  context: JudgeContext
  /** The sentence model took part (else the judgement is lexical). */
  semantic: boolean
  /** Texts the sentence model embedded for this trace. */
  embedded: number
}

/**
 * What the user asked, from the prompts' user messages and the root's input: yardsticks, not evidence.
 * A call about the answer (a title, a log summary) quotes it as its user message: those are not the user's words.
 */
function requestText(view: TraceView, answer: string): string {
  const out = new Set<string>()
  const head = normalizeWs(answer).slice(0, 80)
  const quotesAnswer = (t: string) => head.length >= 20 && normalizeWs(t).includes(head)
  for (const sp of view.spans) {
    if (sp.span_type === 'llm') for (const m of promptMessages(sp.content.prompt)) if ((m.role === 'user' || m.role === 'human') && !quotesAnswer(m.text)) out.add(m.text)
    if (!sp.parent_span_id) out.add(sp.attributes['input.value'] ?? sp.attributes['traceloop.entity.input'] ?? '')
  }
  return [...out].join('\n')
}

/** What every claim of a trace is judged against, prepared once. */
export function judgeContext(view: TraceView, answer: string): JudgeContext {
  const evidence = evidenceOf(view)
  return {
    statements: statementsOf(evidence),
    request: requestStatements(requestText(view, answer)),
    // (the first figures only: an answer of thousands of figures must not make every claim's arithmetic dearer)
    answerQuantities: quantities(headOf(answer)).slice(0, MAX_ANSWER_FIGURES),
    offsets: offsetsIn([...evidence.map((e) => e.text), answer]),
  }
}

const PRONOUN = /^\s*(?:it|its|it's|they|their|they're|this|that|these|those|he|she|his|her|the same)\b/i
/** A claim that names no entity and refers to one anywhere ("There's no known exploit for it", "the next slot there") is about the previous claim's. */
const REFERS = /\b(?:it|its|it's|they|them|their|they're|he|she|him|his|her)\b|(?<!^\s*|[,;:]\s*|\b(?:and|but|so|because|since|if|when|that|where|whether)\s+)\bthere\b/i
/** A claim that opens with its verb, its subject the previous claim's: "Runs 2½ hours", "Seats 380 theatre style". */
const SUBJECTLESS = /^\s*(?:runs|starts|ends|lasts|takes|costs|includes|opens|closes|holds|seats|sleeps|weighs|fits|offers|covers|needs|requires|arrives|departs|leaves|finishes|begins)\b/i
/** A claim that opens with its figures, as the side after a colon does. */
const FIGURES_FIRST = /^\s*[\d$€£]/
/** A claim that carries on the previous one's day: "that day", "and no new snow is forecast". */
const SAME_DAY = /\b(?:that|the same|this) (?:day|night|morning|afternoon|evening)\b|^\s*(?:and|but|so|then)\b/i

/**
 * The entity each claim is about, for claims that only refer to it: "It weighs 210 g" after "The Lite is
 * lighter than the Pro" is about the Lite (the first entity the previous claim named); and the day, for
 * claims that carry on the previous one's ("Expect 6 inches of snow that day" after "Saturday, December 19 …").
 */
function focusOf(claims: SplitClaim[], statements: Statement[]): Array<Set<string>> {
  const known = new Set(statements.flatMap((s) => [...s.owner]))
  let last = new Set<string>()
  let day: string[] = []
  return claims.map(({ claim, topic, intro, continues }) => {
    // "Unlike the lodash one, it …": the contrasted entity is not the one the claim is about.
    const c = readClaim(claim.replace(CONTRAST, ''))
    const named = [...c.terms.keys()].filter((t) => known.has(t))
    // A claim under a label naming an entity ("- Harbor Rewards Visa: … After the promo …") is about it.
    const labelled = [...readClaim(topic).terms.keys()].filter((t) => known.has(t))
    // So is an item of a list a line introduced naming one ("Good news, the Main Hall works for you:").
    const introduced = intro ? [...readClaim(intro).terms.keys()].filter((t) => known.has(t)) : []
    // (A clause that continues another keeps its entity beside those it names: "…, which is 6:00 am in New York".)
    if (named.length) last = continues || CONTINUES.test(claim) ? new Set([...last, ...named.slice(0, 2)]) : new Set(named.slice(0, 2))
    else if (labelled.length) last = new Set(labelled.slice(0, 2))
    else if (introduced.length) last = new Set(introduced.slice(0, 2))
    // Figures after a colon ("Marta Okafor has stepped up: 17 goals …") are the entity's before it.
    // (A phrase split off the clause before it, "…, with 1 TB for $99.90 a year", is about that clause's entity.)
    else if (!continues && !CONTINUES.test(claim) && !REFERS.test(claim) && !PRONOUN.test(claim) && !FIGURES_FIRST.test(claim) && !SUBJECTLESS.test(claim)) last = new Set()
    const days = c.quantities.filter((q) => q.dim === 'date').map(dayKey)
    if (days.length) day = days
    else if (!SAME_DAY.test(claim) && !PRONOUN.test(claim)) day = []
    return new Set([...(named.length ? [] : last), ...(days.length ? [] : day)])
  })
}

/** FNV-1a over the spans' ids, ends and statuses: a trace that gained or changed spans is another trace to judge. */
function fingerprint(view: TraceView): string {
  let h = 0x811c9dc5
  for (const s of view.spans) {
    const k = `${s.span_id}:${s.end_ms}:${s.status_code};`
    for (let i = 0; i < k.length; i++) h = Math.imul(h ^ k.charCodeAt(i), 0x01000193)
  }
  return (h >>> 0).toString(16)
}

/** The fit in use: none when it was fit on other rules than these (a test keeps that from shipping). */
const combiner: CombinerWeights | null = COMBINER_WEIGHTS.judgement === JUDGEMENT_VERSION && fits(COMBINER_WEIGHTS) ? COMBINER_WEIGHTS : null

async function compute(view: TraceView, embedder: Embedder | null, rulesOnly: boolean): Promise<TraceJudgement> {
  const answer = finalOutput(view)
  const split = answer ? splitClaimsWithTopics(answer.text, MAX_CLAIMS) : []
  const texts = split.map((c) => c.claim)
  const empty: JudgeContext = { statements: [], request: [], answerQuantities: [] }
  if (!answer || !texts.length) return { answer, claims: [], context: empty, semantic: embedder !== null, embedded: 0 }
  const ctx = judgeContext(view, answer.text)
  const focus = focusOf(split, ctx.statements)
  // (A table row is judged as read with its header: "Flex Mastercard: APR after 25.99%".)
  const readings = split.map((c) => c.reading ?? c.claim)
  // (A clause split off at what it adds, "which comes to $240", computes from the clause before it.)
  const contexts = readings.map((claim, i) => (i > 0 && (split[i]!.continues || CONTINUES.test(claim)) ? { ...ctx, lead: quantities(readings[i - 1]!) } : ctx))
  const lexical = readings.map((claim, i) => judge(claim, contexts[i]!, focus[i]))
  // Meaning is asked for where words were not enough: claims without figures that nothing backed lexically.
  const needs = lexical.map((j, i) => j.verdict === 'unsupported' && !quantities(readings[i]!).length)
  // A model that fails mid-run leaves this trace lexical rather than failing the job.
  const sem = await semanticScores(embedder, readings, ctx.statements, needs).catch(() => semanticScores(null, readings, ctx.statements, needs))
  const claims = withPremises(texts.map((claim, i) => ({ claim, judgement: needs[i] && embedder ? judge(readings[i]!, { ...contexts[i]!, similarity: sem.similarity[i] }, focus[i]) : lexical[i]! })))
  const rules = { answer, claims, context: ctx, semantic: embedder !== null, embedded: sem.embedded }
  return !embedder || rulesOnly || !combiner ? rules : withCombiner(rules, embedder, combiner)
}

/** The rules' judgement with the combiner's last word on each claim (combiner.ts); the rules' when the model fails. */
export async function withCombiner(rules: TraceJudgement, embedder: Embedder, w: CombinerWeights): Promise<TraceJudgement> {
  const signals = await claimSignals(rules.claims, rules.context, embedder).catch(() => null)
  if (!signals) return rules
  const claims = rules.claims.map(({ claim, judgement }, i) => ({ claim, judgement: combined(judgement, probability(w, signals.rows[i]!), signals.nearest[i]!, w) }))
  return { ...rules, claims, embedded: rules.embedded + signals.embedded }
}

/** A consequence drawn from the clause before it: "…, so it won't mount on your X-T5", "which means you're covered". */
const CONSEQUENCE = /^\s*(?:so|which means|that means|meaning|and so|therefore|hence)\b/i

/**
 * A consequence the answer draws from its premise has no evidence of its own: where it adds no figure and nothing
 * backed or denied it, it stands with the supported clause it follows, as a reader takes "X, so Y" whole.
 */
function withPremises(claims: TraceJudgement['claims']): TraceJudgement['claims'] {
  return claims.map((c, i) => {
    const premise = claims[i - 1]?.judgement
    if (!premise || premise.verdict !== 'supported' || c.judgement.rule !== 'unsupported' || !CONSEQUENCE.test(c.claim) || quantities(c.claim).length) return c
    return { claim: c.claim, judgement: { verdict: 'supported', confidence: CONFIDENCE.weak, evidence: premise.evidence, rule: 'consequence' } }
  })
}

const cache = new Lru<Promise<TraceJudgement>>(2048)

/**
 * The trace's claim judgement, computed once per process for all the engines that read it. `rulesOnly` leaves out
 * the combiner (the evaluation's comparison and its fit read the rules alone).
 */
export function judgeTrace(view: TraceView, embedder: Embedder | null, rulesOnly = false): Promise<TraceJudgement> {
  const key = `${JUDGEMENT_VERSION}|${embedder?.model ?? 'lexical'}|${rulesOnly ? 'rules' : 'combined'}|${view.workspace_id}|${view.trace_id}|${fingerprint(view)}`
  let hit = cache.get(key)
  if (!hit) {
    hit = compute(view, embedder, rulesOnly)
    cache.set(key, hit)
  }
  return hit
}

/** Evidence statements ranked for one claim: the judge's choice first, then by shared words (the LLM judge's pre-selection). */
export function rankedStatements(j: TraceJudgement, i: number, k: number): Statement[] {
  const claim = j.claims[i]
  if (!claim) return []
  const terms = new Set([...claim.claim.toLowerCase().matchAll(/[a-z0-9]{3,}/g)].map((m) => m[0].slice(0, 5)))
  const score = (s: Statement) => [...s.text.toLowerCase().matchAll(/[a-z0-9]{3,}/g)].filter((m) => terms.has(m[0].slice(0, 5))).length
  const first = claim.judgement.evidence
  return [...j.context.statements]
    .filter((s) => s.text.length <= 600)
    .map((s) => ({ s, n: score(s) + (s.evidence === first ? 100 : 0) }))
    .filter((x) => x.n > 0)
    .sort((a, b) => b.n - a.n)
    .slice(0, k)
    .map((x) => x.s)
}
