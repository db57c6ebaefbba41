/**
 * Does the trace's evidence back a claim? The claim is compared with the evidence
 * statements (statements.ts, facts.ts) along the failure classes of a word-matching
 * judge, in this order:
 *
 * 1. failures: a tool error (or an action a result declined) backs an honest
 *    report of it;
 * 2. relations ("cheaper than", "above the range", "the first") are evaluated
 *    (relations.ts), never taken as true because both figures appear;
 * 3. JSON booleans are the polarity of their key (flags.ts);
 * 4. figures by value (quantity.ts) in a statement about the same entity, within
 *    a bound ("under half an hour"), or computed from the trace's figures
 *    (figures.ts, arithmetic.ts);
 * 5. words: coverage by a statement (or a pair of one source's), or meaning by the
 *    sentence model; negation by scope (polarity.ts);
 * 6. entities: a statement about one product, plan or person never backs a claim
 *    naming another; a fact among sibling options backs a claim only if the claim
 *    names the option (or the entity the answer's previous sentence named, when
 *    this one says "it").
 *
 * `contradicted` needs a conflict about the same entity: another value of the
 * figure's attribute for the claim's entity, a denied predicate or flag, a false
 * relation, or an action whose only call failed. Anything else that is not backed
 * is `unsupported` (abstaining keeps precision). A semantic similarity (the local
 * sentence model, when loaded) widens what "aligned" means for paraphrases;
 * without it the judge is lexical. Confidences are per rule, calibrated on the
 * development sets (docs/engines.md).
 */
import type { Evidence } from './evidence.js'
import { actionVerdict } from './actions.js'
import { backFigures, chargedFor, conflicting, measureField, toolWords, yearLike } from './figures.js'
import { flagVerdict } from './flags.js'
import { SEMANTIC_SUPPORT, alignment, bestStatement, coverage, figureWordsMeet, namesOwner, numberedIn, readClaim, termIn, wordsMeet, type Claim } from './match.js'
import { polarity } from './polarity.js'
import { nearMiss, sameValue, satisfies } from './compare.js'
import type { Quantity } from './quantity.js'
import { COMPARATIVE, relation } from './relations.js'
import { sameRecord, statementsOf, type Statement } from './statements.js'
import { stem } from './text.js'

export type Verdict = 'supported' | 'unsupported' | 'contradicted'

export interface Judgement {
  verdict: Verdict
  confidence: number
  evidence: Evidence | null
  /** Which rule decided, for the reliability diagram and debugging. */
  rule: string
  /** The combiner's probability that the claim is supported (combiner.ts), when it had the last word. */
  combined?: number
}

export interface JudgeContext {
  statements: Statement[]
  /** The user's words: operands and yardsticks, never support. */
  request: Statement[]
  /** Figures stated elsewhere in the answer (a chain of arithmetic). */
  answerQuantities: Quantity[]
  /**
   * The figures of the clause this claim continues ("…against 1,470 g for the Larchmont, a saving of 280 g"): its
   * operands, where the evidence gives them, whatever entity the evidence gives them for.
   */
  lead?: Quantity[]
  /** Offsets from UTC (minutes) the trace names, for times shown in a zone. */
  offsets?: number[]
  /** Similarity of the claim to a statement (0-1), from the sentence model; absent in lexical mode. */
  similarity?: (s: Statement) => number
}

/**
 * Confidence per rule: the share of the development sets' claims each rule got right (supported or not, as the
 * calibration counts it), rounded down; recomputed in round 8 over old, v2, v3, v4, v5 and v6 (docs/engines.md).
 */
export const CONFIDENCE = {
  quantity: 0.94,
  quantityLoose: 0.87,
  derived: 0.8,
  boolean: 0.94,
  booleanDenied: 0.78,
  text: 0.85,
  textLoose: 0.64,
  relation: 0.88,
  relationFalse: 0.81,
  failureReport: 0.9,
  conflict: 0.82,
  denied: 0.69,
  failedAction: 0.9,
  nothing: 0.74,
  weak: 0.52,
} as const

/**
 * Arithmetic meets a figure of few significant digits by chance more often ("1 hour", "36 hours", "5%"): the share
 * the development sets got right, by the most significant digits a computed figure of the claim has (≤1, 2, 3, 4+).
 */
const DERIVED_BY_DIGITS = [0.68, 0.68, 0.75, 0.83, 0.87] as const
function derivedConfidence(c: Claim, found: unknown[]): number {
  const digits = Math.max(0, ...c.quantities.filter((_, i) => found[i] === 'derived').map((q) => significantDigits(c, q)))
  return DERIVED_BY_DIGITS[Math.min(digits, 4)]!
}

