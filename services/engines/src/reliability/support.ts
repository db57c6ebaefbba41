/**
 * Does the trace's evidence back a claim? The claim is compared with the evidence
 * statements (statements.ts) along the failure classes of a word-matching judge:
 *
 * - quantities by value (quantity.ts): a claim's figure is backed by an equal
 *   value of the same dimension in a statement about the same thing, by its bound
 *   ("under half an hour"), or by simple arithmetic on the trace's figures (sums,
 *   differences, percentages, a rate times a quantity, a currency conversion with
 *   a rate from the trace, the days between two dates);
 * - relations ("cheaper than", "after", "the first") are evaluated, never taken
 *   as true because both figures appear;
 * - entities: a statement about one product, plan or person never backs a claim
 *   naming another; a fact among sibling options backs a claim only if the claim
 *   names the option;
 * - negation by scope and JSON booleans as polarity (polarity.ts);
 * - failures: a tool error backs an honest failure report and contradicts a claim
 *   that the failed action happened.
 *
 * `contradicted` needs a conflict about the same entity: a different value of the
 * same dimension in a statement aligned with the claim, a denied predicate, a
 * false relation or a failed call. Anything else that is not backed is
 * `unsupported`. A semantic similarity (the local sentence model, when loaded)
 * widens what "aligned" means for paraphrases; without it the judge is lexical.
 * Confidences are per rule, calibrated on the development sets (docs/engines.md).
 */
import type { Evidence } from './evidence.js'
import { polarity } from './polarity.js'
import { quantities, sameValue, satisfies, UNIT_WORDS, type Quantity } from './quantity.js'
import { statementsOf, type Statement } from './statements.js'
import { Lru } from '../semantic/lru.js'
import { analyze } from './text.js'

export type Verdict = 'supported' | 'unsupported' | 'contradicted'

export interface Judgement {
  verdict: Verdict
  confidence: number
  evidence: Evidence | null
  /** Which rule decided, for the reliability diagram and debugging. */
  rule: string
}

export interface JudgeContext {
  statements: Statement[]
  /** The user's words: operands and yardsticks, never support. */
  request: Statement[]
  /** Figures stated elsewhere in the answer (a chain of arithmetic). */
  answerQuantities: Quantity[]
  /** Similarity of the claim to a statement (0-1), from the sentence model; absent in lexical mode. */
  similarity?: (s: Statement) => number
}

/** Confidence per rule: the share of the development sets' claims each rule got right, rounded down. */
export const CONFIDENCE = {
  quantity: 0.95,
  quantityLoose: 0.85,
  derived: 0.8,
  boolean: 0.95,
  text: 0.9,
  textLoose: 0.8,
  relation: 0.85,
  failureReport: 0.9,
  conflict: 0.85,
  denied: 0.8,
  failedAction: 0.8,
  nothing: 0.75,
  weak: 0.6,
} as const

const SUPPORT_COVERAGE = 0.6
const ALIGN_COVERAGE = 0.5
/** A different value counts against a claim only from a statement this well aligned with it. */
const CONFLICT_ALIGN = 0.6
/** Cosine of the sentence model above which a statement says the same as the claim. */
export const SEMANTIC_SUPPORT = 0.65
const SEMANTIC_ALIGN = 0.55

