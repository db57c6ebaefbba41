/**
 * Relations in a claim, evaluated on the trace's values rather than assumed true
 * because both figures appear: "X is cheaper/lighter/higher than Y" (each side's
 * own figure, or the value the evidence gives for the entity it names, in the
 * dimension the adjective measures: lighter → mass, cheaper → money, faster →
 * duration), "before/after" (times and dates), "6.1% is above the range of 4.0 to
 * 5.6%" (both figures in the claim), and "the cheapest/first/fastest" (the named
 * entity's fact against its siblings of the same attribute), and a comparative with
 * both sides' figures ("the bigger battery, 90 Wh against 72 Wh"). A figure right before
 * the comparison ("€20 cheaper", "$25 more than") states a difference, which the
 * arithmetic checks instead.
 */
import { coverage, namesOwner, readClaim, termIn, type Claim } from './match.js'
import { quantities, type Dim, type Quantity } from './quantity.js'
import type { Statement } from './statements.js'

/** Where a clause ends: a semicolon, or a comma that is no thousands separator ("£250,000"). */
const CLAUSE_END = /;|,(?!\d)/

/** Where the clause a comparison word sits in starts: a clause end, a bracket, a table cell, a subordinating word. */
const SIDE_BREAK = /;|,(?!\d)|[(|]|\s[—–-]\s|\b(?:since|because|although|while|whereas|if|when|so)\s/gi

/** Comparative adjectives of a measure, as "than" or a paired figure follows them. */
const MEASURE_COMPARATIVES = 'higher|greater|more|larger|bigger|longer|cheaper|lower|less|fewer|smaller|shorter|faster|slower|earlier|later|older|newer|heavier|lighter|warmer|colder|cooler|hotter|pricier|brighter|dimmer'
// ("tops out at 4%" is a maximum, not a comparison)
export const COMPARATIVE = new RegExp(`\\b(${MEASURE_COMPARATIVES}|more expensive|less expensive|better|worse)\\b(.*?)\\bthan\\b|\\b(beats?|outperforms?|exceeds?|tops(?! out)|trails?)\\b`, 'i')
const ORDER = /\b(before|after|earlier than|later than|prior to)\b/i
/** Both sides' figures in the claim: "your HbA1c of 6.1% is above the reference range of 4.0 to 5.6%". */
const BETWEEN = /\b(above|below|under|over|within|beyond|exceeds?|inside|outside)\b/i
const SUPERLATIVE = /\b(?:the\s+)?(first|earliest|latest|newest|oldest|cheapest|most expensive|priciest|largest|biggest|smallest|highest|lowest|fastest|slowest|shortest|longest|heaviest|lightest|warmest|coldest|coolest|hottest|most|fewest|least|best|worst|top)\b/i
const DOWN = /^(?:cheaper|lower|less|fewer|smaller|shorter|faster|earlier|older|lighter|colder|cooler|dimmer|less expensive|before|earlier than|prior to|first|earliest|oldest|cheapest|smallest|lowest|fastest|shortest|lightest|coldest|coolest|fewest|least|below|under|within|trails?)$/i

/** The dimension an adjective measures (null: any). */
function dimOf(word: string): Dim[] | null {
  const w = word.toLowerCase()
  if (/cheap|expensive|pric/.test(w)) return ['money']
  if (/light|heav/.test(w)) return ['mass']
  if (/fast|slow/.test(w)) return ['duration']
  if (/warm|cold|cool|hot/.test(w)) return ['temperature']
  if (/early|earli|late|first|new|old|before|after|prior/.test(w)) return ['date', 'time']
  if (/long|short/.test(w)) return ['duration', 'length']
  return null
}

/** A rate compares per one unit of what it is per ("60 per minute" is 1 per second). */
const norm = (q: Quantity) => (q.per && q.dim !== 'money' ? q.value / q.per.amount : q.value)

/** Numbers a side names things by (years, versions): "2023 was cooler than 2022". */
const NAME_NUMBER = /\b(1[89]\d\d|20\d\d)\b/

/** The value a side of a comparison refers to: its own figure, or the value the evidence gives for what it names. */
function sideValue(side: string, pool: Statement[], dims: Dim[] | null, attribute: Claim): Quantity | null {
  const fits = (q: Quantity) => q.dim !== 'count' || !dims
  const own = quantities(side).filter((q) => (!dims || dims.includes(q.dim)) && !(q.dim === 'count' && NAME_NUMBER.test(String(q.value))))
  if (own.length) return own[own.length - 1]!
  const named = NAME_NUMBER.exec(side)?.[1]
  const c = readClaim(side)
  if (!c.terms.size && !named) return null
  let best: Quantity | null = null
  let bestScore = 0
  for (const s of pool) {
    const qs = s.quantities.filter((q) => fits(q) && (!dims || dims.includes(q.dim)))
    if (!qs.length) continue
    // The side names the statement's entity (or the year its key is); the rest of the claim names the attribute.
    // The user's words are the last resort ("before you land": the time they gave).
    const names = named ? new RegExp(`\\b${named}\\b`).test(s.key ?? s.text) : coverage(c, s) >= 0.5
    if (!names) continue
    const owned = namesOwner(c, s) ? 1 : 0
    const score = (s.request ? 1 : 3) + owned + coverage(attribute, s)
    if (score > bestScore) {
      best = qs[0]!
      bestScore = score
    }
  }
  return best
}

export interface Relation {
  holds: boolean
  /** The statement the relation was read from (superlatives), else null. */
  s: Statement | null
  /** Both sides' figures, when the claim states them ("90 Wh against 72 Wh"): each must be in the evidence. */
  figures?: [Quantity, Quantity]
  /** The other side's words, with its figure ("Morteratsch's 14.9 km²"): what names the entity the second figure is of. */
  other?: string
}

/** A comparative word without "than", then both sides' figures: "the bigger battery, 90 Wh against 72 Wh". */
const PAIRED = new RegExp(`\\b(${MEASURE_COMPARATIVES})\\b(?:[^;.]|\\.(?=\\d))*?\\s(?:against|versus|vs\\.?|compared (?:with|to))\\s`, 'i')

/** "survive longer, five years against Helix's three": each side's figure, the bare one in the other's unit. */
function paired(text: string): Relation | null {
  const m = PAIRED.exec(text)
  if (!m) return null
  const at = m.index + m[0].length
  const l = quantities(text.slice(0, at)).filter((q) => q.index > m.index).pop()
  const rightText = text.slice(at).split(CLAUSE_END)[0]!
  let r = quantities(rightText)[0]
  if (!l || !r) return null
  if (r.dim === 'count' && l.dim !== 'count') r = quantities(`${rightText.slice(r.index, r.end)} ${text.slice(l.index, l.end).split(/\s+/).pop()}`)[0]
  if (!r || r.dim !== l.dim) return null
  const down = DOWN.test(m[1]!)
  return { holds: down ? norm(l) < norm(r) : norm(l) > norm(r), s: null, figures: [l, r], other: rightText }
}

/** A comparison in the claim, evaluated on the trace's values: true, false, or null when it cannot be read. */
export function relation(text: string, pool: Statement[], statements: Statement[]): Relation | null {
  const pair = paired(text)
  if (pair) return pair
  const cmp = COMPARATIVE.exec(text) ?? ORDER.exec(text)
  if (cmp) {
    const word = cmp[1] ?? cmp[3]!
    const order = !COMPARATIVE.test(cmp[0])
    // An order is of the clause it is in: "the September 10 grants pay …, then the loan after September 24" puts the
    // loan after the 24th, not the 10th.
    const left = order ? lastClause(text.slice(0, cmp.index)) : text.slice(0, cmp.index)
    // "€20 cheaper", "$25 more than", "208 kWh more than": a difference, for the arithmetic.
    // "no later than December 2", "by no more than 5%": a bound on one value, not two things compared.
    if (differenceBefore(left) || /\bno\s*$/i.test(left)) return null
    const right = text.slice(cmp.index + cmp[0].length)
    // "the day before, on Thursday 13 July": an adverb, with no second side to order against.
    if (order && /^\s*(?:[,.;:)]|$)/.test(right)) return null
    // "lasts more than three days", "less than a month": a bound on one value, not two things compared.
    if (/^\s*(?:about\s+|around\s+|roughly\s+)?(?:\d|a\b|an\b|one\b|two\b|three\b|four\b|five\b|six\b|seven\b|eight\b|nine\b|ten\b|twelve\b|half\b)/i.test(right) && !NAME_NUMBER.test(right.trim().split(/\s+/)[0] ?? '')) return null
    const dims = dimOf(word)
    const attribute = readClaim(text)
    const l = sideValue(left, pool, dims, attribute)
    const r = l ? sideValue(right, pool, [l.dim], attribute) : null
    if (!l || !r || l.dim !== r.dim || l === r) return null
    // "Before"/"after" order points in time, not amounts ("held for three months before deletion"); the very date the
    // claim names is no order either way ("the loan after September 24", paid on the 24th: from that day).
    if (order && ((l.dim !== 'date' && l.dim !== 'time') || (norm(l) === norm(r) && quantities(right).some((q) => q.dim === r.dim && norm(q) === norm(r))))) return null
    const down = DOWN.test(word.trim())
    return { holds: (down ? norm(l) < norm(r) : norm(l) > norm(r)) !== negated(lastClause(left)), s: null }
  }
  const between = BETWEEN.exec(text)
  if (between) {
    const before = text.slice(0, between.index)
    if (differenceBefore(before)) return null
    // (The figure of the comparison's own clause: in "Calder's $5 fee won't apply, since your balance would stay above
    // $1,000" the $5 is the fee's, and "$5 (waived over $1,000)" states a condition, not a comparison of the $5.)
    // (A comparison appended to a clause, "The lock is 0.35 seconds, well under your limit", compares that clause's figure.)
    const sideClause = before.slice(Math.max(0, ...[...before.matchAll(SIDE_BREAK)].map((m) => m.index + m[0].length)))
    const own = /^\s*(?:(?:well|much|far|just|comfortably|still|slightly|way)\s*)?$/i.test(sideClause) ? before : sideClause
    const l = quantities(own).filter((q) => q.dim !== 'count' || !(NAME_NUMBER.test(String(q.value)) || labelled(own, q)))
    // No figure of its own ("Your potassium was above its range"): the value the evidence gives for what it names.
    const v = l[l.length - 1] ?? measuredValue(readClaim(text), readClaim(before), pool)
    const after = text.slice(between.index + between[0].length)
    // The other side's own figures ("the reference range of 4.0 to 5.6%"), else the range or limit the evidence gives
    // for what the claim names ("within the normal range": the test's ref_range).
    // (Only the figures of the clause it opens: "$34.50 an hour over 8-hour days, that's $276 a day" spreads a rate
    // over days, and a figure of another kind right after the word says it is no comparison.)
    const clause = after.split(new RegExp(`${CLAUSE_END.source}|\\bthat's\\b|\\bwhich\\b`))[0]!
    const figures = quantities(clause).filter((q) => q.dim !== 'count' || !labelled(clause, q))
    const first = figures[0]
    if (v && first && first.dim !== v.dim && !(v.dim === 'count' || first.dim === 'count')) return null
    let edge = v ? figures.filter((q) => q.dim === v.dim || (v.dim === 'count' && q.dim === 'count')) : []
    if (v && !edge.length) edge = limitOf(readClaim(text), readClaim(after), pool, v)
    if (v && edge.length) {
      const word = between[1]!.toLowerCase()
      // A one-sided limit ("ref_range": "<42") bounds one end only.
      // So does a single figure: "within the 20-character limit" is at most 20.
      const one = edge.length === 1 ? edge[0]!.bound || (word === 'within' || word === 'inside' ? '<' : '') : ''
      const lo = one === '<' ? -Infinity : Math.min(...edge.map(norm))
      const hi = one === '>' ? Infinity : Math.max(...edge.map(norm))
      const holds = word === 'within' || word === 'inside' ? norm(v) >= lo && norm(v) <= hi : word === 'outside' ? norm(v) < lo || norm(v) > hi : DOWN.test(word) ? norm(v) < lo : norm(v) > hi
      return { holds: holds !== negated(lastClause(before)), s: null }
    }
    return null
  }
  return superlative(text, statements)
}

