/**
 * Rules out of policy text: each sentence (or ;-separated clause) of a passage or of
 * the policy description that carries a modal cue becomes a rule with
 *
 * - a modality: `prohibition` (must not, never, do not, may not, cannot, shall not,
 *   should not, avoid, "no X", prohibited/forbidden/not allowed), `restriction`
 *   ("only"), or `obligation` (must, always, required to). Obligations are kept for
 *   the record but never raise a flag: their violation is an absence, which a
 *   lexical judge cannot see (docs/engines.md, alignment limits);
 * - a severity from the modality's strength: never / must not / do not / may not /
 *   cannot / shall not / "no X" / prohibited → high; should not / avoid / only →
 *   medium; everything else → low;
 * - the object: the clause's content terms (stemmed) without the cue words and
 *   without words that name the assistant itself;
 * - a limit, when the clause bounds a quantity of time ("within 30 days", "older
 *   than 30 days", "more than 2 weeks"): then only an output quantity beyond the
 *   limit is a violation.
 */
import { sentences, stem } from '../reliability/text.js'
import { actParts, propositionOf } from './acts.js'
import { normalisedWords } from './embed.js'

export type Modality = 'prohibition' | 'restriction' | 'obligation' | 'permission'
export type Severity = 'high' | 'medium' | 'low'

export interface Rule {
  /** The sentence or clause as written: the flag's policy_excerpt. */
  text: string
  /** Where it came from: a document id, or 'description'. */
  source: string
  chunk_index: number
  modality: Modality
  severity: Severity
  /** Stemmed content terms of what the rule is about. */
  object: string[]
  /** The first content word after the cue ("promise", "diagnose", "reveal"): what the rule forbids doing. */
  head: string
  /** The clause from its cue on ("recommend buying, selling or holding any specific share"): what the sentence model compares. */
  act: string
  /** The act in the pieces the sentence model compares (acts.ts actParts); the act first. */
  parts: string[]
  /** What the rule forbids saying, if it forbids saying something (acts.ts propositionOf). */
  propositions: string[]
  /** An upper bound of time in days, when the clause has one. */
  limitDays: number | null
  /**
   * An upper bound of money ("a credit of up to $20", "anything above $20"), from the
   * clause, else the one bound its passage states: amounts within it are allowed.
   */
  limitAmount: number | null
  /**
   * A restriction's approved source ("only as listed on the unit page", "exactly as
   * returned by the booking system"): its stemmed words. A sentence that names it is
   * quoting that source, as the rule asks.
   */
  approvedSource: string[]
  /**
   * A restriction's required form: the stemmed words after its "only" ("as a range",
   * "together with the statement that past performance does not guarantee future
   * results", "for professional clients"). A figure stated without that form breaks it.
   */
  requiredForm: string[]
  /**
   * The condition or exception under which the act is allowed ("unless the report says
   * so", "without a manager-approved quote", "before a credit application"): the
   * clause's words from its "unless" on, '' when none.
   */
  exception: string
}

const EXCEPTION = /\b(?:unless|except(?: when| where| as| for)?|other than|without|before|until|beyond|outside(?: of)?|rather than)\b.*$/i

const HIGH = /\b(must not|mustn't|must never|shall not|shan't|may not|never|do not|don't|does not|doesn't|cannot|can't|can not|is not allowed to|are not allowed to|not permitted to|is prohibited|are prohibited|prohibited from|forbidden)\b/i
// "Avoid" instructs only as the clause's own verb ("Avoid X", "should avoid X"), not inside a reported instruction ("tells them to leave and avoid switches").
const MEDIUM = /\b(should not|shouldn't|should never|(?:^|(?:should|must|shall|will|always|please)\s+)avoid|refrain from)\b/i
const NO_X = /^(?:[-*\d.)\s]*)no\s+[a-z]/i
const ONLY = /\bonly\b/i
const OBLIGATION = /\b(must|always|is required to|are required to|shall)\b/i
const PERMISSION = /\b(may|can|is allowed to|are allowed to|is welcome to|are welcome to|(?:is|are) (?:fine|acceptable|permitted|allowed))\b/i

/** Words that name the one being instructed, not what the rule is about. */
const SELF = new Set(['assistant', 'agent', 'bot', 'chatbot', 'ai', 'model', 'system', 'it', 'we', 'you'].map(stem))
const CUE_WORDS = new Set(
  ['must', 'never', 'shall', 'may', 'should', 'avoid', 'refrain', 'only', 'always', 'required', 'allowed', 'permitted', 'prohibited', 'forbidden', 'cannot', 'ever', 'any', 'instead'].map(stem),
)

const UNIT_DAYS: Record<string, number> = { day: 1, days: 1, week: 7, weeks: 7, month: 30, months: 30, year: 365, years: 365 }
const NUMBER_WORDS: Record<string, number> = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, twelve: 12, fourteen: 14, thirty: 30, sixty: 60, ninety: 90 }

