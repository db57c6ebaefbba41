/**
 * The figures of a claim against the trace's (support.ts, step 4): where each is backed (an equal value in a
 * statement the claim fits, a bound, or arithmetic on the trace's figures, arithmetic.ts), and which statement about
 * the same thing gives another value of it.
 */
import { derivable, type Operands } from './arithmetic.js'
import type { Evidence } from './evidence.js'
import { alignment, clauseMixup, coverage, figureWordsMeet, localTerms, rank, readClaim, termIn, type Claim } from './match.js'
import { sameValue, satisfies } from './compare.js'
import type { Quantity } from './quantity.js'
import { sameRecord, type Statement } from './statements.js'
import type { JudgeContext } from './support.js'

/** A different value counts against a claim only from a statement this well aligned with it. */
const CONFLICT_ALIGN = 0.6

interface Found {
  s: Statement
  exact: boolean
}

/** Words of a fact's value besides its figures ("19:30 fully booked; next slot offered": 5, "20:00": 0). */
function wordsAround(s: Statement): number {
  const at = s.text.indexOf(': ')
  let v = s.text.slice(at + 2)
  for (const q of [...s.quantities].sort((a, b) => b.index - a.index)) if (q.index >= at + 2) v = v.slice(0, q.index - at - 2) + v.slice(q.end - at - 2)
  return (v.match(/[a-z]{2,}/gi) ?? []).length
}

/** Keys that are a record's own time, date, amount or size, not another event's. */
const OWN_FIELD = /^(?:[a-z]+ )?(?:time|date|datetime|when|at|start|starts|slot|day|amount|price|total|size|count|quantity|duration|value)$/

/** Years and other numbers that name things ("2025", "the 1951–1980 average") are no counts to compute or contradict. */
export const yearLike = (q: Quantity) => q.dim === 'count' && !q.per && Number.isInteger(q.value) && q.value >= 1800 && q.value <= 2100

const MONTH_BEFORE = /\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?,?\s*$/i
/** A year the claim dates by a month ("came out in August 2026") is not the year of another month ("September 2026"). */
function otherMonth(claim: string, q: Quantity, text: string, e: Quantity): boolean {
  if (!yearLike(q)) return false
  const a = MONTH_BEFORE.exec(claim.slice(Math.max(0, q.index - 12), q.index))?.[1]?.toLowerCase()
  const b = MONTH_BEFORE.exec(text.slice(Math.max(0, e.index - 12), e.index))?.[1]?.toLowerCase()
  return a !== undefined && b !== undefined && a !== b
}

/** Keys of a value relative to a reference: a ratio, a relative measure, a multiple of the Earth's or Jupiter's. */
const RELATIVE_KEY = /\b(?:ratio|relative|earth|earths|jupiter|fold)\b/

/**
 * A rate as a result gives it, a bare number under a key that names it: an exchange rate ("162.40 yen per euro" for
 * "rate": 162.4) or a multiple ("time and a half" for "ot_multiplier": 1.5).
 */
function keyedRate(q: Quantity, e: Quantity, s: Statement): boolean {
  if (e.dim !== 'count' || e.per || !s.key) return false
  const fx = q.dim === 'money' && q.per?.dim === 'money' && /\b(?:rate|fx|exchange)\b/.test(s.key)
  const multiple = q.dim === 'ratio' && /\b(?:multiplier|factor|multiple|ratio)\b/.test(s.key)
  if ((fx || multiple) && Math.abs(q.value - e.value) <= Math.max(q.tol, e.tol * 0.5, 1e-9)) return true
  // A value relative to a reference ("radius_earth": 1.14, "relative_risk": 0.82) as a percent of it or a change
  // from it: "14% larger than Earth", "86% of the sunlight Earth gets", "18% lower risk".
  if (q.dim !== 'percent' || !RELATIVE_KEY.test(s.key) || e.value <= 0 || e.value >= 20) return false
  // (an integer, "match_ratio": 1 of "1:1", is exact, not 1 ± 0.5: "12% ahead" is no change from it)
  const tol = Math.max(q.tol, Math.min(e.tol * 50, 5), 0.5)
  return Math.abs(q.value - e.value * 100) <= tol || Math.abs(q.value - Math.abs(e.value - 1) * 100) <= tol
}