/** The clause a comparison word is in: the text after the last comma, semicolon or dash before it. */
const lastClause = (left: string) => left.slice(Math.max(0, ...[...left.matchAll(/;|,(?!\d)|\s[—–-]\s/g)].map((m) => m.index + m[0].length)))

/** The clause denies the comparison: "it isn't due before the end of September", "is not cheaper than". */
const negated = (clause: string) => /\b(?:not|never)\b|n't\b/i.test(clause)

/** A number that names a thing rather than measures it: "Annex 3", "SCC Module 3", "Gate 12" (a capitalised word before it). */
const labelled = (text: string, q: Quantity) => /\b[A-Z][A-Za-z]*\s$/.test(text.slice(Math.max(0, q.index - 20), q.index))

/** A figure right before the comparison: "$12.40 over your budget", "0.03 °C below the record" (a difference). */
function differenceBefore(left: string): boolean {
  const t = left.trimEnd()
  // (or a share in words: "about two thirds higher than"; or points: "two points above July")
  if (/\b(?:half|a third|two thirds|a quarter|three quarters|a fifth)$/i.test(t)) return true
  if (/\b(?:\d+(?:\.\d+)?|one|two|three|four|five|six|seven|eight|nine|ten)\s+(?:percentage\s+)?points?$/i.test(t)) return true
  return /\d\s*(?:%|[a-zA-Z°µ$€£¥]{0,12})$/.test(t) && quantities(left).some((q) => q.end >= t.length - 1)
}