const FAILURE_REPORT = /\b(?:could not|couldn't|can't|cannot|unable|wasn't able|weren't able|was not able|failed|failing|isn't responding|not responding|didn't go through|did not go through|is down|are down|went down|unavailable|error|timed out|time(?:d)? ?out|not (?:available|reachable)|isn't available|no response|declined|rejected)\b/i
const COMPARATIVE = /\b(higher|greater|more|larger|bigger|longer|cheaper|lower|less|fewer|smaller|shorter|faster|slower|earlier|later|older|newer|heavier|lighter|warmer|colder|hotter|more expensive|less expensive|pricier|brighter|dimmer)\b(.*?)\bthan\b/i
const ORDER = /\b(before|after|earlier than|later than|prior to)\b/i
const SUPERLATIVE = /\b(?:the\s+)?(first|earliest|latest|newest|oldest|cheapest|most expensive|priciest|largest|biggest|smallest|highest|lowest|fastest|slowest|shortest|longest|heaviest|lightest|most|fewest|least)\b/i
const DOWN = /^(?:cheaper|lower|less|fewer|smaller|shorter|faster|earlier|older|lighter|colder|dimmer|less expensive|before|earlier than|prior to|first|earliest|oldest|cheapest|smallest|lowest|fastest|shortest|lightest|fewest|least)$/i

const round = (x: number) => Math.round(x * 1000) / 1000

interface Claim {
  text: string
  terms: Map<string, number>
  pol: Map<string, boolean>
  quantities: Quantity[]
  /** Terms written as names (capitalised, codes): what the claim is about. */
  entities: Set<string>
}

const readClaims = new Lru<Claim>(5000)

/** A claim (or a side of one, or the words around a figure) read once per process; callers get their own entity set. */
function readClaim(text: string): Claim {
  const hit = readClaims.get(text)
  if (hit) return { ...hit, entities: new Set(hit.entities) }
  const c = readClaimOnce(text)
  readClaims.set(text, c)
  return { ...c, entities: new Set(c.entities) }
}

function readClaimOnce(text: string): Claim {
  const a = analyze(text)
  const pol = polarity(text)
  const terms = new Map<string, number>()
  // Unit words ("tonnes", "euros") are carried by the figures, not matched as words.
  for (const t of pol.keys()) if (!UNIT_WORDS.has(t)) terms.set(t, a.terms.get(t) ?? 1)
  for (const [t, w] of a.terms) if (!t.startsWith('#') && !terms.has(t) && !UNIT_WORDS.has(t)) terms.set(t, w)
  const entities = new Set([...a.terms].filter(([t, w]) => w === 2 && !t.startsWith('#')).map(([t]) => t))
  return { text, terms, pol, quantities: quantities(text), entities }
}

/**
 * Stems meet when equal, or when they share a long enough beginning (sign/signature,
 * drowsy/drowsiness): at least four letters and three quarters of the shorter.
 */
export function stemsMeet(a: string, b: string): boolean {
  if (a === b) return true
  const n = Math.min(a.length, b.length)
  if (n < 4) return false
  let i = 0
  while (i < n && a[i] === b[i]) i++
  return i >= Math.max(4, Math.ceil(0.75 * n))
}

/** The four-letter beginnings of a term set: a term none of them starts can only meet by equality. */
const heads = new WeakMap<object, Set<string>>()
function headsOf(terms: Map<string, number> | Set<string>): Set<string> {
  let h = heads.get(terms)
  if (!h) heads.set(terms, (h = new Set([...terms.keys()].filter((u) => u.length >= 4).map((u) => u.slice(0, 4)))))
  return h
}

function termIn(t: string, terms: Map<string, number> | Set<string>): boolean {
  if (terms.has(t)) return true
  if (t.length < 4 || !headsOf(terms).has(t.slice(0, 4))) return false
  for (const u of terms.keys()) if (stemsMeet(t, u)) return true
  return false
}

/** Coverage of a claim by a statement, kept per claim reading (judge asks for the same pair many times). */
const covered = new WeakMap<Claim, WeakMap<object, number>>()

function coverage(c: Claim, s: Statement, skip?: Set<string>): number {
  if (skip) return coverageOnce(c, s, skip)
  let m = covered.get(c)
  if (!m) covered.set(c, (m = new WeakMap()))
  let v = m.get(s.terms)
  if (v === undefined) m.set(s.terms, (v = coverageOnce(c, s)))
  return v
}

function coverageOnce(c: Claim, s: Statement, skip?: Set<string>): number {
  let total = 0
  let hit = 0
  for (const [t, w] of c.terms) {
    if (skip?.has(t)) continue
    total += w
    if (termIn(t, s.terms)) hit += w
  }
  return total ? hit / total : 0
}

/** How well a statement lines up with the claim: words, or meaning when the sentence model is loaded. */
function alignment(c: Claim, s: Statement, ctx: JudgeContext): number {
  const lex = coverage(c, s)
  const sem = ctx.similarity ? ctx.similarity(s) : 0
  // Above SEMANTIC_SUPPORT the model says the statement says the same thing: as good as a full word match at that cosine.
  return Math.max(lex, sem >= SEMANTIC_SUPPORT ? Math.min(1, sem + 0.1) : sem >= SEMANTIC_ALIGN ? Math.min(lex + 0.15, 0.75) : lex)
}

/** The claim names this statement's owner, or names no competing one. */
function entityFits(c: Claim, s: Statement, known: Set<string>): boolean {
  const ownerNamed = [...s.owner].some((o) => termIn(o, c.terms))
  if (ownerNamed) return true
  if (s.ambiguousOwner) return false
  if (!s.owner.size) return true
  // The claim names another known entity, and not this one: a mix-up.
  return ![...c.entities].some((e) => known.has(e) && !termIn(e, s.owner))
}

/** A predicate both state with opposite polarity (owners aside: they are the subject, not the predicate). */
function denies(c: Claim, s: Statement): boolean {
  for (const [t, neg] of c.pol) {
    if (s.owner.has(t) || c.entities.has(t)) continue
    for (const [u, sneg] of s.pol) if (stemsMeet(t, u) && sneg !== neg) return true
  }
  return false
}

/**
 * The statement denies the claim within one clause that lines up with it: a
 * denial elsewhere in the sentence ("…, closed Sunday") is about something else.
 */
function deniedSegment(c: Claim, s: Statement): boolean {
  if (s.boolean || !/[,;]|\.\s/.test(s.text)) return denies(c, s)
  for (const part of s.text.split(/[,;]|\.\s+/)) {
    const pol = polarity(part)
    if (!pol.size) continue
    const seg = { ...s, pol, terms: new Map([...pol.keys(), ...s.owner].map((t) => [t, 1])) }
    if (coverage(c, seg, s.owner) >= ALIGN_COVERAGE && denies(c, seg)) return true
  }
  return false
}

/** Candidate values a claim's figure may have been computed from: one or two operands, at least one from the evidence. */
function derivable(q: Quantity, evidenceQ: Quantity[], extraQ: Quantity[], answerQ: Quantity[] = [], topical: Set<Quantity> = new Set(evidenceQ)): boolean {
  if (q.dim === 'count' && q.value <= 3) return false
  // Each value once: the same figure read twice (a sentence and its window) is one operand.
  const key = (x: Quantity) => `${x.dim}|${x.unit}|${x.value}`
  const uniq = (xs: Quantity[], skip = new Set<string>()) => xs.filter((x) => !skip.has(key(x)) && (skip.add(key(x)), true))
  const seen = new Set<string>()
  const evidence = uniq(evidenceQ, seen)
  // The figure itself (the answer states it too) is no operand, and nor is a negligible one.
  const extra = uniq(extraQ.filter((x) => !sameValue(q, x)), seen)
  // The answer's own figures enter only products (a rate, a percentage, a conversion), never sums.
  const answer = uniq(answerQ.filter((x) => !sameValue(q, x)), seen)
  const all = [...evidence, ...extra, ...answer]
  const isEv = new Set(evidence)
  // Sums and differences only of figures on the claim's topic (or the user's): two unrelated figures add up by chance.
  const inSum = new Set([...evidence.filter((x) => topical.has(x)), ...extra])
  const hit = (v: number) => Number.isFinite(v) && Math.abs(v - q.value) <= Math.max(q.tol, Math.abs(q.value) * 0.01) && Math.abs(v) > 1e-9
  const sizable = (x: Quantity) => Math.abs(x.value) >= Math.abs(q.value) * 0.02
  const cur = (x: Quantity) => x.unit.split('/')[0]
  for (const a of all)
    for (const b of all) {
      if (a === b || (!isEv.has(a) && !isEv.has(b))) continue
      if (inSum.has(a) && inSum.has(b) && a.dim === q.dim && b.dim === q.dim && sizable(a) && sizable(b) && (q.dim !== 'money' || (cur(a) === cur(q) && cur(b) === cur(q)))) {
        if (q.dim !== 'date' && q.dim !== 'time' && (hit(a.value + b.value) || hit(a.value - b.value))) return true
      }
      if (q.dim === 'money') {
        // A percentage of an amount, the amount with it added or taken off.
        if (a.dim === 'money' && cur(a) === q.unit && !a.unit.includes('/') && b.dim === 'percent')
          if (hit((a.value * b.value) / 100) || hit(a.value * (1 + b.value / 100)) || hit(a.value * (1 - b.value / 100))) return true
        // A price per unit times a quantity, a count times a price, an amount at an exchange rate.
        if (a.dim === 'money' && cur(a) === q.unit && a.unit.includes('/') && b.dim !== 'money' && b.dim !== 'percent' && b.dim !== 'date') {
          const per = a.unit.split('/')[1]!
          const amount = b.dim === 'count' ? b.value : convertTo(b, per)
          if (amount !== null && hit(a.value * amount)) return true
        }
        if (a.dim === 'money' && !a.unit.includes('/') && b.dim === 'count' && (cur(a) === q.unit ? b.value >= 1 && Number.isInteger(b.value) : b.value > 0)) {
          if (hit(a.value * b.value) || (cur(a) !== q.unit && hit(a.value / b.value))) return true
        }
      }
      // A share or a change in percent, of figures on the claim's topic only.
      if (q.dim === 'percent' && inSum.has(a) && inSum.has(b) && a.dim === b.dim && a.dim !== 'percent' && a.dim !== 'date' && b.value) {
        if (hit((a.value / b.value) * 100) || hit(((a.value - b.value) / b.value) * 100)) return true
      }
      if (q.dim === 'duration' && a.dim === 'date' && b.dim === 'date' && a.hasYear && b.hasYear) {
        if (hit(Math.abs(a.value - b.value) * 86400)) return true
      }
      if (q.dim === 'date' && a.dim === 'date' && b.dim === 'duration' && q.hasYear && a.hasYear) {
        if (Math.abs(a.value + b.value / 86400 - q.value) < 0.5) return true
      }
      if (q.dim === 'duration' && a.dim === 'time' && b.dim === 'time') {
        if (hit(Math.abs(a.value - b.value) * 60)) return true
      }
    }
  return false
}

/** A quantity expressed in a named unit ("mile" → its value in miles), null when the unit is not one we convert to. */
function convertTo(q: Quantity, unitWord: string): number | null {
  const probe = quantities(`1 ${unitWord}`)[0]
  if (!probe || probe.dim !== q.dim || probe.dim === 'count') return null
  return q.value / probe.value
}

/** The content stems next to a figure in the claim (what it counts or measures). */
function localTerms(text: string, q: Quantity): Set<string> {
  // A fact's figure is measured by its key ("owner | late fee pct: 1.5%").
  const head = text.slice(0, q.index)
  const key = /\|\s*([^|:]+):\s*$/.exec(head)
  if (key) return new Set(readClaim(key[1]!).terms.keys())
  const before = readClaim(head.slice(-40).split(/[,;:]/).pop() ?? '').terms
  const after = readClaim(text.slice(q.end, q.end + 40).split(/[,;:.]/)[0] ?? '').terms
  return new Set([...[...after.keys()].slice(0, 3), ...[...before.keys()].slice(-3)])
}

interface Found {
  s: Statement
  exact: boolean
}

/** Where each claim figure is backed: an equal value in a statement the claim fits, or arithmetic. */
function backFigures(c: Claim, ctx: JudgeContext, usable: Statement[]): { found: Array<Found | 'derived' | 'request' | null>; anchor: Statement | null } {
  // Operands: the evidence's figures and the user's; sums only of those on the claim's topic (or the date of "today").
  const evQ = usable.flatMap((s) => s.quantities)
  const topical = new Set(usable.filter((s) => coverage(c, s) >= 0.2 || /\b(?:today|current date|now)\b/i.test(s.text)).flatMap((s) => s.quantities))
  const extra = ctx.request.flatMap((s) => s.quantities)
  const answerQ = [...ctx.answerQuantities, ...c.quantities]
  let anchor: Statement | null = null
  let anchorCov = -1
  const found = c.quantities.map((q) => {
    let best: Found | null = null
    let bestCov = -1
    for (const s of usable)
      for (const e of s.quantities) {
        if (!satisfies(q, e)) continue
        const cov = coverage(c, s) - rank(s) * 1e-6
        // A bare count ("3", "two") counts only where the words around it do ("3 commits").
        if (q.dim === 'count' && ![...localTerms(c.text, q)].some((t) => termIn(t, s.terms))) continue
        if (cov > bestCov) {
          best = { s, exact: sameValue(q, e) }
          bestCov = cov
        }
      }
    if (best) {
      if (bestCov > anchorCov) {
        anchor = best.s
        anchorCov = bestCov
      }
      return best
    }
    if (derivable(q, evQ, extra, answerQ, topical)) return 'derived' as const
    if (ctx.request.some((s) => s.quantities.some((e) => sameValue(q, e)))) return 'request' as const
    return null
  })
  return { found, anchor }
}

/** A statement about the same thing giving another value of the figure's dimension. */
function conflicting(c: Claim, q: Quantity, usable: Statement[], ctx: JudgeContext): Statement | null {
  // "The same thing" is read narrowly: the words around the claim's figure name what the other value measures
  // (a fact's key, the words beside a number in a sentence), and the statement lines up with the claim as a whole.
  const local = localTerms(c.text, q)
  let best: Statement | null = null
  let bestCov = 0
  for (const s of usable) {
    const other = s.quantities.filter((e) => e.dim === q.dim && (q.dim !== 'money' || e.unit === q.unit))
    if (!other.length || other.some((e) => satisfies(q, e))) continue
    const measures = other.some((e) => [...localTerms(s.text, e)].some((t) => termIn(t, local)))
    const cov = alignment(c, s, ctx)
    if (measures && cov >= CONFLICT_ALIGN && cov > bestCov) {
      best = s
      bestCov = cov
    }
  }
  return best
}

/** The value a side of a comparison refers to: its own figure, or the best-aligned statement's. */
function sideValue(side: string, ctx: JudgeContext, pool: Statement[], dim?: Quantity['dim']): Quantity | null {
  const own = quantities(side).filter((q) => !dim || q.dim === dim)
  if (own.length) return own[own.length - 1]!
  const c = readClaim(side)
  if (!c.terms.size) return null
  let best: Quantity | null = null
  let bestCov = 0
  for (const s of pool) {
    const qs = s.quantities.filter((q) => q.dim !== 'count' && (!dim || q.dim === dim))
    if (!qs.length) continue
    const cov = coverage(c, s)
    if (cov >= 0.5 && cov > bestCov) {
      best = qs[0]!
      bestCov = cov
    }
  }
  return best
}

/** A comparison in the claim, evaluated on the trace's values: true, false, or null when it cannot be read. */
function relation(text: string, ctx: JudgeContext, known: Set<string>): { holds: boolean; s: Statement | null } | null {
  const pool = [...ctx.statements, ...ctx.request]
  const cmp = COMPARATIVE.exec(text) ?? ORDER.exec(text)
  if (cmp) {
    const left = text.slice(0, cmp.index)
    const right = text.slice(cmp.index + cmp[0].length)
    const l = sideValue(left, ctx, pool)
    const r = l ? sideValue(right, ctx, pool, l.dim) : null
    if (!l || !r || l.dim !== r.dim || l === r) return null
    // "Before"/"after" order points in time, not amounts ("held for three months before deletion").
    if (!COMPARATIVE.test(cmp[0]) && l.dim !== 'date' && l.dim !== 'time') return null
    const down = DOWN.test(cmp[1]!.trim())
    return { holds: down ? l.value < r.value : l.value > r.value, s: null }
  }
  const sup = SUPERLATIVE.exec(text)
  if (!sup) return null
  const c = readClaim(text)
  // The fact of the named entity among its siblings ("Tom R's fix was the first commit").
  for (const s of ctx.statements) {
    if (!s.siblings || ![...s.owner].some((o) => termIn(o, c.terms))) continue
    const q = s.quantities.find((x) => x.dim !== 'count' || s.siblings!.length > 1)
    if (!q) continue
    const values = s.siblings.flatMap((x) => x.quantities.filter((y) => y.dim === q.dim).slice(0, 1)).map((x) => x.value)
    if (values.length < 2) continue
    const down = DOWN.test(sup[1]!)
    const extreme = down ? Math.min(...values) : Math.max(...values)
    void known
    return { holds: q.value === extreme, s }
  }
  return null
}

function judgeWith(c: Claim, ctx: JudgeContext): Judgement {
  // Entities the evidence has facts about: a claim naming one of them is about it, however it is written.
  const known = new Set(ctx.statements.flatMap((s) => [...s.owner]))
  for (const t of c.terms.keys()) if (known.has(t)) c.entities.add(t)
  const results = ctx.statements.filter((s) => s.evidence.kind !== 'tool_error')
  const errors = ctx.statements.filter((s) => s.evidence.kind === 'tool_error')
  const usable = results.filter((s) => entityFits(c, s, known))

  // Failures: a tool error backs an honest report of it and denies a claim that the action happened.
  const errorFit = (s: Statement) => Math.max(coverage(c, s), coverage(c, { ...s, terms: new Map([...s.terms, ...readClaim(s.evidence.about ?? '').terms]) }))
  const bestError = errors.map((s) => ({ s, fit: errorFit(s) })).sort((a, b) => b.fit - a.fit)[0]
  if (FAILURE_REPORT.test(c.text)) {
    if (bestError && bestError.fit >= 0.25) {
      const ok = c.quantities.every((q) => errors.some((s) => s.quantities.some((e) => satisfies(q, e))) || q.dim === 'count')
      if (ok) return { verdict: 'supported', confidence: CONFIDENCE.failureReport, evidence: bestError.s.evidence, rule: 'failure-report' }
    }
  }

  // Relations are evaluated, never assumed from shared figures.
  const rel = relation(c.text, ctx, known)
  if (rel) {
    const figures = c.quantities.length ? backFigures(c, ctx, usable).found.every((f) => f !== null) : true
    const ev = rel.s?.evidence ?? bestStatement(c, usable, ctx)?.evidence ?? null
    if (!rel.holds && ev) return { verdict: 'contradicted', confidence: CONFIDENCE.relation, evidence: ev, rule: 'relation-false' }
    if (rel.holds && figures && ev) return { verdict: 'supported', confidence: CONFIDENCE.relation, evidence: ev, rule: 'relation' }
  } else if (COMPARATIVE.test(c.text)) {
    // A comparison that could not be read is not taken as true because its figures appear.
    return { verdict: 'unsupported', confidence: CONFIDENCE.weak, evidence: null, rule: 'relation-unread' }
  }

  // JSON booleans: the key is the predicate, the value its polarity; one denied key denies the claim.
  const flags = usable.filter((s) => {
    const keys = [...s.pol.keys()].filter((t) => !s.owner.has(t))
    // A flag under a parent key ("online": {"in_stock": false}) is about that part, unless the claim names its owner.
    const placed = !s.context?.size || [...s.context].some((t) => termIn(t, c.terms)) || [...s.owner].some((o) => termIn(o, c.terms))
    return s.boolean && placed && keys.length > 0 && keys.every((t) => termIn(t, c.terms))
  })
  const deniedFlag = flags.find((s) => denies(c, s))
  if (deniedFlag) return { verdict: 'contradicted', confidence: CONFIDENCE.boolean, evidence: deniedFlag.evidence, rule: 'boolean-contradicted' }
  if (flags.length && !c.quantities.length) return { verdict: 'supported', confidence: CONFIDENCE.boolean, evidence: flags[0]!.evidence, rule: 'boolean-supported' }

  if (c.quantities.length) {
    const { found, anchor } = backFigures(c, ctx, usable)
    const fromEvidence = found.some((f) => f !== null && f !== 'request')
    if (found.every((f) => f !== null) && fromEvidence) {
      const a = anchor ?? bestStatement(c, usable, ctx)
      const cov = a ? alignment(c, a, ctx) : 0
      if (a && deniedSegment(c, a)) return { verdict: 'contradicted', confidence: CONFIDENCE.denied, evidence: a.evidence, rule: 'denied' }
      const derived = found.some((f) => f === 'derived')
      const loose = found.some((f) => f !== null && typeof f === 'object' && !f.exact)
      // A measured figure (not a bare count) equal by value is rarely a coincidence; its words may differ entirely ("412 MB" for size_bytes).
      const measured = c.quantities.some((q, i) => q.dim !== 'count' && typeof found[i] === 'object')
      if (a && (cov >= 0.3 || derived || measured)) {
        const conf = derived ? CONFIDENCE.derived : loose || cov < SUPPORT_COVERAGE ? CONFIDENCE.quantityLoose : CONFIDENCE.quantity
        return { verdict: 'supported', confidence: conf, evidence: a.evidence, rule: derived ? 'derived' : 'quantity' }
      }
    }
    // The user's own figure converted ("120 km is about 75 miles"): arithmetic on the request, not a claim about the world.
    const converted = c.quantities.length >= 2 && found.every((f, i) => f === 'request' || c.quantities.some((o, j) => j !== i && o.dim === c.quantities[i]!.dim && sameValue(c.quantities[i]!, o)))
    const about = bestStatement(c, usable, ctx)
    if (converted && about && found.some((f) => f === 'request')) return { verdict: 'supported', confidence: CONFIDENCE.derived, evidence: about.evidence, rule: 'conversion' }
    // A figure nothing backs, where a statement about the same thing gives another value.
    for (let i = 0; i < c.quantities.length; i++) {
      if (found[i] !== null && found[i] !== 'request') continue
      const s = conflicting(c, c.quantities[i]!, usable, ctx)
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
    const s = bestStatement(c, usable, ctx)
    const cov = s ? Math.max(alignment(c, s, ctx), pairCoverage(c, usable, s)) : 0
    if (s && cov >= SUPPORT_COVERAGE) {
      if (deniedSegment(c, s)) return { verdict: 'contradicted', confidence: CONFIDENCE.denied, evidence: s.evidence, rule: 'denied' }
      return { verdict: 'supported', confidence: cov >= 0.8 ? CONFIDENCE.text : CONFIDENCE.textLoose, evidence: s.evidence, rule: 'text' }
    }
    // The claim's predicate said of another entity: "Loratadine can cause marked drowsiness".
    const own = usable.filter((x) => x.owner.size && [...x.owner].some((o) => termIn(o, c.terms)) && denies(c, x) && coverage(c, x) >= 0.4)
    if (own.length) return { verdict: 'contradicted', confidence: CONFIDENCE.denied, evidence: own[0]!.evidence, rule: 'entity-denied' }
  }

  // A claim that an action happened, where the only call about it failed.
  if (!FAILURE_REPORT.test(c.text) && bestError && (bestError.fit >= ALIGN_COVERAGE || (bestError.fit >= 0.3 && [...c.entities].some((e) => termIn(e, readClaim(bestError.s.evidence.about ?? '').terms))))) {
    const backed = bestStatement(c, usable, ctx)
    if (!backed || alignment(c, backed, ctx) < SUPPORT_COVERAGE)
      return { verdict: 'contradicted', confidence: CONFIDENCE.failedAction, evidence: bestError.s.evidence, rule: 'failed-action' }
  }
  const best = bestStatement(c, results, ctx)
  const cov = best ? alignment(c, best, ctx) : 0
  return { verdict: 'unsupported', confidence: cov < 0.3 ? CONFIDENCE.nothing : CONFIDENCE.weak, evidence: null, rule: 'unsupported' }
}

/** A claim that joins two facts of one source ("adds CSV export and fixes a timezone bug"): coverage by the best pair. */
function pairCoverage(c: Claim, pool: Statement[], best: Statement): number {
  const same = pool.filter((s) => s.evidence === best.evidence && s !== best)
  let top = 0
  for (const s of same) {
    const joined = new Map([...best.terms, ...s.terms])
    top = Math.max(top, coverage(c, { ...s, terms: joined }))
  }
  return top
}

function bestStatement(c: Claim, pool: Statement[], ctx: JudgeContext): Statement | null {
  let best: Statement | null = null
  let bestCov = -1
  for (const s of pool) {
    const cov = alignment(c, s, ctx)
    if (cov > bestCov + 1e-9 || (Math.abs(cov - bestCov) < 1e-9 && best && rank(s) < rank(best))) {
      best = s
      bestCov = cov
    }
  }
  return best
}

/** Evidence kinds in order of preference when two statements back a claim equally well. */
const rank = (s: Statement) => ({ document: 0, tool_result: 1, tool_error: 2, message: 3 })[s.evidence.kind]

export function judge(claim: string, ctx: JudgeContext): Judgement {
  const c = readClaim(claim)
  if (!c.terms.size && !c.quantities.length) return { verdict: 'unsupported', confidence: CONFIDENCE.nothing, evidence: null, rule: 'empty' }
  const j = judgeWith(c, ctx)
  return { ...j, confidence: round(j.confidence) }
}

/** One claim against a list of evidence (web results, a trace's evidence), lexically. */
export function judgeClaim(claim: string, evidence: Evidence[]): Judgement {
  return judge(claim, { statements: statementsOf(evidence), request: [], answerQuantities: [] })
}