/** The significant digits of a figure as the claim writes it: "$1,380.75" has six, "$250" two, "0.5" one. */
const significantDigits = (c: Claim, q: Quantity) => c.text.slice(q.index, q.end).replace(/\D/g, '').replace(/^0+|0+$/g, '').length

/** Figures of one claim that are checked (no claim of the labelled sets has more than a dozen). */
const MAX_CLAIM_FIGURES = 24
const SUPPORT_COVERAGE = 0.6
const ALIGN_COVERAGE = 0.5

const FAILURE_REPORT = /\b(?:tried to|attempted to|could not|couldn't|can't|cannot|unable|wasn't able|weren't able|was not able|failed|failing|isn't responding|not responding|didn't go through|did not go through|is down|are down|went down|unavailable|error|timed out|time(?:d)? ?out|not (?:available|reachable)|isn't available|no response|declined|rejected|rate-limit\w*|wasn't possible|not possible|try again|retry)\b/i
/** Kinds of failure, as a report says them and as an error does: "timed out" is a TimeoutError, "rate-limited" a 429. */
const FAILURE_KINDS: Array<[RegExp, RegExp]> = [
  [/\btim(?:ed|es|ing)?[ -]?out\b|\btimeout\b/i, /\btime(?:d)?[ -]?out|timeout|deadline exceeded|\b504\b|did not respond|no response/i],
  [/\brate[ -]?limit\w*|\bthrottl\w*|too many requests/i, /rate[ -_]?limit|\b429\b|too many requests|throttl/i],
  [/\b(?:unavailable|is down|was down|went down|outage)\b/i, /\b50[23]\b|unavailable|bad gateway|connection refused/i],
  [/\b(?:declined|rejected|refused)\b/i, /declin|reject|refus|\b402\b/i],
]
/** The report names the kind of failure the error is. */
const sameFailure = (claim: string, error: string) => FAILURE_KINDS.some(([said, seen]) => said.test(claim) && seen.test(error))

/** A claim that something was done ("I've opened a dispute", "your rental is confirmed"), not how things usually go. */
const ACTION = /\b(?:I|we)(?:'ve|'d| have| had)?\s+(?:\w+\s+){0,2}?\w+(?:ed|ent|ade|one|ut|et|ook|ew)\b|\b(?:has|have) been\b|\b(?:is|are|was|were) (?:now |already |all |successfully )?(?:\w+ed|done|set|sent|made)\b|\b(?:confirmed|booked|scheduled|placed|submitted|completed|finished|posted|took|made|sent|gave|paid|applied)\b/i
/** A claim about all the items of a list together. */
const AGGREGATE = /\b(?:overall|total|totals|combined|altogether|all together|together|between them|across (?:all|the)|in all|sum)\b/i
/** How things usually go, not what happened here. */
const GENERIC = /\b(?:usually|typically|generally|normally|often|always)\b/i
/** "Unlike the lodash one, it …": the contrasted entity is not what the claim is about. */
export const CONTRAST = /^\s*(?:unlike|compared (?:with|to)|in contrast to|as opposed to)\s+[^,]{1,60},\s*/i

/** A result's field that says what became of the whole record. */
const STATUS_KEY = /^(?:status|state|outcome|decision|verdict)$/i

const round = (x: number) => Math.round(x * 1000) / 1000

/** The claim names this statement's owner (or its focus does), or names no competing one. */
function entityFits(c: Claim, s: Statement, known: Set<string>, focus: Set<string>): boolean {
  if (namesOwner(c, s, focus, known)) return true
  // A claim about all the items together ("overall", "total", "combined") may add up each item's fact.
  if (s.ambiguousOwner) return s.siblings !== undefined && AGGREGATE.test(c.text)
  if (!s.owner.size) return true
  // The claim names another known entity, and not this one: a mix-up.
  return ![...c.entities].some((e) => known.has(e) && !termIn(e, s.owner))
}

const deniesSomething = (pol: Map<string, boolean>) => [...pol.values()].some(Boolean)
/**
 * A denial that asserts: the alternative set aside ("drier than normal, not wetter") and the time of the last event
 * ("it hasn't synced since 16 July" says it last synced then).
 */
