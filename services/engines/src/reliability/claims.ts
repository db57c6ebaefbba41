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
/**
 * Where a clause stated in full is followed by a phrase that adds another fact ("filed at 2,310 words, with images
 * ready", "The county tax rose by $322, roughly 12% more than last year", "Doors open at 6:30 pm and the quartet
 * starts at 7:00 pm"): any comma, or an "and" before a subject of its own. Looser than CLAUSE_BREAK, so the side before
 * must state something (a verb or a measured figure) and not be a condition or a time clause ("If you cancel by 5 June,
 * …"), and the side after no item of a list the sentence goes on with.
 */
const LOOSE_BREAK = /(,)\s+(?=\S)|\s+(and)\s+(?=(?:the|it|it's|its|they|they're|their|this|that|these|those|your|you|you're|we|our|he|she|there)\s)/
const BREAKS = new RegExp(`${CLAUSE_BREAK.source}|${LOOSE_BREAK.source}`, 'g')
const SUBORDINATOR = '(?:if|when|whenever|unless|once|because|since|as|although|though|while|whereas|whether|until|before|after|provided|so that)\\b'
const OPENS_SUBORDINATE = new RegExp(`^\\s*(?:(?:and|but|so|yes|no),?\\s+)?${SUBORDINATOR}`, 'i')
/** A weekday or a day word before the comma is the date's ("Friday, October 30"); a year or a restated figure after it too. */
const DATE_GOES_ON = /\b(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?\.?$|\b(?:today|tomorrow|tonight|yesterday)$/i
const RIGHT_JOINED = new RegExp(`^\\s*(?:${SUBORDINATOR}|(?:at|on|by|from|until|in)\\s+(?:about\\s+|around\\s+)?(?:\\d|(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\\b)|not\\b|and\\b|or\\b|nor\\b|etc\\b|\\d{4}\\b|(?:about|roughly|around|approximately|nearly|almost|just|well|some|only|over|under|up to|more than|less than|or)?\\s*(?:[-+−]?[$€£¥]?\\d|one\\b|two\\b|three\\b|four\\b|five\\b|six\\b|seven\\b|eight\\b|nine\\b|ten\\b|twice\\b|half\\b|double\\b))`, 'i')
/** What the side after a loose break opens with when it adds a fact without a verb of its own ("with images ready", "owned by …"). */
const ADDED_PHRASE = /^\s*(?:with|without|which|who|whose|where|owned|set|due|open|closed|including|excluding|each|our|its|their|your)\b/i
/** A side that opens with a finite verb has the subject before the comma ("most of that, 322 MB, comes from …"). */
const FINITE_FIRST = /^\s*(?:is|are|was|were|has|have|had|does|do|did|can|could|will|would|should|may|might|must|[a-z]+n't|comes|goes|makes|takes|means)\b/i
/** A finite verb: a clause of its own ("-ed" forms are as often adjectives: "your combined tax rate"). */
const FINITE = /\b(?:is|are|was|were|be|been|am|has|have|had|does|do|did|can|could|will|would|shall|should|may|might|must|[a-z]+n't|[a-z]+'(?:s|re|ve|ll|d|m))\b/i
/** A condition by inversion: "had you cancelled the trip, the policy would have paid …". */
const INVERTED = /\b(?:had|were|should) (?:you|I|we|they|he|she|it)\b/i
const SCENE = /^\s*(?:(?:and|but|so),?\s+)?(?:at|for|with|by|on|in|from|given|based on|after|before|under|over|per|to|as|using|including|excluding|[a-z]+ing)\b/i
/** A comparison with the clause before it ("…, well under your 2-second limit", "…, much deeper at 112 km"). */
const COMPARES = /^\s*(?:(?:well|much|far|just|slightly|still|comfortably|way)\s+)?(?:under|over|above|below|within|ahead|behind|beyond|short of|[a-z]+er than|[a-z]+er at|more|less|fewer)\b/i
const measured = (side: string) => quantities(side.slice(0, 300)).some((q) => q.dim !== 'count')
const unclosed = (side: string) => (side.match(/\(/g)?.length ?? 0) > (side.match(/\)/g)?.length ?? 0)
/** The side before a loose break states something, and is no condition, opening phrase or date. */
function leftStates(left: string): boolean {
  if (!(VERB.test(left) || measured(left)) || OPENS_SUBORDINATE.test(left) || unclosed(left)) return false
  // (An opening phrase, "At your combined tax rate of 38.5%, you'll save …", sets the scene for the clause after it.)
  return !((SCENE.test(left) && !FINITE.test(left.replace(SCENE, ''))) || INVERTED.test(left))
}

/** The side after a loose break adds a fact of its own (its first phrase decides: up to the next comma). */
function rightAdds(right: string, leftMeasured: () => boolean, and: boolean): boolean {
  const r = right.slice(0, 300).split(/,\s/)[0]!
  if (and) return VERB.test(r) || measured(r)
  if (RIGHT_JOINED.test(r) || FINITE_FIRST.test(r) || COMPARES.test(r)) return false
  // (A figure after "with", "for" or "by" is what a clause without one says: "August was the wettest month, with 1.75
  // inches of rain", "Weyburn is the better bid, by $6.50 a tonne".)
  if (/^\s*(?:with|for|by|at)\b/i.test(r)) return measured(r) ? leftMeasured() : true
  return VERB.test(r) || ADDED_PHRASE.test(r) || measured(r)
}
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
export function clauseParts(sentence: string): Array<{ text: string; continues: boolean }> {
  const parts: Array<{ text: string; continues: boolean }> = []
  let last = 0
  let continues = false
  // (the start of the side before is enough to say so, read once while it grows: a sentence of thousands of commas
  // must not read it again at each)
  let memo: { at: number; ok: boolean } | null = null
  const leftOk = (left: string) => {
    if (memo?.at === last && left.length >= 300) return memo.ok
    const ok = leftStates(left.slice(0, 300))
    if (left.length >= 300) memo = { at: last, ok }
    return ok
  }
  for (const m of sentence.matchAll(BREAKS)) {
    const loose = m[1] !== undefined || m[2] !== undefined
    // (past the length of any sentence a person reads, a comma is no clause break worth weighing)
    if (loose && m.index! > 2000) continue
    const left = sentence.slice(last, m.index).trim()
    const right = sentence.slice(m.index! + m[0].length)
    if (loose && (DATE_GOES_ON.test(left.slice(-20)) || !rightAdds(right, () => measured(left.slice(0, 300)), m[2] !== undefined) || !leftOk(left))) continue
    if (standsAlone(left) && standsAlone(right)) {
      parts.push({ text: left, continues })
      last = m.index! + m[0].length
      continues = loose
    }
  }
  parts.push({ text: sentence.slice(last).trim(), continues })
  return parts.filter((p) => p.text)
}

export const clauses = (sentence: string): string[] => clauseParts(sentence).map((p) => p.text)

/** Bold words that end in a full stop or a colon, inside the bold or right after it: a label ("**Basic plan** costs …" is a subject). */
const BOLD_LEAD = /^\s*(?:\*\*|__)([^*_\n]{1,60}?)(?:[.:](?:\*\*|__)|(?:\*\*|__):)\s*/

/** A claim, and the label of the section or bullet it sits under ("Harbor Rewards Visa" of "- Harbor Rewards Visa: 0% for 18 months"). */
export interface SplitClaim {
  claim: string
  topic: string
  /** What is judged, when the claim alone does not say it: a table row read with its header's names. */
  reading?: string
  /** The line that introduced the list the claim is an item of ("Yes, C-14 fits Wren well:"): its entity is the items'. */
  intro?: string
  /** A phrase split off the clause before it ("…, about 3.2 lb", "…, with 1 TB for $99.90"): it may compute from that clause's figures. */
  continues?: boolean
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
  let intro = ''
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
    // (An item of a list keeps the line that introduced it; any other line ends the list.)
    const item = BULLET.test(rawLine)
    if (!item && rawLine.trim()) intro = ''
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
    if (!item && line.trimEnd().endsWith(':') && !asserts(line)) intro = line.trimEnd().slice(0, -1)
    for (const [k, sentence] of sentences(line, true).entries()) {
      // A bold label's value says little alone ("**PAC code:** BWX482913", "**GMV:** €2,015,750, up 9.4%"): the label is
      // its subject. (A label before words with a verb is their topic: "**Basic plan:** costs $10 a month".)
      const labelled = k === 0 && boldLabel !== '' && (!asserts(sentence) || /^[-+−]?[$€£¥\d]/.test(sentence))
      const s = labelled ? `${boldLabel}: ${sentence}` : sentence
      if (!asserts(s)) continue
      for (const { text: c, continues } of labelled ? clauseParts(sentence).map((p, i) => (i ? p : { ...p, text: `${boldLabel}: ${p.text}` })) : clauseParts(s)) {
        // (a label before a colon is no claim: it names what the clauses after it are about)
        if (headingLike(c) && s.includes(`${c}:`)) topic = c
        else if (asserts(c)) out.push({ claim: c, topic, ...(item && intro ? { intro } : {}), ...(continues ? { continues } : {}) })
      }
    }
  }
  return out.slice(0, limit)
}

export const splitClaims = (text: string): string[] => splitClaimsWithTopics(text).map((c) => c.claim)