/** A journey both ways: "82 nm each way, 164 nm round trip" doubles a one-way figure. */
const BOTH_WAYS = /\b(?:round[- ]trip|return trip|there and back|both ways)\b/i
/** Words that make a claim's change a fall: "down about 5.6% from your average cost". */
const FALLING = /\b(?:down|fell|fallen|falls|drop(?:ped|s)?|lower|decreased?|declin\w*|lost|loss|cut|reduced?|less)\b/i

/**
 * How things usually go ("most claims are paid within 10 working days", "it rarely lasts more than a day"): a rule a
 * document states, never a figure this trace's arithmetic makes (a small round number is some sum of its figures).
 */
const GENERALISATION = /\b(?:usually|typically|generally|often|rarely|seldom|most (?:\w+ )?(?:claims|clients|customers|people|users|cases|orders|members|patients)|anything (?:under|over|above|below))\b/i

/** Figures a result may hold to be taken as the topic when the answer states one of them. */
const SMALL_RESULT = 4

const saidMemo = new WeakMap<Quantity[], Map<Quantity, boolean>>()
/** Whether the answer states an evidence figure, remembered per trace (every claim asks it of the same figures). */
function saidIn(ctx: JudgeContext): (e: Quantity) => boolean {
  let memo = saidMemo.get(ctx.answerQuantities)
  if (!memo) saidMemo.set(ctx.answerQuantities, (memo = new Map()))
  return (e) => {
    let v = memo.get(e)
    if (v === undefined) memo.set(e, (v = ctx.answerQuantities.some((a) => sameValue(a, e))))
    return v
  }
}

/**
 * The fields of one object of a record ("defects": {"short_shot": 96, "flash": 71, "sink_marks": 45}): a breakdown,
 * which a total the claim states may add up ("212 defects").
 */
function breakdowns(usable: Statement[], topical: Set<Quantity>): Quantity[][] {
  const parts = new Map<Evidence, Map<string, Quantity[]>>()
  for (const s of usable) {
    const q = s.quantities[0]
    if (!s.context?.size || s.quantities.length !== 1 || !q || !topical.has(q)) continue
    const key = `${[...s.owner].join(' ')}|${[...s.context].join(' ')}|${q.dim}`
    const byKey = parts.get(s.evidence) ?? new Map<string, Quantity[]>()
    parts.set(s.evidence, byKey)
    byKey.set(key, [...(byKey.get(key) ?? []), q])
  }
  return [...parts.values()].flatMap((m) => [...m.values()].filter((g) => g.length >= 3))
}