// (One optional run of spaces before the stop: two adjacent ones would try every split of a long run.)
const ASSERTS_BY_DENIAL = /,\s*(?:and\s+)?not\s+\w+(?:\s*[.!])?\s*$|\b(?:hasn't|haven't|hadn't|has not|have not|had not)\s+(?:\w+\s+)?\w+\s+since\b/i

/**
 * A predicate both state with opposite polarity (owners aside: they are the subject, not the predicate), where one
 * side denies something and the other nothing. Where both deny, their denials may fall on other words of one
 * proposition: "You can't bring your pet into the cabin" and "Pets are not allowed in the cabin".
 */
function denies(c: Claim, s: Statement): boolean {
  if (deniesSomething(c.pol) === deniesSomething(s.pol) || ASSERTS_BY_DENIAL.test(c.text)) return false
  for (const [t, neg] of c.pol) {
    if (s.owner.has(t) || c.entities.has(t)) continue
    for (const [u, sneg] of s.pol) if ((t === u || (t.length >= 4 && u.length >= 4 && termIn(t, new Set([u])))) && sneg !== neg) return true
  }
  return false
}

/**
 * The statement denies the claim within the clause that lines up with it best: a
 * denial elsewhere in the sentence ("…, closed Sunday"), or in a clause about
 * another entity ("The north loop is closed. The south loop remains open." for the
 * south loop), is about something else.
 */
function deniedSegment(c: Claim, s: Statement): boolean {
  if (s.boolean) return false
  if (!/[,;]|\.\s/.test(s.text)) return denies(c, s)
  const segs = s.text
    .split(/[,;]|\.\s+/)
    .map((part) => polarity(part))
    .filter((pol) => pol.size)
    .map((pol) => ({ ...s, pol, terms: new Map([...pol.keys(), ...s.owner].map((t) => [t, 1])) }))
    .map((seg) => ({ seg, cov: coverage(c, seg, s.owner) }))
  const best = Math.max(ALIGN_COVERAGE, ...segs.map((x) => x.cov))
  return segs.some((x) => x.cov >= best && denies(c, x.seg))
}

const namesMemo = new WeakMap<Statement[], { known: Set<string>; attributes: Set<string> }>()
/** The names the evidence has facts about, and the words its keys use, once per trace (every claim asks). */
function namesIn(statements: Statement[]) {
  let hit = namesMemo.get(statements)
  if (!hit) {
    const known = new Set(statements.flatMap((s) => (s.lowercaseOwner ? [] : [...s.owner])))
    const attributes = new Set(statements.flatMap((s) => (s.key ? [...readClaim(s.key).terms.keys()] : [])))
    namesMemo.set(statements, (hit = { known, attributes }))
  }
  return hit
}

/**
 * Statements one claim is judged against, at most (the labelled sets' largest trace has under a hundred): past it,
 * a claim meets those sharing most of its words, and those holding one of its figures, so a result of a
 * hundred thousand facts costs each claim a bounded amount of work.
 */
const MAX_STATEMENTS = 1000
function nearest(c: Claim, statements: Statement[]): Statement[] {
  if (statements.length <= MAX_STATEMENTS) return statements
  const score = (s: Statement) => coverage(c, s) + (c.quantities.some((q) => s.quantities.some((e) => satisfies(q, e))) ? 1 : 0)
  return statements
    .map((s, i) => ({ s, i, k: s.evidence.kind === 'tool_error' ? Infinity : score(s) }))
    .sort((a, b) => b.k - a.k || a.i - b.i)
    .slice(0, MAX_STATEMENTS)
    .sort((a, b) => a.i - b.i)
    .map((x) => x.s)
}

function judgeWith(c: Claim, all: JudgeContext, focus: Set<string>): Judgement {
  // Entities the evidence has facts about: a claim naming one of them is about it, however it is written;
  // not a word the results also use as an attribute: "charging" names no "Green River Fast Charge" beside "charge: 18 min".
  const { known, attributes } = namesIn(all.statements)
  const near = nearest(c, all.statements)
  const ctx = near === all.statements ? all : { ...all, statements: near }
  // (The names the claim writes as names, "SAVE15", "Kestrel": a call's arguments are tied to it only by those.)
  const written = new Set(c.entities)
  for (const t of c.terms.keys()) if (known.has(t) && !attributes.has(t)) c.entities.add(t)
  const named = (s: Statement) => namesOwner(c, s, focus, known)
  const results = ctx.statements.filter((s) => s.evidence.kind !== 'tool_error')
  const errors = ctx.statements.filter((s) => s.evidence.kind === 'tool_error')
  const fitting = results.filter((s) => entityFits(c, s, known, focus))
  // Records no name tells apart (rows keyed by a month, a list of readings) are the claim's when one of their fields
  // holds one of its figures written with four significant digits or more, which no other record shares by chance:
  // "GMV: €2,015,750, up 9.4% from €1,842,300" reads both months' rows ("4.20%" or "$250" could be anyone's).
  const distinctive = c.quantities.filter((q) => q.dim !== 'date' && q.dim !== 'time' && significantDigits(c, q) >= 4)
  // (or named ones, where the claim names no entity at all: "Your payment would drop from $2,551.96 to $2,297.36")
  const anonymous = focus.size === 0 && ![...c.entities].some((e) => known.has(e)) && ![...known].some((o) => numberedIn(o, c.text))
  const unnamed = (s: Statement) => s.ambiguousOwner && (anonymous || [...s.owner].every((o) => /^[\d-]+$/.test(o)))
  const rowsOf = new Set(results.filter((s) => unnamed(s) && s.quantities.some((e) => distinctive.some((q) => sameValue(q, e)))).map((s) => s.evidence))
  const usable = rowsOf.size ? [...fitting, ...results.filter((s) => unnamed(s) && rowsOf.has(s.evidence) && !fitting.includes(s))] : fitting

  // Failures: a tool error backs an honest report of it and denies a claim that the action happened.
  // A claim names a call by its tool's words ("I've opened a dispute": open_dispute), or shares the error's words.
  const byName = (s: Statement) => {
    const tool = [...toolWords(s.evidence).keys()].filter((t) => !/^(?:get|fetch|list|check|run|do|call|api|tool)$/.test(t))
    return tool.length >= 1 && tool.filter((t) => [...c.terms.keys()].some((u) => wordsMeet(t, u))).length >= Math.min(2, tool.length)
  }
  // The call's arguments tie a claim to it only by a name or code the claim gives ("SAVE15"), not by common words.
  const byArgument = (s: Statement) => [...written].some((e) => termIn(e, readClaim(s.evidence.about ?? '').terms))
  const errorFit = (s: Statement) => Math.max(byName(s) ? 0.6 : 0, byArgument(s) ? 0.5 : 0, sameFailure(c.text, s.text) ? 0.5 : 0, coverage(c, s))
  const bestError = errors.map((s) => ({ s, fit: errorFit(s), byName: byName(s) })).sort((a, b) => b.fit - a.fit)[0]
  if (FAILURE_REPORT.test(c.text) && bestError) {
    // The report's words meet the error's, or its figures are the error's ("try again in a minute": retry after 60 s).
    const figures = c.quantities.filter((q) => q.dim !== 'count')
    const byFigures = figures.length > 0 && figures.every((q) => bestError.s.quantities.some((e) => satisfies(q, e)))
    if (bestError.fit >= 0.25 || byFigures) {
      const ok = c.quantities.every((q) => errors.some((s) => s.quantities.some((e) => satisfies(q, e))) || q.dim === 'count')
      if (ok) return { verdict: 'supported', confidence: CONFIDENCE.failureReport, evidence: bestError.s.evidence, rule: 'failure-report' }
    }
  }

  // A claim that the action a failed call was for happened (or that its lookup found something), where that tool
  // never succeeded: the failure decides, whatever a document says about such actions in general.
  const failed = !FAILURE_REPORT.test(c.text) && !GENERIC.test(c.text) && bestError ? bestError : undefined
  const retried = failed && results.some((s) => s.evidence.kind === 'tool_result' && s.evidence.source === failed.s.evidence.source)
  if (failed && !retried && failed.byName && ACTION.test(c.text))
    return { verdict: 'contradicted', confidence: CONFIDENCE.failedAction, evidence: failed.s.evidence, rule: 'failed-action' }

  // A claim that the agent did something needs a call that did it.
  const action = actionVerdict(c, results)
  if (action?.verdict === 'contradicted') return { verdict: 'contradicted', confidence: CONFIDENCE.failedAction, evidence: action.s.evidence, rule: 'action-refused' }
  if (action) return { verdict: 'unsupported', confidence: CONFIDENCE.nothing, evidence: null, rule: 'action-unbacked' }

  // JSON booleans: the key is the predicate, the value its polarity.
  // A zero amount or count denies its key, which a claim stating the zero itself agrees with: "the duty rate is 0%"
  // is judged by its figure, not denied by "duty_eur": 0.
  const read = flagVerdict(c, results, known, focus)
  const flag = read && (read.s.free || read.s.absent) && c.quantities.some((q) => q.value === 0) ? null : read
  if (flag?.verdict === 'contradicted') return { verdict: 'contradicted', confidence: CONFIDENCE.booleanDenied, evidence: flag.s.evidence, rule: 'boolean-contradicted' }
  const fee = chargedFor(c, usable)
  if (fee) return { verdict: 'contradicted', confidence: CONFIDENCE.conflict, evidence: fee.evidence, rule: 'conflict' }
  // Relations are evaluated, never assumed from shared figures.
  const rel = relation(c.text, [...usable, ...ctx.request], ctx.statements)
  if (rel?.figures) {
    // Both sides' figures stated: the first is the claim's entity's, the other some value in the evidence (another
    // entity's), and the claim's other measured figures are backed as usual.
    const [l, r] = rel.figures
    const { found } = backFigures(c, ctx, usable)
    const own = c.quantities.some((q, i) => sameValue(q, l) && found[i] !== null && found[i] !== 'request')
    const other = results.some((s) => s.quantities.some((e) => satisfies(r, e)))
    const rest = c.quantities.every((q, i) => q.dim === 'count' || found[i] !== null || sameValue(q, r))
    const ev = bestStatement(c, usable, ctx.similarity)?.evidence ?? null
    // The first figure is the evidence's for the entity the other side names ("at 14.6 km² against Morteratsch's
    // 14.9 km²", where 14.6 km² is Morteratsch's): the sides are swapped.
    const otherNames = readClaim(rel.other ?? '').terms
    const swapped = c.quantities.some((q, i) => {
      const f = found[i]
      return sameValue(q, l) && typeof f === 'object' && f !== null && [...f.s.owner].some((o) => termIn(o, otherNames))
    })
    if (own && other && rest && ev && swapped) return { verdict: 'contradicted', confidence: CONFIDENCE.conflict, evidence: ev, rule: 'entity-conflict' }
    if (own && other && rest && ev) return { verdict: rel.holds ? 'supported' : 'contradicted', confidence: rel.holds ? CONFIDENCE.relation : CONFIDENCE.relationFalse, evidence: ev, rule: rel.holds ? 'relation' : 'relation-false' }
  } else if (rel) {
    // Years name the sides ("2024 was warmer than 2023"): they are no figures to back.
    const figures = c.quantities.length ? backFigures(c, ctx, usable).found.every((f, i) => f !== null || yearLike(c.quantities[i]!)) : true
    const ev = rel.s?.evidence ?? bestStatement(c, usable, ctx.similarity)?.evidence ?? null
    if (!rel.holds && ev) return { verdict: 'contradicted', confidence: CONFIDENCE.relationFalse, evidence: ev, rule: 'relation-false' }
    if (rel.holds && figures && ev) return { verdict: 'supported', confidence: CONFIDENCE.relation, evidence: ev, rule: 'relation' }
  } else if (COMPARATIVE.test(c.text) && !c.quantities.length) {
    // A comparison that could not be read is not taken as true because its words appear.
    return { verdict: 'unsupported', confidence: CONFIDENCE.weak, evidence: null, rule: 'relation-unread' }
  }

  if (flag?.verdict === 'doubtful') return { verdict: 'unsupported', confidence: CONFIDENCE.nothing, evidence: null, rule: 'boolean-doubtful' }
  // Where the claim's figures are backed: computed once, for the flags below and the figures after them.
  let figures: ReturnType<typeof backFigures> | undefined
  const backed = () => (figures ??= backFigures(c, ctx, usable))
  // A flag backs a claim with figures too when each of them is the evidence's or the user's ("They aren't stackable,
  // but 12 floor positions fit in the 26 available").
  // (Not a figure computed by chance where the result gives the measure another value: "your £15,000 advance has
  // earned out" against "advance_amount": 12000, "earned_out": true.)
  const conflicted = (f: unknown, i: number) => f === 'derived' && measureField(c, c.quantities[i]!, usable) !== null
  if (flag && (!c.quantities.length || backed().found.every((f, i) => f !== null && !conflicted(f, i))))
    return { verdict: 'supported', confidence: CONFIDENCE.boolean, evidence: flag.s.evidence, rule: 'boolean-supported' }

  if (c.quantities.length) {
    const { found, anchor } = backed()
    for (let i = 0; i < c.quantities.length; i++) {
      const q = c.quantities[i]!
      // (A misreading of a value the evidence gives for what the claim is about: "assessed at $421,000" for 412000.)
      const misread = () => usable.find((s) => s.quantities.some((e) => nearMiss(q, e)))
      const s = found[i] === 'derived' ? (measureField(c, q, usable) ?? misread() ?? null) : null
      if (s) return { verdict: 'contradicted', confidence: CONFIDENCE.conflict, evidence: s.evidence, rule: 'conflict' }
    }
    // A figure only the user gave backs nothing (a yardstick): it may only be converted, below, or restated in other
    // units beside figures the evidence backs ("At 5'10" (about 178 cm) you're in the Medium range, 170 to 180 cm").
    const someBacked = found.some((f) => typeof f === 'object' && f !== null)
    const written = (q: Quantity) => c.text.slice(q.index, q.end).replace(/[\d.,\s]/g, '')
    const restated = (i: number) => c.quantities.some((o, j) => j !== i && o.dim === c.quantities[i]!.dim && written(o) !== written(c.quantities[i]!) && sameValue(c.quantities[i]!, o))
    // (Or it is the operand of a figure the claim computed: "On $10,000, the CD at 4.35% would earn about $435".)
    const computed = found.includes('derived')
    if (found.every((f, i) => f !== null && (f !== 'request' || (someBacked && (restated(i) || computed))))) {
      const a = anchor ?? bestStatement(c, usable, ctx.similarity)
      const cov = a ? alignment(c, a, ctx.similarity) : 0
      if (a && deniedSegment(c, a)) return { verdict: 'contradicted', confidence: CONFIDENCE.denied, evidence: a.evidence, rule: 'denied' }
      const derived = found.some((f) => f === 'derived')
      const loose = found.some((f) => f !== null && typeof f === 'object' && !f.exact)
      // A measured figure (not a bare count) equal by value is rarely a coincidence; its words may differ entirely
      // ("412 MB" for size_bytes). Round prices are: in text an amount needs a word in common ("€60" for pets is not
      // "€60 at the airport").
      const measured = c.quantities.some((q, i) => {
        const f = found[i]
        if (typeof f !== 'object' || f === null) return false
        // (A count too, of two digits or more, under a key its own words name: "it takes 380 theatre style"; not a
        // number that is part of a name, "ECON 101", "Fixed 12".)
        if (q.dim === 'count' && !q.per) return f.exact && f.s.key !== undefined && q.value >= 10 && !yearLike(q) && !NAME_BEFORE.test(c.text.slice(0, q.index)) && figureWordsMeet(c, q, f.s)
        return f.s.key !== undefined || q.dim !== 'money' || coverage(c, f.s) >= 0.15 || figureWordsMeet(c, q, f.s)
      })
      if (a && (cov >= 0.3 || derived || measured)) {
        const conf = derived ? derivedConfidence(c, found) : loose || cov < SUPPORT_COVERAGE ? CONFIDENCE.quantityLoose : CONFIDENCE.quantity
        return { verdict: 'supported', confidence: conf, evidence: a.evidence, rule: derived ? 'derived' : 'quantity' }
      }
    }
    // The user's own figure converted ("120 km is about 75 miles"): arithmetic on the request, not a claim about the world.
    // (Two figures of one dimension, one the user's: "four" guests and "8 pm" both from the request are no conversion.)
    const converted = c.quantities.length >= 2 && found.every((f, i) => f === 'request' || c.quantities.some((o, j) => j !== i && o.dim === c.quantities[i]!.dim && sameValue(c.quantities[i]!, o)))
    const about = bestStatement(c, usable, ctx.similarity)
    const pairOfOneDim = c.quantities.some((q, i) => found[i] === 'request' && c.quantities.some((o, j) => j !== i && o.dim === q.dim))
    if (converted && pairOfOneDim && about) return { verdict: 'supported', confidence: CONFIDENCE.derived, evidence: about.evidence, rule: 'conversion' }
    // A figure nothing backs, where a statement about the same thing gives another value.
    for (let i = 0; i < c.quantities.length; i++) {
      if (found[i] !== null && found[i] !== 'request') continue
      const s = conflicting(c, c.quantities[i]!, usable, ctx, named)
      if (s) return { verdict: 'contradicted', confidence: CONFIDENCE.conflict, evidence: s.evidence, rule: 'conflict' }
      // The same figure stated for another entity: a mix-up.
      const other = results.find((x) => !usable.includes(x) && x.quantities.some((e) => sameValue(c.quantities[i]!, e)) && coverage(c, x, x.owner) >= ALIGN_COVERAGE)
      if (other) {
        const own = results.filter((x) => usable.includes(x) && x.owner.size && coverage(c, x, x.owner) >= ALIGN_COVERAGE)
        const s2 = own.find((x) => x.quantities.some((e) => e.dim === c.quantities[i]!.dim))
        if (s2) return { verdict: 'contradicted', confidence: CONFIDENCE.conflict, evidence: s2.evidence, rule: 'entity-conflict' }
      }
    }
  } else {
    // A fact backs words only by its value: "governing law: Delaware" says nothing for "governed by English law",
    // though its entity and key are all the claim's words but one; nor does a count of a list's values.
    // The sentence model may still read the value as the claim's ("English law": "England and Wales").
    // A zero ("checked_bags": 0) backs only a denial, which the flags above judged: its words back nothing here.
    const claimDenies = deniesSomething(c.pol)
    const worded = usable
      .filter((x) => !x.tally && !x.absent && !x.free && (!valueUnsaid(c, x) || ((ctx.similarity?.(x) ?? 0) >= SEMANTIC_SUPPORT && !namesOtherValue(c, x))))
      // A flag says yes or no: it backs by its words only a claim that says the same ("Content ID isn't enabled" is no
      // reading of "youtube_content_id": true).
      .filter((x) => !x.boolean || (x.flag !== false) === !claimDenies)
      // A call's status speaks for the call: "status": "sent" of send_reset_link is "a reset link was sent".
      .map((x) => (x.key && STATUS_KEY.test(x.key) && x.evidence.kind === 'tool_result' && !x.owner.size ? { ...x, terms: new Map([...x.terms, ...toolWords(x.evidence)]) } : x))
    const s = bestStatement(c, worded, ctx.similarity)
    const pair = s ? pairCoverage(c, worded, s) : null
    const cov = s ? Math.max(alignment(c, s, ctx.similarity), pair?.cov ?? 0) : 0
    if (s && cov >= SUPPORT_COVERAGE) {
      // A pair backs the claim only as a whole: a denial in either half ("claim id: HC-55821" + "status: denied") denies
      // it. Of a result's fields only its status speaks for the whole record ("renews on" beside it may be stale).
      const partner = pair && pair.cov > alignment(c, s, ctx.similarity) && (pair.s.key === undefined || STATUS_KEY.test(pair.s.key)) ? pair.s : null
      // Nor does a field of the record back a claim its status denies: "approver: Dev Anand" beside "status:
      // pending_approval" is no approval by Dev Anand.
      const status = usable.find((x) => x !== s && x.evidence === s.evidence && x.key !== undefined && STATUS_KEY.test(x.key) && sameRecord(x, s) && denies(c, x) && saysDone(c, x))
      if (deniedSegment(c, s) || (partner && deniedSegment(c, partner)) || status) return { verdict: 'contradicted', confidence: CONFIDENCE.denied, evidence: s.evidence, rule: 'denied' }
      if (otherCode(c.text, s.text)) return { verdict: 'contradicted', confidence: CONFIDENCE.conflict, evidence: s.evidence, rule: 'conflict' }
      // (Where the best statement's evidence never writes an identifier of the claim, one whose evidence does may back it.)
      const unwritten = unwrittenCodes(c.text, results)
      const named = unwritten(s) ? bestStatement(c, worded.filter((x) => !unwritten(x)), ctx.similarity) : s
      const namedCov = named === s ? cov : named ? alignment(c, named, ctx.similarity) : 0
      if (named && namedCov >= SUPPORT_COVERAGE) return { verdict: 'supported', confidence: namedCov >= 0.8 ? CONFIDENCE.text : CONFIDENCE.textLoose, evidence: named.evidence, rule: 'text' }
    }
    // The claim's predicate said of another entity: "Loratadine can cause marked drowsiness".
    const own = usable.filter((x) => x.owner.size && named(x) && !x.boolean && denies(c, x) && coverage(c, x) >= 0.4)
    if (own.length) return { verdict: 'contradicted', confidence: CONFIDENCE.denied, evidence: own[0]!.evidence, rule: 'entity-denied' }
  }

  // A claim that an action happened, where the only call about it failed.
  // (The call named by its tool's words, or the claim saying something was done.)
  if (failed && !retried && (failed.byName || ACTION.test(c.text)) && failed.fit >= ALIGN_COVERAGE) {
    const backed = bestStatement(c, usable, ctx.similarity)
    if (!backed || alignment(c, backed, ctx.similarity) < SUPPORT_COVERAGE)
      return { verdict: 'contradicted', confidence: CONFIDENCE.failedAction, evidence: failed.s.evidence, rule: 'failed-action' }
  }
  const best = bestStatement(c, results, ctx.similarity)
  const cov = best ? alignment(c, best, ctx.similarity) : 0
  return { verdict: 'unsupported', confidence: cov < 0.3 ? CONFIDENCE.nothing : CONFIDENCE.weak, evidence: null, rule: 'unsupported' }
}

/** The claim says a step the status denies was done ("approved"), not merely names it ("the approver"). */
const saysDone = (c: Claim, status: Statement) =>
  [...c.text.matchAll(/\b[a-z]+ed\b/gi)].some((m) => [...status.pol].some(([t, denied]) => denied && termIn(stem(m[0]), new Set([t]))))

/** A code of letters and a number: SEV-3, P1, T-112, SC-3391. */
const CODE = /\b([A-Za-z]{1,5})-?(\d{1,5})\b/g
/** A capitalised word right before a number makes the number part of a name: "ECON 101", "Fixed 12", "Line 3". */
const NAME_BEFORE = /\b[A-Z][A-Za-z]*\s+$/

/** An identifier as a claim writes one: "KHPN", "WO-5521", "BP-28-00417" (four capitals, or capitals with digits). */
const IDENTIFIER_WORD = /(?<![\w-])(?:[A-Z]{4}|(?=[A-Z0-9-]*[A-Z])(?=[A-Z0-9-]*\d)[A-Z0-9][A-Z0-9-]{2,})(?![\w-])/g

/** A reference given in passing: "(confirmation EXC-55120)", "reference PO-77120". */
const REFERENCE_BEFORE = /(?:\(\s*(?:\w+\s+){0,2}|\b(?:confirmation|reference|ref|booking|order|ticket|case|number|no\.?|id|#)\s*:?\s*)\**$/i

/**
 * The statements whose evidence never writes an identifier the claim names: "KHPN is one of the airports where
 * special VFR is prohibited" is not what a note on special VFR says, however many of its words it shares. (A
 * reference given in passing, "(confirmation EXC-55120)", is the trace's: any of its results may write it.) The
 * claim's identifiers are read once, and each evidence's text once, however many statements it holds.
 */
function unwrittenCodes(claim: string, all: Statement[]): (s: Statement) => boolean {
  const codes = [...claim.matchAll(IDENTIFIER_WORD)].map((m) => ({ code: m[0].toUpperCase(), reference: REFERENCE_BEFORE.test(claim.slice(Math.max(0, m.index! - 40), m.index)) }))
  if (!codes.length) return () => false
  const texts = new Map<Evidence, string>()
  const written = (x: Statement) => {
    let t = texts.get(x.evidence)
    if (t === undefined) texts.set(x.evidence, (t = `${x.evidence.text} ${x.evidence.source ?? ''} ${x.evidence.about ?? ''}`.toUpperCase()))
    return t
  }
  const inTrace = new Set(codes.filter(({ code, reference }) => reference && all.some((x) => written(x).includes(code))).map(({ code }) => code))
  return (s) => codes.some(({ code, reference }) => !written(s).includes(code) && (!reference || !inTrace.has(code)))
}

/**
 * The statement gives the claim's code another number, and never the claim's: "This counts as a SEV-3 incident"
 * against "A leaked production credential is a SEV-2 incident". Words alike, the level differs.
 */
function otherCode(claim: string, text: string): boolean {
  const codes = (t: string) => [...t.matchAll(CODE)].filter((m) => /[A-Z]/.test(m[1]!)).map((m) => [m[1]!.toUpperCase(), m[2]!] as const)
  const theirs = codes(text)
  return codes(claim).some(([p, n]) => theirs.some(([q, k]) => q === p && k !== n) && !theirs.some(([q, k]) => q === p && k === n))
}

/** A fact (not a flag) whose value has words, none of them the claim's. */
function valueUnsaid(c: Claim, s: Statement): boolean {
  if (s.key === undefined || s.boolean) return false
  const at = s.text.indexOf(': ')
  if (at < 0) return false
  const raw = s.text.slice(at + 2).trim()
  // A grade or band of a letter or two ("council_tax_band": "E", "grade": "B+") is said only as itself: "band D" is not it.
  if (/^(?=.*[A-Za-z])[A-Za-z0-9][A-Za-z0-9+-]?$/.test(raw)) return !new RegExp(`(?<![A-Za-z0-9])${raw.replace(/\+/g, '\\+')}(?![A-Za-z0-9+])`).test(c.text)
  // Words of three letters or more: "v1" of "v1.9.0" is no word in common with "v1.8.2".
  const value = [...readClaim(raw).terms.keys()].filter((t) => t.length >= 3)
  return value.length > 0 && !value.some((t) => termIn(t, c.terms))
}

/**
 * The claim names something the fact neither owns nor keys, where the fact's value says another thing: "LUMORA BEAUTY
 * was owned by Verdane Cosmetics" against "owner: K. Asante", "fastgrid is GPL-licensed" against "license: MIT". The
 * sentence model reads such pairs alike; their values differ.
 */
function namesOtherValue(c: Claim, s: Statement): boolean {
  const key = readClaim(s.key ?? '').terms
  return [...c.entities].some((e) => !s.owner.has(e) && !termIn(e, key))
}

/** A claim that joins two facts of one source ("adds CSV export and fixes a timezone bug"): coverage by the best pair. */
function pairCoverage(c: Claim, pool: Statement[], best: Statement): { cov: number; s: Statement } | null {
  let top: { cov: number; s: Statement } | null = null
  for (const s of pool) {
    if (s.evidence !== best.evidence || s === best) continue
    const cov = coverage(c, { ...s, terms: new Map([...best.terms, ...s.terms]) })
    if (!top || cov > top.cov) top = { cov, s }
  }
  return top
}

/**
 * One claim against the trace's evidence. `focus`: stems of the entity the answer's previous
 * claims named, for a claim that refers to it ("It weighs 210 g").
 */
export function judge(claim: string, ctx: JudgeContext, focus: Set<string> = new Set()): Judgement {
  const c = readClaim(claim.replace(CONTRAST, ''))
  // Past a few dozen figures a "claim" is a table written out as a sentence: its first figures are checked, so the work
  // a claim costs stays bounded whatever an answer holds.
  c.quantities = c.quantities.slice(0, MAX_CLAIM_FIGURES)
  if (!c.terms.size && !c.quantities.length) return { verdict: 'unsupported', confidence: CONFIDENCE.nothing, evidence: null, rule: 'empty' }
  const j = judgeWith(c, ctx, focus)
  return { ...j, confidence: round(j.confidence) }
}

/** One claim against a list of evidence (web results, a trace's evidence), lexically. */
export function judgeClaim(claim: string, evidence: Evidence[]): Judgement {
  return judge(claim, { statements: statementsOf(evidence), request: [], answerQuantities: [] })
}