/** Quantities of time in a text, in days ("45 days", "two months", "30-day"). */
export function durationsInDays(text: string): number[] {
  const out: number[] = []
  for (const m of text.toLowerCase().matchAll(/\b(\d+(?:\.\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|twelve|fourteen|thirty|sixty|ninety)[\s-]+(days?|weeks?|months?|years?)\b/g)) {
    const n = NUMBER_WORDS[m[1]!] ?? Number(m[1])
    out.push(n * UNIT_DAYS[m[2]!]!)
  }
  return out
}

const LIMIT = /\b(?:within|older than|more than|longer than|after|over|up to|at most|beyond|past)\s+(?:the\s+)?(?:first\s+)?(\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve|fourteen|thirty|sixty|ninety)[\s-]+(days?|weeks?|months?|years?)\b/i

function limitOf(clause: string): number | null {
  const m = LIMIT.exec(clause)
  if (!m) return null
  const n = NUMBER_WORDS[m[1]!.toLowerCase()] ?? Number(m[1])
  return n * UNIT_DAYS[m[2]!.toLowerCase()]!
}

const MONEY_LIMIT = /\b(?:up to|at most|no more than|not more than|a maximum of|maximum of|max(?:imum)?|above|over|more than|exceeding|beyond)\s+(?:an? )?(?:[$€£]\s?(\d[\d,]*(?:\.\d+)?)|(\d[\d,]*(?:\.\d+)?)\s?(?:dollars|euros|pounds|usd|eur|gbp)\b)/gi

/** The distinct money bounds a text states. */
function moneyLimits(text: string): number[] {
  return [...new Set([...text.matchAll(MONEY_LIMIT)].map((m) => Number((m[1] ?? m[2]!).replace(/,/g, ''))))]
}

/** Amounts of money in a text ("$35", "35 dollars", "€12.50"). */
export function amounts(text: string): number[] {
  return [...text.matchAll(/(?:[$€£]\s?(\d[\d,]*(?:\.\d+)?)|\b(\d[\d,]*(?:\.\d+)?)\s?(?:dollars?|euros?|pounds?|usd|eur|gbp)\b)/gi)].map((m) => Number((m[1] ?? m[2]!).replace(/,/g, '')))
}

const SOURCE = /\bonly\b.*?\b(?:(?:as\s+)?(?:\w+\s+){0,2}?(?:by|on|in|from|through|via)|from|through|via)\s+(?:the\s+|our\s+|an?\s+)?((?:official\s+)?[a-z][\w-]*(?:\s+[a-z][\w-]*)?)/i

function approvedSourceOf(clause: string): string[] {
  const m = SOURCE.exec(clause)
  return m ? normalisedWords(m[1]!) : []
}

function requiredFormOf(clause: string): string[] {
  const at = clause.search(/\bonly\b/i)
  return at < 0 ? [] : [...new Set(normalisedWords(clause.slice(at + 4)).filter((w) => !CUE_WORDS.has(w) && !SELF.has(w) && !/^\d/.test(w)))]
}

function modalityOf(clause: string): { modality: Modality; severity: Severity; cueEnd: number } | null {
  const hi = HIGH.exec(clause)
  if (hi) return { modality: 'prohibition', severity: 'high', cueEnd: hi.index + hi[0].length }
  const med = MEDIUM.exec(clause)
  if (med) return { modality: 'prohibition', severity: 'medium', cueEnd: med.index + med[0].length }
  if (NO_X.test(clause)) return { modality: 'prohibition', severity: 'high', cueEnd: clause.toLowerCase().indexOf('no') + 2 }
  const only = ONLY.exec(clause)
  if (only) return { modality: 'restriction', severity: 'medium', cueEnd: only.index + only[0].length }
  const ob = OBLIGATION.exec(clause)
  if (ob) return { modality: 'obligation', severity: 'low', cueEnd: ob.index + ob[0].length }
  const may = PERMISSION.exec(clause)
  if (may) return { modality: 'permission', severity: 'low', cueEnd: may.index + may[0].length }
  return null
}

/**
 * A sentence's modal clauses: cut at ";", and at a comma before a clause of its own
 * cue ("must not X, must quote only Y, and must not Z"; "must not name a tenant, and
 * schedules repairs only through the portal").
 */
function clausesOf(sentence: string): string[] {
  return sentence.split(/;\s+|,\s*(?:and\s+|or\s+)?(?=(?:must|should|shall|may|never|do not|don't|cannot)\b)|,\s*(?:and|or)\s+(?=[^,]*\bonly\b)/i)
}

/**
 * What a passage says without forbidding or restricting anything: its obligations,
 * permissions and descriptions ("Buyers message sellers through the in-app inbox").
 * A sentence nearer to one of these than to a forbidden act is doing what the policy
 * describes (judge.ts, weak cues).
 */
export function allowedStatements(text: string): string[] {
  const clean = text.replace(/<[^>]+>/g, ' ').replace(/[*_`]+/g, '')
  return sentences(clean)
    .flatMap(clausesOf)
    .map((c) => c.replace(/^[-*\d.)\s]+/, '').trim())
    .filter((c) => c.split(/\s+/).length >= 4 && !/^(?:prohibition|restriction)$/.test(modalityOf(c)?.modality ?? ''))
}

const propositionsOf = (parts: string[]) => [...new Set(parts.map(propositionOf).filter((p): p is string => p !== null))]

/** The rules stated in a passage (or the description). */
export function extractRules(text: string, source: string, chunkIndex = -1): Rule[] {
  const rules: Rule[] = []
  // HTML that slipped through, Markdown list markers and emphasis are not words of the rule.
  const clean = text.replace(/<[^>]+>/g, ' ').replace(/[*_`]+/g, '')
  const passageLimits = moneyLimits(clean)
  for (const sentence of sentences(clean)) {
    // "Must not X, must quote only Y, and must not Z": one rule per modal clause.
    for (const clause of clausesOf(sentence)) {
      const c = clause.replace(/^[-*\d.)\s]+/, '').trim()
      if (c.length < 8) continue
      const m = modalityOf(c)
      if (!m) continue
      const limitDays = limitOf(c)
      // "May add a credit of up to $30": allowed up to its bound, so a restriction of it.
      if (m.modality === 'permission' && (limitDays !== null || moneyLimits(c).length === 1)) Object.assign(m, { modality: 'restriction', severity: 'medium' })
      const object = [...new Set(normalisedWords(c).filter((w) => !SELF.has(w) && !CUE_WORDS.has(w) && !(limitDays !== null && /^\d/.test(w))))]
      if (object.length === 0) continue
      const after = normalisedWords(c.slice(m.cueEnd)).filter((w) => !CUE_WORDS.has(w) && !SELF.has(w))
      // A restriction's act comes before its cue ("Fees may be quoted only as listed"): the whole clause.
      const act = m.modality === 'restriction' ? '' : c.slice(m.cueEnd).replace(/\s+/g, ' ').replace(/^[\s,:;-]+|[\s.;:]+$/g, '')
      const own = moneyLimits(c)
      const limitAmount = own.length === 1 ? own[0]! : own.length === 0 && passageLimits.length === 1 ? passageLimits[0]! : null
      rules.push({ text: c.replace(/\s+/g, ' '), source, chunk_index: chunkIndex, modality: m.modality, severity: m.severity, object, head: after[0] ?? '', act: act || c, parts: act ? actParts(act) : [c], propositions: m.modality === 'prohibition' && act ? propositionsOf(actParts(act)) : [], limitDays, limitAmount, approvedSource: m.modality === 'restriction' ? approvedSourceOf(c) : [], requiredForm: m.modality === 'restriction' ? requiredFormOf(c) : [], exception: EXCEPTION.exec(c.slice(m.cueEnd))?.[0] ?? '' })
    }
  }
  return rules
}
