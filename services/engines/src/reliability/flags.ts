/**
 * JSON booleans as the polarity of their key's predicate. A claim speaks of a flag
 * when the key's words are in it ("pets_allowed": pets, allowed; an existence word
 * such as "available" or "included" may stay implicit: "no known exploit" speaks of
 * exploit_available). The claim holds the predicate unless it denies one of those
 * words (a cue a few words before it, or an antonym: "switched off" denies enabled);
 * the fact holds it when the value is true (a key's own denial, "non_refundable",
 * turns it). Same polarity backs the claim, opposite contradicts it. A zero count
 * only backs a denial ("no critical issues"); a null is absence, as a false.
 *
 * Entities: a flag of one item among siblings speaks only to a claim naming that
 * item, unless the claim is about all of them ("both", "all", "each", "neither"):
 * then every sibling must agree. A flag under a parent key (online.in_stock)
 * speaks to a claim naming that part or the entity.
 */
import { namesOwner, readClaim, termIn, type Claim } from './match.js'
import { deniedNear } from './polarity.js'
import type { Statement } from './statements.js'
import { stem } from './text.js'

/** Predicate words a claim may leave implicit: "there's no known exploit" for exploit_available false. */
const EXISTENTIAL = new Set(['available', 'exists', 'present', 'included', 'offered', 'provided', 'applies', 'apply', 'found'].map(stem))
/** States said of a flag's subject itself: "auto-renew is turned off" denies auto_renew, "the offer is no longer valid" its flag. */
const STATES = new Set(['enabled', 'active', 'available', 'valid', 'open', 'online'].map(stem))
const QUANTIFIED = /\b(both|all|each|every|either|neither|none of)\b/i
const NONE = /\b(neither|none of)\b/i

export interface FlagVerdict {
  verdict: 'supported' | 'contradicted'
  s: Statement
}

/** The flag's predicate stems the claim names, or null when it does not speak of the flag. */
function mentioned(c: Claim, s: Statement, claimWords: Set<string>): string[] | null {
  const words = [...s.pol.keys()].filter((t) => !s.owner.has(t))
  if (!words.length) return null
  const present = words.filter((t) => termIn(t, claimWords))
  if (!present.length || words.some((t) => !present.includes(t) && !EXISTENTIAL.has(t))) return null
  return present
}

/** Words that say an amount is nothing: "shipping is free", "at no extra cost". */
const FREE = /\b(?:free|for nothing|no (?:extra |additional )?(?:cost|charge|fee)s?|at no (?:extra |additional )?(?:cost|charge)|nothing to pay|waived|complimentary)\b/i

/** The claim asserts the predicate (or denies it: a cue before one of its words, or an antonym). */
function claimHolds(c: Claim, present: string[], s: Statement): boolean {
  if (NONE.test(c.text)) return false
  if (s.free && FREE.test(c.text)) return false
  for (const [t, denied] of c.pol) if (denied && (present.some((p) => termIn(p, new Set([t]))) || (STATES.has(t) && !s.pol.has(t)))) return false
  return !deniedNear(joined(c.text, present), (t) => present.some((p) => termIn(p, new Set([t]))))
}

/** Where a claim contrasts two things ("out of stock downtown but available online"), each clause speaks for its own. */
const CONTRASTIVE = /\s*(?:,|;)?\s*\b(?:but|while|whereas|though|although|yet)\b\s*|;\s*/i
/**
 * The clause of the claim that speaks of the flag: the one naming its part (online.in_stock: "available online"), else
 * the one with most of its words; the whole claim when it has one clause.
 */
function clauseOf(c: Claim, present: string[], s: Statement): Claim {
  const parts = c.text.split(CONTRASTIVE).filter((p) => p.trim())
  if (parts.length < 2) return c
  const score = (p: string) => {
    const r = readClaim(p)
    const words = new Set([...r.terms.keys(), ...r.pol.keys(), ...joinedWords(p)])
    const placed = s.context?.size && [...s.context].some((t) => termIn(t, words)) ? 10 : 0
    return placed + present.filter((t) => termIn(t, words)).length
  }
  const best = parts.reduce((a, b) => (score(b) > score(a) ? b : a))
  return { ...readClaim(best), entities: c.entities }
}

/** The fact holds the predicate (true), or not (false, null, zero). */
const factHolds = (s: Statement, present: string[]) => !present.some((t) => s.pol.get(t))

/** Words a key writes as one that a sentence writes as two ("xray_onsite": "X-ray on site", "wifi": "Wi-Fi"). */
const PAIR = /\b([a-z]+)[\s-]+(?=([a-z]+)\b)/gi
const joinable = (a: string, b: string) => a.length <= 4 || b.length <= 4
function joinedWords(text: string): string[] {
  return [...text.matchAll(PAIR)].filter((m) => joinable(m[1]!, m[2]!)).map((m) => stem((m[1]! + m[2]!).toLowerCase()))
}
/** The text with the pairs that spell one of the words joined, so a denial before them is read ("don't have X-ray on site"). */
function joined(text: string, words: string[]): string {
  return text.replace(/\b([a-z]+)[\s-]+([a-z]+)\b/gi, (all, a: string, b: string) => (joinable(a, b) && words.includes(stem((a + b).toLowerCase())) ? a + b : all))
}

export function flagVerdict(c: Claim, statements: Statement[], known: Set<string>, focus: Set<string>): FlagVerdict | null {
  const claimWords = new Set([...c.terms.keys(), ...c.pol.keys(), ...joinedWords(c.text)])
  const names = (s: Statement) => namesOwner(c, s, focus, known)
  const quantified = QUANTIFIED.test(c.text)
  let best: { s: Statement; present: string[]; strength: number } | null = null
  for (const s of statements) {
    if (!s.boolean) continue
    const present = mentioned(c, s, claimWords)
    if (!present) continue
    // A flag under a parent key ("online": {"in_stock": false}) is about that part, unless the claim names its owner.
    if (s.context?.size && ![...s.context].some((t) => termIn(t, c.terms)) && !names(s)) continue
    const named = names(s)
    if (s.ambiguousOwner && !named && !(quantified && s.siblings)) continue
    // The claim names another known entity, and not this one: a mix-up, not this flag's business.
    if (!named && s.owner.size && [...c.entities].some((e) => known.has(e) && !termIn(e, s.owner))) continue
    // Prefer the flag whose entity or part the claim names; an item the claim does not name is the weakest reading.
    const placed = s.context?.size && [...s.context].some((t) => termIn(t, c.terms)) ? 1 : 0
    const strength = present.length + (named ? 2 : 0) + placed - (!named && s.owner.size ? 1 : 0)
    if (!best || strength > best.strength) best = { s, present, strength }
  }
  if (!best) return null
  const holds = claimHolds(clauseOf(c, best.present, best.s), best.present, best.s)
  const group = quantified && best.s.siblings && !names(best.s) ? best.s.siblings : [best.s]
  for (const s of group) {
    const fact = factHolds(s, best.present)
    // A zero count backs a denial and contradicts nothing ("failed": 0 says nothing against "the job was skipped").
    if (fact !== holds) return s.absent ? null : { verdict: 'contradicted', s }
  }
  return { verdict: 'supported', s: best.s }
}