/** Where each claim figure is backed: an equal value in a statement the claim fits, or arithmetic. */
export function backFigures(c: Claim, ctx: JudgeContext, usable: Statement[]): { found: Array<Found | 'derived' | 'request' | null>; anchor: Statement | null } {
  // Operands: the evidence's figures and the user's. Sums, differences and shares only of figures on the claim's topic:
  // a statement it lines up with, a tool it names, a figure the answer states, or the date of "today".
  const tool = (s: Statement) => s.evidence.kind === 'tool_result' && [...toolWords(s.evidence).keys()].some((t) => t.length >= 3 && termIn(t, c.terms))
  const said = saidIn(ctx)
  // A result is on the topic as a whole when one of its facts is ("B leads option A by 322": the survey's counts).
  const onTopic = (s: Statement) => coverage(c, s) >= 0.2 || tool(s) || /\b(?:today|current date|now)\b/i.test(s.text)
  // So is a small result a figure of which the answer states ("$92 a month" of "premium_annual": 1104 makes the quote
  // the topic); in a large one, a share or a difference of two of its many figures meets a claim's by chance.
  const figuresOf = new Map<Evidence, number>()
  for (const s of usable) figuresOf.set(s.evidence, (figuresOf.get(s.evidence) ?? 0) + s.quantities.length)
  const saysSmall = (s: Statement) => (figuresOf.get(s.evidence) ?? 0) <= SMALL_RESULT && s.quantities.some(said)
  const topicalResults = new Set(usable.filter((s) => s.key !== undefined && (onTopic(s) || saysSmall(s))).map((s) => s.evidence))
  const topical = new Set(usable.flatMap((s) => (onTopic(s) || topicalResults.has(s.evidence) ? s.quantities : s.quantities.filter(said))))
  // The continued clause's figures as the evidence gives them (of any entity: the clause named it), on the topic.
  const lead = (ctx.lead ?? []).flatMap((q) => {
    const s = ctx.statements.find((x) => !x.request && x.quantities.some((e) => sameValue(q, e)))
    const e = s?.quantities.find((x) => sameValue(q, x))
    return s && e ? [{ s, e }] : []
  })
  for (const { e } of lead) topical.add(e)
  const ops: Operands = {
    evidence: [...lead.map((l) => l.e), ...usable.flatMap((s) => s.quantities)],
    topical,
    request: ctx.request.flatMap((s) => s.quantities),
    answer: [...ctx.answerQuantities, ...c.quantities],
    offsets: ctx.offsets ?? [],
    falling: FALLING.test(c.text),
    bothWays: BOTH_WAYS.test(c.text),
    groups: [
      ...[...new Set(usable.filter((s) => s.siblings && topical.has(s.quantities[0]!)).map((s) => s.siblings!))].map((g) => g.map((s) => s.quantities[0]).filter((q): q is Quantity => q !== undefined)),
      ...breakdowns(usable, topical),
    ],
  }
  let anchor: Statement | null = null
  let anchorCov = -1
  const find = (q: Quantity, tied: Set<Evidence>): Found | null => {
    let best: Found | null = null
    let bestCov = -1
    for (const s of usable)
      for (const e of s.quantities) {
        const rate = keyedRate(q, e, s)
        if (!satisfies(q, e) && !rate) continue
        const exact = rate || sameValue(q, e)
        const cov = coverage(c, s) - rank(s) * 1e-6
        // A bare count ("3", "two") counts only where the words around it do ("3 commits"), or in the result the
        // claim's other figures were read from ("4 of the 10 shares … at $118.42": filled_qty, qty); a bound
        // ("under half an hour") only on a statement about the same thing; a figure only in its own clause's business.
        // (A frequency met by an interval, "three times a day" for "every 8 hours", is no bare count.)
        if (((q.dim === 'count' && e.dim === 'count') || !exact) && !figureWordsMeet(c, q, s) && cov < 0.4 && !(q.dim === 'count' && exact && tied.has(s.evidence))) continue
        if (clauseMixup(c, q, s, e) || otherMonth(c.text, q, s.text, e)) continue
        if (cov > bestCov) {
          best = { s, exact }
          bestCov = cov
        }
      }
    if (best && bestCov > anchorCov) {
      anchor = best.s
      anchorCov = bestCov
    }
    return best
  }
  // A value mentioned in a result's prose ("note": "19:30 fully booked") yields to the same record's own field of that
  // kind ("time": "20:00"): the booking is at 20:00, whatever else the note names. Another record's field (the CI run's
  // duration beside a failed test's "no response after 30000 ms") is about something else.
  const typedOther = (q: Quantity, f: Found | null) =>
    f !== null &&
    f.s.key !== undefined &&
    wordsAround(f.s) >= 2 &&
    // (a field that is the record's time or date as such: "expected_deposit" names another event than the letter's
    // "CP12 mailed 2026-10-09")
    usable.some((x) => x.evidence === f.s.evidence && x.key && OWN_FIELD.test(x.key) && sameRecord(x, f.s) && wordsAround(x) === 0 && x.quantities.some((e) => e.dim === q.dim && !satisfies(q, e)))
  const measuredFirst = c.quantities.map((q) => {
    const f = q.dim === 'count' ? null : find(q, new Set())
    return typedOther(q, f) ? null : f
  })
  const tied = new Set(measuredFirst.filter((f): f is Found => f !== null && f.s.evidence.kind === 'tool_result').map((f) => f.s.evidence))
  // The attribute one of the claim's figures was read from is the claim's topic in every result: "$70 a month, $25 more
  // than you pay now" is the new plan's monthly price against the current one's.
  const keys = new Set(measuredFirst.flatMap((f) => (f?.s.key ? [f.s.key] : [])))
  for (const s of usable) if (s.key && keys.has(s.key)) for (const q of s.quantities) topical.add(q)
  const computed: Quantity[] = []
  const shareOf = (q: Quantity) => q.dim === 'percent' || q.dim === 'ratio'
  const found = c.quantities.map((q, i) => {
    const best = q.dim === 'count' ? find(q, tied) : measuredFirst[i]!
    if (best) return best
    // A figure of the continued clause, restated: "…, which is £33.66 on your 85 shares".
    const restated = lead.find((l) => sameValue(q, l.e))
    if (restated) return { s: restated.s, exact: true }
    // "The two vans", "all three plans": as many things as a list of the evidence holds.
    if (q.dim === 'count' && /\b(?:the|all|these|those)\s+$/i.test(c.text.slice(Math.max(0, q.index - 6), q.index))) {
      // (the tally of the list's size ends in its count and noun: "… 2 vehicles", not "3 plans by rolling monthly")
      const list = ctx.statements.find((s) => s.tally && s.quantities[0] !== undefined && sameValue(q, s.quantities[0]) && /(?:^|\s)\d+ [a-z]+$/i.test(s.text.trim()))
      if (list) return { s: list, exact: true }
    }
    if (!yearLike(q) && !GENERALISATION.test(c.text) && derivable(q, shareOf(q) ? { ...ops, evidence: [...ops.evidence, ...computed] } : ops)) {
      // A figure the claim computed is an operand of a share it states next ("2,249 of 5,500 responded, 40.9%": both are sums).
      computed.push(q)
      topical.add(q)
      return 'derived' as const
    }
    if (ctx.request.some((s) => s.quantities.some((e) => sameValue(q, e)))) return 'request' as const
    return null
  })
  // A figure restating another of the claim in other units, or bounding it ("32 days, more than four weeks", "56 hours,
  // which is 7 days"), is backed with it.
  c.quantities.forEach((q, i) => {
    if (found[i] !== null) return
    const j = c.quantities.findIndex((o, k) => k !== i && o.dim === q.dim && typeof found[k] === 'object' && found[k] !== null && satisfies(q, o))
    if (j >= 0) found[i] = found[j]!
  })
  // Figures read from separate sentences of one text back the claim only if one statement holds them together
  // ("You can lock for 60 days at no cost" is not "a 45-day lock is included at no cost" plus "a 60-day lock adds 0.125 points").
  // (A figure in a sentence about an entity the claim names is that entity's: "the PPO costs $36.80 and the HMO $15.80".)
  const ownNamed = (s: Statement) => s.owner.size > 0 && [...s.owner].some((o) => c.entities.has(o))
  const apart = found.filter((f): f is Found => typeof f === 'object' && f !== null && f.s.evidence.kind !== 'tool_result' && !ownNamed(f.s))
  if (apart.length >= 2 && new Set(apart.map((f) => f.s.evidence)).size === 1 && new Set(apart.map((f) => f.s)).size > 1) {
    const qs = c.quantities.filter((_, i) => apart.includes(found[i] as Found))
    if (!usable.some((s) => qs.every((q) => s.quantities.some((e) => satisfies(q, e))))) return { found: found.map((f) => (apart.includes(f as Found) ? null : f)), anchor: null }
  }
  return { found, anchor }
}

