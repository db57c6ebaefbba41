/**
 * How a claim is read and how well a statement lines up with it: the claim's
 * content stems, polarity, figures and named entities (read once per process),
 * stems that meet on a common head (sign/signature, drowsy/drowsiness), and the
 * weighted share of the claim's stems a statement holds (coverage). With the
 * sentence model, a statement's cosine to the claim widens what "lines up" means.
 */
import { polarity } from './polarity.js'
import { sameValue } from './compare.js'
import { quantities, UNIT_WORDS, type Quantity } from './quantity.js'
import type { Statement } from './statements.js'
import { Lru } from '../semantic/lru.js'
import { analyze, stem } from './text.js'

export interface Claim {
  text: string
  terms: Map<string, number>
  pol: Map<string, boolean>
  quantities: Quantity[]
  /** Terms written as names (capitalised, codes) or naming an entity the evidence knows: what the claim is about. */
  entities: Set<string>
}

/** Unit and currency words as stems ("minutes" → minut): the figures carry them. "second" is also an ordinal. */
const UNIT_STEMS = new Set([...UNIT_WORDS].filter((w) => w !== 'second').flatMap((w) => [w, stem(w)]))

const readClaims = new Lru<Claim>(5000)

/** A claim (or a side of one, or the words around a figure) read once per process; callers get their own entity set. */
export function readClaim(text: string): Claim {
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
  for (const t of pol.keys()) if (!UNIT_STEMS.has(t)) terms.set(t, a.terms.get(t) ?? 1)
  for (const [t, w] of a.terms) if (!t.startsWith('#') && !terms.has(t) && !UNIT_STEMS.has(t)) terms.set(t, w)
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

export function termIn(t: string, terms: Map<string, number> | Set<string>): boolean {
  if (terms.has(t)) return true
  if (t.length < 4 || !headsOf(terms).has(t.slice(0, 4))) return false
  for (const u of terms.keys()) if (stemsMeet(t, u)) return true
  return false
}

/**
 * Coverage of a claim by a statement, kept per pair of term maps (the judge asks for the same pair many times): keyed
 * by the claim's terms, which every copy readClaim hands out shares, not by the copy.
 */
const covered = new WeakMap<object, WeakMap<object, number>>()

export function coverage(c: Claim, s: Pick<Statement, 'terms'>, skip?: Set<string>): number {
  if (skip) return coverageOnce(c, s, skip)
  let m = covered.get(c.terms)
  if (!m) covered.set(c.terms, (m = new WeakMap()))
  let v = m.get(s.terms)
  if (v === undefined) m.set(s.terms, (v = coverageOnce(c, s)))
  return v
}

function coverageOnce(c: Claim, s: Pick<Statement, 'terms'>, skip?: Set<string>): number {
  let total = 0
  let hit = 0
  for (const [t, w] of c.terms) {
    if (skip?.has(t)) continue
    total += w
    if (termIn(t, s.terms)) hit += w
  }
  return total ? hit / total : 0
}

/** Cosine of the sentence model above which a statement says the same as the claim. */
export const SEMANTIC_SUPPORT = 0.65
const SEMANTIC_ALIGN = 0.55

/** How well a statement lines up with the claim: words, or meaning when the sentence model is loaded. */
export function alignment(c: Claim, s: Statement, similarity?: (s: Statement) => number): number {
  const lex = coverage(c, s)
  const sem = similarity ? similarity(s) : 0
  // Above SEMANTIC_SUPPORT the model says the statement says the same thing: as good as a full word match at that cosine.
  return Math.max(lex, sem >= SEMANTIC_SUPPORT ? Math.min(1, sem + 0.1) : sem >= SEMANTIC_ALIGN ? Math.min(lex + 0.15, 0.75) : lex)
}

/** The content stems next to a figure (what it counts or measures): a fact's key, else the words beside it. */
export function localTerms(text: string, q: Quantity): Set<string> {
  // A fact's figure is measured by its key ("owner | late fee: 1.5%").
  const head = text.slice(0, q.index)
  const key = /\|\s*([^|:]+):\s*$/.exec(head)
  if (key) return new Set(readClaim(key[1]!).terms.keys())
  const before = readClaim(head.slice(-40).split(/[,;:]/).pop() ?? '').terms
  const after = readClaim(text.slice(q.end, q.end + 40).split(/[,;:.]/)[0] ?? '').terms
  return new Set([...[...after.keys()].slice(0, 3), ...[...before.keys()].slice(-3)])
}

const acronyms = new WeakMap<Claim, Set<string>>()
/**
 * The initials of a claim's capitalised phrases ("North America" → na, "Net Promoter Score" → nps): an owner may be
 * written so. Kept per claim object, which asks it of every statement.
 */
function acronymsOf(c: Claim): Set<string> {
  let hit = acronyms.get(c)
  if (!hit) {
    hit = new Set([...c.text.matchAll(/\b[A-Z][a-z]+(?:\s+(?:of\s+|and\s+)?[A-Z][a-z]+)+/g)].map((m) => m[0].split(/\s+/).filter((w) => /^[A-Z]/.test(w)).map((w) => w[0]!.toLowerCase()).join('')))
    acronyms.set(c, hit)
  }
  return hit
}

/** Weekday names by day of the week (0 = Sunday), as a day number's (`(day + 4) % 7`: 1970-01-01 was a Thursday). */
const WEEKDAY_NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday']
const WEEKDAY_RE = new RegExp(`\\b(${WEEKDAY_NAMES.join('|')})\\b`, 'gi')
/** The weekdays a text names, or null. */
function weekdaysIn(text: string): Set<string> | null {
  const found = new Set([...text.matchAll(WEEKDAY_RE)].map((m) => m[1]!.toLowerCase()))
  return found.size ? found : null
}

/** A date as month and day ("#md1219"): a claim's "December 19" names the item dated 2026-12-19. */
export function dayKey(q: Quantity): string {
  if (!q.hasYear) return `#md${q.value}`
  const d = new Date(q.value * 86_400_000)
  return `#md${(d.getUTCMonth() + 1) * 100 + d.getUTCDate()}`
}

const numbered = new Lru<RegExp>(2000)

/** A record named by a number ("line#3") is named by its key's word and that number together: "Line 3", "line #3". */
export function numberedIn(owner: string, text: string): boolean {
  const i = owner.indexOf('#')
  if (i < 1) return false
  let re = numbered.get(owner)
  if (!re) numbered.set(owner, (re = new RegExp(`\\b${owner.slice(0, i)}[a-z]*\\s*#?\\s*${owner.slice(i + 1)}\\b`, 'i')))
  return re.test(text)
}

/**
 * The claim names the statement's entity (by a stem that tells it from its siblings, or by the date that does: a
 * forecast's day, a statement's period), or its focus is that entity.
 */
export function namesOwner(c: Claim, s: Statement, focus: Set<string> = new Set(), known?: Set<string>): boolean {
  const initials = acronymsOf(c)
  // A name the claim spells otherwise is another's: "LUMORA" does not name "LUMORRA" (a word may still be inflected).
  // (A record named by a number, "line#3", only by its word and number together.)
  // (A name no content word holds is still named as an entity: "USD: $96,420" names the "USD" row.)
  const spelled = (o: string) => !o.includes('#') && (c.terms.has(o) || c.entities.has(o) || (termIn(o, c.terms) && ![...c.entities].some((e) => e !== o && stemsMeet(e, o))))
  // An item's other value ("status": "live") names it only when the claim names no other known entity by name:
  // "the LUMORA mark that is live" is not the live LUMORRA.
  const otherNamed = known !== undefined && [...c.entities].some((e) => known.has(e) && !s.owner.has(e))
  for (const o of s.distinct ?? s.owner) if ((spelled(o) && (s.owner.has(o) || !otherNamed)) || focus.has(o) || initials.has(o) || numberedIn(o, c.text)) return true
  if (s.dates) {
    const days = new Set(c.quantities.filter((q) => q.dim === 'date').map(dayKey))
    for (const d of s.dates) if (days.has(dayKey(d)) || focus.has(dayKey(d))) return true
    // A claim with no date of its own names a day of a week-long list by its weekday ("Wednesday looks poor").
    const named = !days.size && weekdaysIn(c.text)
    if (named) for (const d of s.dates) if (d.hasYear && named.has(WEEKDAY_NAMES[(((d.value + 4) % 7) + 7) % 7]!)) return true
  }
  return false
}

/** Words meet loosely: stems that meet, or a short one that begins the other ("add" and "additions"). */
export function wordsMeet(a: string, b: string): boolean {
  if (stemsMeet(a, b)) return true
  const [short, long] = a.length <= b.length ? [a, b] : [b, a]
  return short.length >= 3 && long.startsWith(short)
}

/** The figure's own words meet words of the statement (or of the evidence figure's own words). */
export function figureWordsMeet(c: Claim, q: Quantity, s: Statement, e?: Quantity): boolean {
  const local = localTerms(c.text, q)
  const other = e ? localTerms(s.text, e) : new Set(s.terms.keys())
  for (const t of local) for (const u of other) if (wordsMeet(t, u)) return true
  return false
}

export interface Clause {
  terms: Map<string, number>
  from: number
  to: number
}

const clauseCache = new WeakMap<Statement, Clause[]>()
/**
 * A sentence's clauses ("domestic moves up to $6,500; international moves up to $12,000"): a figure belongs to its
 * clause, and another clause of the sentence may be about another entity or attribute.
 */
export function clausesOf(s: Statement): Clause[] {
  let hit = clauseCache.get(s)
  if (hit) return hit
  hit = []
  const re = /;\s+|\.\s+|,\s+(?=(?:and|but|while|whereas|or)\s)|,\s+(?=[A-Z])/g
  // A heading before a colon ("Dental PPO: employee only $18.40; employee + spouse $36.80") is every clause's subject.
  const head = /^([^:;.]{1,40}):\s/.exec(s.text)?.[1] ?? ''
  const terms = (text: string) => readClaim(`${head} ${text}`).terms
  let from = 0
  for (const m of s.text.matchAll(re)) {
    hit.push({ terms: terms(s.text.slice(from, m.index)), from, to: m.index! })
    from = m.index! + m[0].length
  }
  hit.push({ terms: terms(s.text.slice(from)), from, to: s.text.length })
  clauseCache.set(s, hit)
  return hit
}

/**
 * The figure sits in a clause of the statement that another clause, giving another value of its dimension, lines up
 * with better: "International moves are covered up to $6,500" against "domestic moves up to $6,500; international
 * moves up to $12,000".
 */
export function clauseMixup(c: Claim, q: Quantity, s: Statement, e: Quantity): boolean {
  if (s.key || s.boolean) return false
  const clauses = clausesOf(s)
  if (clauses.length < 2) return false
  const own = clauses.find((k) => e.index >= k.from && e.index < k.to)
  if (!own) return false
  // Another of the claim's figures in the same clause ties it there: "over $5,000, the fee is $75" and "$75 for more than $5,000".
  const inOwn = (x: Quantity) => x !== e && x.index >= own.from && x.index < own.to
  if (c.quantities.some((x) => x !== q && s.quantities.some((y) => inOwn(y) && sameValue(x, y)))) return false
  const ownCov = coverage(c, own)
  return clauses.some((k) => k !== own && coverage(c, k) > ownCov + 0.15 && s.quantities.some((x) => x.index >= k.from && x.index < k.to && x.dim === q.dim && x !== e && Math.abs(x.value - e.value) > 1e-9))
}

/** Evidence kinds in order of preference when two statements back a claim equally well. */
export const rank = (s: Statement) => ({ document: 0, tool_result: 1, tool_error: 2, message: 3 })[s.evidence.kind]

export function bestStatement(c: Claim, pool: Statement[], similarity?: (s: Statement) => number): Statement | null {
  let best: Statement | null = null
  let bestCov = -1
  for (const s of pool) {
    const cov = alignment(c, s, similarity)
    if (cov > bestCov + 1e-9 || (Math.abs(cov - bestCov) < 1e-9 && best && rank(s) < rank(best))) {
      best = s
      bestCov = cov
    }
  }
  return best
}
