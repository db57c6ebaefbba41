/**
 * Splitting an answer into the claims it makes: one per sentence or bullet that
 * asserts something. Questions, greetings, offers of further help, the assistant's own
 * advice ("I'd replace the batteries"), intro lines ("Here is what I found:") and
 * reference lists assert nothing a trace could back.
 */
import { quantities } from './quantity.js'
import { analyze, sentences } from './text.js'

const REFERENCE_LINE = /^\s*(?:\[\d+\]:?|\d+\.)\s*(?:<)?https?:\/\/\S+\s*$/i
const SOURCE_LINE = /^\s*(?:sources?|references?|citations?)\s*:/i
const BULLET = /^\s*(?:[-*•+]|\d{1,2}[.)])\s+/
const GREETING = /^(?:hi|hello|hey|greetings|thanks|thank you|sure|certainly|of course|absolutely|great question|good question|you're welcome|no problem)\b/i
const OFFER = /\b(?:let me know|hope (?:this|that) helps|feel free|happy to help|glad to help|anything else|don't hesitate|do not hesitate|reach out|I(?:'ll| will| can) (?:walk you through|help you|guide you|show you))\b/i
/** The assistant's own advice and sympathy ("I'd replace the batteries", "Sorry to hear that", "It's always a good idea to …"): no fact. */
const ADVICE = /^\s*(?:(?:so|then|and|but|also),?\s+)?I(?:'d| would)\s+(?:still\s+|also\s+|really\s+|strongly\s+|personally\s+)?(?!be\b|have to\b|need\b|like\b|love\b)[a-z]+|^\s*(?:sorry to hear|for more help|for more information|for (?:more )?details)\b|\b(?:it's|it is) (?:always |usually )?a good idea\b|^\s*(?:(?:so|and|but),?\s+)?(?:it's|it is|it'd be|it would be|it may be|it might be|it isn't|it is not)\s+(?:probably\s+|still\s+|well\s+|not\s+)?worth\s+[a-z]+ing\b|^\s*sorry\b/i
/**
 * A lead-in that labels what follows, not a claim: a few words in bold before the sentence ("**Lead authority.**
 * Because …") or before a colon ("One thing to flag: …", "Good news on coverage: …"), with no figure and no verb in
 * its usual shapes (a form of be, have or do, a modal, a contraction, a past form).
 */
const VERB = /\b(?:is|are|was|were|be|been|being|am|has|have|had|does|do|did|can|could|will|would|shall|should|may|might|must|[a-z]+ed|[a-z]+n't|[a-z]+'(?:s|re|ve|ll|d|m))\b/i
const headingLike = (s: string) => s.trim().split(/\s+/).length <= 5 && !/\d/.test(s) && !VERB.test(s)

/** Markdown emphasis and headings change nothing a claim says. */
const unmark = (line: string) =>
  line
    .replace(/^\s*#{1,6}\s+/, '')
    .replace(/\*\*|__|`/g, '')
    .replace(/\[([^\]]+)\]\((https?:\/\/[^)]+)\)/g, '$1 ($2)')
    .trim()

function asserts(sentence: string): boolean {
  const s = sentence.trim()
  if (!s || s.endsWith('?')) return false
  // A line that introduces a list asserts nothing, unless it states when or how much ("Bids as of 10:15 this morning:").
  if (s.endsWith(':') && !quantities(s).some((q) => q.dim !== 'count')) return false
  if (OFFER.test(s) || ADVICE.test(s)) return false
  if (/^please\b/i.test(s)) return false
  const a = analyze(s)
  // A greeting may open a real sentence ("Sure, the fee is $5"): only drop it when little else is said.
  if (GREETING.test(s) && a.terms.size < 3) return false
  // A claim names at least two things, or a number and a thing.
  return a.terms.size >= 2
}

/** Words that open what a clause adds to the one before it: "…, which comes to $240", "…, leaving 6.4 GB". */
const ADDS = 'plus|which|leaving|bringing|making|putting|giving|taking|beating|lasting|adding|for a total|a saving|i\\.e\\.'
/** A claim split off at what it adds: it computes from the clause before it (judgement.ts). */
export const CONTINUES = new RegExp(`^\\s*(?:${ADDS})\\b`, 'i')

// Where one sentence joins two statements: a semicolon, a colon after a statement (before words or figures), a dash,
// a comma before a coordinating conjunction, or before what the clause adds ("…, for a total of $1,255").
const CLAUSE_BREAK = new RegExp(`;\\s+|:\\s+(?=[A-Za-z0-9$€£])|,\\s+(?=(?:and|but|while|whereas|so|although|though|${ADDS})\\s)|\\s[—–]\\s(?=\\S)`, 'g')
/**
 * A side must say enough on its own to be a claim: three content terms, or two
 * with a subject of its own ("It's gift-wrapped", "the parcel is insured").
 */
const SUBJECT = new RegExp(`^\\s*(?:(?:and|but|while|so|although|though|${ADDS})\\s+)?(?:the|it|it's|its|they|they're|their|this|that|these|those|your|you|you're|we|our|he|she|someone|there|both|neither|each|all)\\b`, 'i')
const standsAlone = (side: string) => {
  // (its start is enough to say so: a sentence of thousands of breaks must not read each side whole)
  const s = side.slice(0, 300)
  const n = analyze(s).terms.size
  return n >= 3 || (n >= 2 && (SUBJECT.test(s) || quantities(s).some((q) => q.dim !== 'count')))
}

/**
 * A sentence that joins independent statements is as many claims: each can be
 * backed or not on its own (the atomic claims of factuality evaluation), and one
 * unsupported half must not sink, or ride on, the other. A side too short to
 * stand alone stays joined to its neighbour.
 */
export function clauses(sentence: string): string[] {
  const parts: string[] = []
  let last = 0
  for (const m of sentence.matchAll(CLAUSE_BREAK)) {
    const left = sentence.slice(last, m.index).trim()
    const right = sentence.slice(m.index! + m[0].length)
    if (standsAlone(left) && standsAlone(right)) {
      parts.push(left)
      last = m.index! + m[0].length
    }
  }
  parts.push(sentence.slice(last).trim())
  return parts.filter(Boolean)
}

/** Bold words that end in a full stop or a colon, inside the bold or right after it: a label ("**Basic plan** costs …" is a subject). */
const BOLD_LEAD = /^\s*(?:\*\*|__)([^*_\n]{1,60}?)(?:[.:](?:\*\*|__)|(?:\*\*|__):)\s*/

/** A claim, and the label of the section or bullet it sits under ("Harbor Rewards Visa" of "- Harbor Rewards Visa: 0% for 18 months"). */
export interface SplitClaim {
  claim: string
  topic: string
  /** What is judged, when the claim alone does not say it: a table row read with its header's names. */
  reading?: string
}

/** A markdown table's row, and the rule under its header ("|---|:--:|"). */
const TABLE_ROW = /^\s*\|.*\|\s*$/
const TABLE_RULE = /^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$/

const cellsOf = (row: string) => row.trim().replace(/^\||\|$/g, '').split('|').map((c) => c.trim())

/**
 * A cell read with its column's name ("APR after 25.99%"): a unit the header gives in brackets follows a bare figure
 * ("Price (EUR)" and "49": "Price 49 EUR"; "Outbound (Thu 15 Jun)" keeps its bracket); an empty cell or a dash says
 * nothing.
 */
function cellReading(column: string, cell: string): string[] {
  if (/^(?:|[-–—]+|n\/a)$/i.test(cell)) return []
  const [, name, unit] = /^(.*?)\s*\(([^)]{1,12})\)\s*$/.exec(column) ?? []
  if (!name || !unit || !/^[\d.,\s]+$/.test(cell) || !quantities(`${cell} ${unit}`).some((q) => q.dim !== 'count')) return [`${column} ${cell}`]
  return [`${name} ${cell} ${unit}`]
}

/** A line that only names what the lines under it are about: a heading, a bold line, a short label ending in a colon. */
// (Matched against the line with its trailing spaces cut: a lazy heading before "\s*$" would try every split of a long
// run of spaces.)
const TOPIC_LINE = /^\s*(?:#{1,6}\s+(.+)|(?:\*\*|__)([^*_\n]+?)(?:\*\*|__):?|([^.:\n]+?):)$/

/** The claims of an answer, each with the label it sits under (a reader takes "After the promo …" as that card's). */
export function splitClaimsWithTopics(text: string, limit = Infinity): SplitClaim[] {
  const out: SplitClaim[] = []
  let section = ''
  const lines = text.split(/\n/)
  let header: string[] = []
  for (const [i, rawLine] of lines.entries()) {
    if (out.length >= limit) break
    if (REFERENCE_LINE.test(rawLine) || SOURCE_LINE.test(rawLine)) continue
    // A table's header names its columns and asserts nothing; each row is a claim about the thing its first cell names.
    if (TABLE_ROW.test(rawLine)) {
      if (TABLE_RULE.test(rawLine)) continue
      if (TABLE_RULE.test(lines[i + 1] ?? '')) {
        header = cellsOf(unmark(rawLine))
        continue
      }
      const row = unmark(rawLine)
      const cells = cellsOf(row)
      if (analyze(row).terms.size < 2) continue
      const named = header.length === cells.length && cells.length > 1
      out.push({ claim: row, topic: cells[0] ?? section, ...(named ? { reading: `${cells[0]}: ${cells.slice(1).flatMap((c, j) => cellReading(header[j + 1]!, c)).join(', ')}` } : {}) })
      continue
    }
    header = []
    let bare = rawLine.replace(BULLET, '')
    const heading = TOPIC_LINE.exec(bare.trimEnd())
    const label = heading ? unmark(heading[1] ?? heading[2] ?? heading[3] ?? '') : ''
    // (A line that only names its section asserts nothing.)
    if (heading && headingLike(label)) {
      section = label
      continue
    }
    let topic = section
    let boldLabel = ''
    const lead = BOLD_LEAD.exec(bare)
    if (lead && bare.length > lead[0].length && headingLike(lead[1]!)) {
      bare = bare.slice(lead[0].length)
      topic = boldLabel = lead[1]!.trim()
    }
    const line = unmark(bare)
    if (!line) continue
    for (const [k, sentence] of sentences(line, true).entries()) {
      // A bold label's value says little alone ("**PAC code:** BWX482913", "**GMV:** €2,015,750, up 9.4%"): the label is
      // its subject. (A label before words with a verb is their topic: "**Basic plan:** costs $10 a month".)
      const labelled = k === 0 && boldLabel !== '' && (!asserts(sentence) || /^[-+−]?[$€£¥\d]/.test(sentence))
      const s = labelled ? `${boldLabel}: ${sentence}` : sentence
      if (!asserts(s)) continue
      for (const c of labelled ? clauses(sentence).map((part, i) => (i ? part : `${boldLabel}: ${part}`)) : clauses(s)) {
        // (a label before a colon is no claim: it names what the clauses after it are about)
        if (headingLike(c) && s.includes(`${c}:`)) topic = c
        else if (asserts(c)) out.push({ claim: c, topic })
      }
    }
  }
  return out.slice(0, limit)
}

export const splitClaims = (text: string): string[] => splitClaimsWithTopics(text).map((c) => c.claim)
