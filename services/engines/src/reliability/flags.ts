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
 *
 * A flag contradicts only the claim's own subject as things stand: the flag of a record the claim does not name,
 * where another record has the same flag, is `doubtful` (it backs nothing and contradicts nothing), and a claim about
 * how things usually go or will become is not denied by today's value.
 */
import { namesOwner, readClaim, termIn, type Claim } from './match.js'
import { deniedNear } from './polarity.js'
import type { Statement } from './statements.js'
import { stem } from './text.js'

/** Predicate words a claim may leave implicit: "there's no known exploit" for exploit_available false. */
const EXISTENTIAL = new Set(['available', 'exists', 'present', 'included', 'offered', 'provided', 'applies', 'apply', 'found'].map(stem))
/** States said of a flag's subject itself: "auto-renew is turned off" denies auto_renew, "the offer is no longer valid" its flag. */
const STATES = new Set(['enabled', 'active', 'activated', 'engaged', 'available', 'valid', 'open', 'online', 'option', 'possible'].map(stem))
/** Verbs of having: "it doesn't come with a UK plug" denies uk_plug_included, whose existence word stays implicit. */
const HAVING = new Set(['come', 'include', 'contain', 'ship', 'offer', 'provide', 'feature', 'carry', 'get', 'support'].map(stem))
// ("$4,730 each" prices items one by one: no quantifier over a list)
const QUANTIFIED = /\b(both|all|every|either|neither|none of)\b|(?<!\d\s?)\beach\b/i
const NONE = /\b(neither|none of)\b/i

export interface FlagVerdict {
  /** doubtful: the flag of a record the claim does not name disagrees; it may be another's, but backs nothing. */
  verdict: 'supported' | 'contradicted' | 'doubtful'
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
  const implicit = [...s.pol.keys()].some((k) => EXISTENTIAL.has(k) && !present.includes(k))
  for (const [t, denied] of c.pol)
    if (denied && (present.some((p) => termIn(p, new Set([t]))) || (STATES.has(t) && !s.pol.has(t)) || (implicit && HAVING.has(t)))) return false
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

/** Both are of one record: they share its id (an owner with a digit: "SW-661204"), not a brand word two products share. */
const sharesOwner = (a: Statement, b: Statement) => [...a.owner].some((o) => /\d/.test(o) && b.owner.has(o))

/** Another record has the same flag: a claim naming neither may be about that one ("it" of the only record is not). */
const rivalled = (s: Statement, statements: Statement[]) =>
  (s.siblings?.length ?? 0) > 1 || statements.some((t) => t !== s && t.key === s.key && t.owner.size > 0 && [...t.owner].some((o) => !s.owner.has(o)))

/** How things usually go, would have gone, or will be: not the state a flag records now. */
const NOT_NOW = /\b(?:usually|typically|generally|normally|would(?:n't| not)? have|becomes?|will become|from then on)\b/i

/** "charged_only_if_accepted" says what "won't be charged unless the bid is accepted" says. */
const onlyIfUnless = (c: Claim, s: Statement) => /\bonly[_ ]if\b/i.test(s.key ?? s.text) && /\bunless\b/i.test(c.text)

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
    // One item of a list speaks only to a claim naming it (Q4's "paid": null says nothing of "paid so far").
    if (!named && !quantified && s.owner.size && (s.siblings?.length ?? 0) > 1) continue
    // The claim names another known entity, and not this one: a mix-up, not this flag's business.
    if (!named && s.owner.size && [...c.entities].some((e) => known.has(e) && !termIn(e, s.owner))) continue
    // Prefer the flag whose entity or part the claim names; an item the claim does not name is the weakest reading.
    const placed = s.context?.size && [...s.context].some((t) => termIn(t, c.terms)) ? 1 : 0
    const strength = present.length + (named ? 2 : 0) + placed - (!named && s.owner.size ? 1 : 0)
    // A later result's flag of the same record is its state now ("auto_renew": true, then false after set_auto_renew).
    const reread = best !== null && strength === best.strength && s.key === best.s.key && s.evidence !== best.s.evidence && s.evidence.kind === 'tool_result' && sharesOwner(s, best.s)
    if (!best || strength > best.strength || reread) best = { s, present, strength }
  }
  if (!best) return null
  const clause = clauseOf(c, best.present, best.s)
  const holds = onlyIfUnless(clause, best.s) || claimHolds(clause, best.present, best.s)
  // "Both SC-3710 and SC-3527": every item the claim names; "all of them": every item.
  const namedItems = best.s.siblings?.filter(names) ?? []
  // (Records of separate results, "Neither assembly was flagged" over two runs' "contamination_flagged", are a group too.)
  const rivals = () => statements.filter((t) => t.boolean && t.key === best.s.key && t.evidence !== best.s.evidence)
  const group = !quantified ? [best.s] : best.s.siblings ? (namedItems.length > 1 ? namedItems : names(best.s) ? [best.s] : best.s.siblings) : names(best.s) ? [best.s] : [best.s, ...rivals()]
  for (const s of group) {
    const fact = factHolds(s, best.present)
    // A zero count backs a denial and contradicts nothing ("failed": 0 says nothing against "the job was skipped").
    // A conflict is a contradiction only about the claim's own subject, as things stand: a record the claim does not
    // name may be another's, and a claim about how things usually go, would have gone or will be from some day on
    // ("becomes eligible on 6 February") says nothing against today's flag.
    if (fact !== holds) {
      if (s.absent || NOT_NOW.test(c.text)) return null
      const unnamed = s.owner.size && !names(s) && group.length === 1 && rivalled(s, statements)
      return { verdict: unnamed ? 'doubtful' : 'contradicted', s }
    }
  }
  return { verdict: 'supported', s: best.s }
}