/** Words that make a figure the result of arithmetic the claim states ("bringing the set to", "27 more than", "left"). */
const ARITHMETIC_WORDS = /\b(?:more|less|fewer|left|remain\w*|total\w*|sav\w+|short|over|under|minus|plus|difference|bring\w*|extra|increas\w+|decreas\w+|average\w*|combined|altogether|than|off|after|net|up|down|ris\w+|rose|fell|drop\w*|gain\w*|per|each|times|twice|half|double\w*|so|which|that's|makes?|comes? to|works? out)\b/i

/** The figure is what its measure is: "GC content is 38.2%", "your balance was $1,200". */
const COPULA_BEFORE = /\b(?:is|was|are|were|stands at|sits at)\s*$|'s\s*$/i

/**
 * A field of the very measure the claim gives a figure of, holding another value: "GC content is 38.2%" against
 * "gc_pct": 33.2, "Your battery health is 81%" against "battery_health_pct": 91. The claim states the figure as the
 * field's, with no arithmetic in its words: a sum of the result's other figures that makes 38.2 is a coincidence.
 */
export function measureField(c: Claim, q: Quantity, usable: Statement[]): Statement | null {
  const head = c.text.slice(Math.max(0, q.index - 40), q.index)
  // (A clock time may be another zone's reading of the field's UTC one.)
  if (ARITHMETIC_WORDS.test(c.text) || q.dim === 'time' || yearLike(q)) return null
  // The measure named before the figure ("GC content is 38.2%") or right after it ("your £15,000 advance").
  const before = COPULA_BEFORE.test(head) ? readClaim(head.split(/[,;:]/).pop() ?? '').terms : null
  const after = ATTRIBUTIVE.exec(c.text.slice(q.end))
  const named = before ?? (after ? readClaim(after[1]!).terms : null)
  if (!named) return null
  for (const s of usable) {
    if (!s.key || s.quantities.some((e) => satisfies(q, e))) continue
    const key = [...readClaim(s.key).terms.keys()].filter((t) => !GENERIC_KEY_WORDS.has(t))
    if (!key.length || !key.every((t) => termIn(t, named))) continue
    if (s.quantities.some((e) => e.dim === q.dim && (q.dim !== 'money' || e.unit === q.unit) && !e.per === !q.per)) return s
  }
  return null
}

/** One or two words right after a figure, up to the next verb or mark: "£15,000 advance has earned out". */
const ATTRIBUTIVE = /^\s+([a-z][a-z-]+(?: [a-z][a-z-]+)?)(?=\s+(?:has|have|is|was|are|were|will|would|had)\b|\s*[,.;:]|\s*$)/
/** Words of a key that say it holds a value, not what the value is of: "advance_amount" is the advance. */
const GENERIC_KEY_WORDS = new Set(['amount', 'amt', 'value', 'val', 'figure'].map((w) => [...readClaim(w).terms.keys()][0] ?? w))

/** A claim that something costs nothing. */
const FREE = /\b(?:for free|free of charge|at no (?:extra |additional )?(?:cost|charge)|no (?:extra |additional )?(?:charge|fee|cost)|costs? nothing|complimentary)\b/i
const NOT_FREE = /\b(?:not|isn't|aren't|wasn't|no longer)\s+(?:\w+\s+)?(?:free|complimentary)\b/i
const PRICE_KEY = /\b(?:fee|fees|price|cost|charge|surcharge)\b/

/**
 * A fee the evidence gives for what the claim says is free: "we'll haul away your old fridge for free" against
 * "haul_away_fee_usd": 25. The fee's key names the thing by the claim's own words ("haul away").
 */
export function chargedFor(c: Claim, usable: Statement[]): Statement | null {
  if (!FREE.test(c.text) || NOT_FREE.test(c.text)) return null
  return (
    usable.find((s) => {
      if (!s.key || !PRICE_KEY.test(s.key) || !s.quantities.some((e) => e.dim === 'money' && e.value > 0)) return false
      const thing = [...readClaim(s.key.replace(PRICE_KEY, ' ')).terms.keys()]
      return thing.length > 0 && thing.every((t) => termIn(t, c.terms))
    }) ?? null
  )
}

/** A statement about the same thing giving another value of the figure's attribute. */
export function conflicting(c: Claim, q: Quantity, usable: Statement[], ctx: JudgeContext, named: (s: Statement) => boolean): Statement | null {
  if (yearLike(q)) return null
  // "The same thing" is read narrowly: the words around the claim's figure name what the other value measures
  // (a fact's key, the words beside a number in a sentence), and the statement lines up with the claim as a whole,
  // or is a fact of the entity the claim names. A bare count conflicts only with a fact whose key it names.
  const local = localTerms(c.text, q)
  let best: Statement | null = null
  let bestCov = 0
  for (const s of usable) {
    if (q.dim === 'count' && !s.key) continue
    const other = s.quantities.filter((e) => e.dim === q.dim && (q.dim !== 'money' || e.unit === q.unit) && !e.per === !q.per && !yearLike(e))
    if (!other.length) continue
    // A sentence holding the claim's value may still give another for the entity the claim names, in another clause.
    const holds = other.some((e) => satisfies(q, e))
    if (holds && !other.some((e) => satisfies(q, e) && clauseMixup(c, q, s, e))) continue
    const measures = other.some((e) => !satisfies(q, e) && [...localTerms(s.text, e)].some((t) => termIn(t, local)))
    const cov = Math.max(alignment(c, s, ctx.similarity), s.key && named(s) ? coverage(c, s) + 0.3 : 0, holds ? 1 : 0)
    if ((measures || holds) && cov >= CONFLICT_ALIGN && cov > bestCov) {
      best = s
      bestCov = cov
    }
  }
  return best
}

/** Words of a tool's name ("open_dispute"): a claim naming its action and object is about that call. */
export const toolWords = (e: Evidence) => readClaim((e.source ?? '').replace(/^tool:/, '').replace(/[_.-]+/g, ' ')).terms