/** The reading a result gives for the entity a side names ("value": 3.3 of the potassium test), not its range or limit. */
function measuredValue(claim: Claim, side: Claim, pool: Statement[]): Quantity | undefined {
  for (const s of pool) {
    if (s.key === undefined || s.request || s.quantities.length !== 1 || !s.owner.size || !namesOwner(claim, s)) continue
    if (![...s.owner].some((o) => termIn(o, side.terms))) continue
    if (/^(?:|value|result|reading|level|measurement)$/.test(s.key.trim())) return s.quantities[0]
  }
  return undefined
}

/** A limit or range the evidence gives for what the claim names, as values of the figure's dimension. */
function limitOf(claim: Claim, side: Claim, pool: Statement[], v: Quantity): Quantity[] {
  let best: Statement | null = null
  let bestScore = 0
  for (const s of pool) {
    if (!s.key || s.request) continue
    const qs = s.quantities.filter((q) => q.dim === v.dim || (v.dim === 'count' && q.dim === 'count'))
    if (!qs.length) continue
    const keyTerms = [...readClaim(s.key).terms.keys()]
    const keyNamed = keyTerms.filter((t) => termIn(t, side.terms) || /^(?:range|limit|ref|target|max|min|threshold|normal)/.test(t)).length
    if (!keyNamed || !namesOwner(claim, s)) continue
    if (keyNamed > bestScore) {
      best = s
      bestScore = keyNamed
    }
  }
  return best ? best.quantities.filter((q) => q.dim === v.dim || (v.dim === 'count' && q.dim === 'count')) : []
}

/** "Tom R's fix was the first commit", "the fastest option is the Frecciarossa": the named entity's fact against its siblings. */
function superlative(text: string, statements: Statement[]): Relation | null {
  const sup = SUPERLATIVE.exec(text)
  if (!sup) return null
  const c = readClaim(text)
  const dims = dimOf(sup[1]!)
  let best: Array<{ s: Statement; q: Quantity }> = []
  let bestScore = -1
  for (const s of statements) {
    if (!s.siblings || !namesOwner(c, s)) continue
    const q = s.quantities.find((x) => (dims ? dims.includes(x.dim) : x.dim !== 'date' && x.dim !== 'time'))
    if (!q) continue
    // The attribute the claim names ("lowest rate", "most sign-ups"), else the dimension the adjective measures.
    const keyTerms = [...readClaim(s.key ?? '').terms.keys()]
    const score = (keyTerms.length ? keyTerms.filter((t) => termIn(t, c.terms)).length / keyTerms.length : 0) + (dims ? 1 : 0)
    if (score > bestScore) [best, bestScore] = [[{ s, q }], score]
    else if (score === bestScore) best.push({ s, q })
  }
  if (!best.length || (!dims && bestScore === 0)) return null
  // The entity may have several rows (one per quarter): the claim holds when one of them is the extreme.
  let read: Relation | null = null
  for (const { s, q } of best) {
    const values = s.siblings!.flatMap((x) => x.quantities.filter((y) => y.dim === q.dim).slice(0, 1)).map(norm)
    if (values.length < 2) continue
    const extreme = DOWN.test(sup[1]!) ? Math.min(...values) : Math.max(...values)
    if (norm(q) === extreme) return { holds: true, s }
    read ??= { holds: false, s }
  }
  return read
}
