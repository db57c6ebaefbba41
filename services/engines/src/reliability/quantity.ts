/**
 * Quantities as a reader understands them, so structured results and answers can
 * be compared by value rather than by spelling: money (per currency), percentages,
 * durations, lengths, masses, volumes, temperatures, data sizes, speeds, dates and
 * clock times, each normalised to one unit of its dimension (seconds, metres, grams,
 * millilitres, °C, bytes, metres per second, days since the epoch, minutes after midnight). A
 * quantity keeps the tolerance its writing implies (the last digit written, wider
 * after "about"), and a bound when the text says "under", "at least", "up to".
 */

import { PATTERNS, WORDNUM } from './quantity-patterns.js'
import { CURRENCY_WORDS, UNITS } from './units.js'

export type Dim = 'money' | 'percent' | 'duration' | 'length' | 'area' | 'mass' | 'volume' | 'temperature' | 'data' | 'energy' | 'speed' | 'date' | 'time' | 'count' | 'ratio'

/** What a rate is per: "15 mg per kg" is mass per 1 kg of mass, "600 requests per minute" a count per 60 s. */
export interface Per {
  dim: Dim
  /** The per-unit in its dimension's unit (1000 for kg, 60 for minute, 100000 for "per 100 km"); 1 for a counted thing. */
  amount: number
  /** The per-unit as written, singular ("kg", "minute", "share"). */
  word: string
  /**
   * A duration between occurrences, not a flow: "250 mg every 8 hours" or "per 8 hours" is a dose three times a day;
   * "250 mg per hour" is an infusion, "$20 per hour" a price.
   */
  every?: boolean
}

export interface Quantity {
  dim: Dim
  /** In the dimension's unit; a date is its day number (UTC) or month*100+day when the year is not given. */
  value: number
  /** Currency code for money, '/unit' for a rate ("$0.70 a mile"), '' otherwise. */
  unit: string
  /** Half the spacing of the last digit written, in the dimension's unit (wider after "about"). */
  tol: number
  /** The tolerance of the digits alone, before "about" widened it (what arithmetic must meet). */
  digits?: number
  approx: boolean
  /** The text says the true value lies below ('<') or above ('>') this one. */
  bound: '' | '<' | '>'
  /** false when a date was written without a year. */
  hasYear: boolean
  /** The other reading of an ambiguous date (03/04/2026: March 4 or 3 April), or of a data size (GB as GiB). */
  alt?: number
  /** A rate: the value is per this unit ("15 mg per kg", "600 requests per minute"). Money keeps its per-unit in `unit`. */
  per?: Per
  /** The bound is an allowance ("can weigh up to 10 kg"): met only by the same value, as another allowance would be. */
  limit?: boolean
  /** A duration said as the time between occurrences: "every 8 hours". */
  interval?: boolean
  /** A clock time read from a UTC timestamp ("18:30:00Z"): local times may differ by a zone offset the trace gives. */
  utc?: boolean
  /** Position in the text it was read from. */
  index: number
  end: number
}

/** An allowance: a modal, then "up to" (or "at most", "no more than", "a maximum of") right before the figure. */
const LIMIT = /\b(?:can|may|could|allowed to|permitted to)\b(?:\s+[\w-]+){0,4}\s+(?:up to|at most|no more than|a maximum of|a max of)\s*$/i
const APPROX = /\b(?:about|around|roughly|approximately|approx\.?|nearly|almost|some|close to|(?:just|a little|a bit|slightly|a touch) (?:over|under|more than|less than|below|above)|just shy of|an estimated|estimated|~)\s*$/i
const BELOW = /(?:\b(?:under|below|less than|fewer than|within|up to|at most|no more than|not more than|lower than|shorter than|cheaper than)|[<≤])\s*$/i
const ABOVE = /(?:\b(?:over|above|more than|greater than|at least|no less than|exceeds?|exceeding|higher than|longer than|beyond)|[>≥])\s*$/i
/**
 * A time of day bounded by the words before it ("after 9 am", "before noon", "by 5 pm"); of a duration they say when,
 * not how long. ("From 9 am" and "until 5 pm" are the ends of a range: exact.)
 */
const LATER = /\b(?:after|later than|no earlier than)\s*$/i
const EARLIER = /\b(?:before|by|no later than|earlier than)\s*$/i

/** Codes and versions (RX-55102, 88-41207, v2.4.0, node:20-bookworm, LH716) are names, not quantities: blank them first. */
const IDENTIFIER = /\b(?:[A-Za-z]+[-_:]?\d[\w.-]*|(?<![\d.])\d+-\d+(?:-[\dA-Za-z]+)*(?![\d:]|\.\d)|\d+(?:\.\d+){2,}|v\d[\w.]*)\b/g
const isIsoDate = (s: string) => /^\d{4}-\d{2}-\d{2}/.test(s)
const ISO_DURATION = /^P(?=\w*\d)(?:\d+D)?(?:T(?:\d+H)?(?:\d+M)?(?:\d+S)?)?$/

const NUMBER_IN_WORDS_AND_DIGITS = new RegExp(`\\b${WORDNUM}(?:[ -](?:one|two|three|four|five|six|seven|eight|nine))? \\((\\d[\\d,.]*)\\)`, 'gi')

/** Unit and currency words: they say what a figure measures, which its quantity already carries. */
export const UNIT_WORDS = new Set([...Object.keys(UNITS), ...Object.keys(CURRENCY_WORDS)].filter((u) => /^[a-zµμ]+$/.test(u) && u.length > 1))

/** An ISO week, "2028-W21". */
const ISO_WEEK = /\b\d{4}-W(\d{2})\b/g
/** "Of the two" ending a comparison ("the faster of the two", "of the three at $689,000"). */
const OF_THE_FEW = /(?<=\bof the )(?:two|three|four|2|3|4)(?=\s*(?:[.,;:!?)](?!\d)|$)|\s+(?:at|with|by|for|in|on|and|but|so|is|was|are|were)\b)/gi

/** Every quantity in a text, in order of position. */
export function quantities(text: string): Quantity[] {
  // Citation markers ("[1]") are references, not figures.
  // So are a plan's or a clause's number with its letter: "401(k)", "Section 7(b)"; and a clause's number: "clause 12.3".
  // An ISO week ("2028-W21") is week 21, as a claim writes it (the same length, so figures keep their places).
  let work = text.replace(ISO_WEEK, (m, w: string) => `week ${Number(w)}`.padEnd(m.length)).replace(/\[\d{1,3}\]|\b\d+\([a-z]\)|(?<=(?:\b(?:clauses?|sections?|articles?|paragraphs?|annex|schedule|appendix|chapter)|§)\s?)\d+(?:\.\d+)*(?!\d|%|\.\d)/gi, (m) => ' '.repeat(m.length)).replace(IDENTIFIER, (s) => (isIsoDate(s) || ISO_DURATION.test(s) || /^\d+-\d+$/.test(s) && /\d+-\d+\s?(?:°|%|[a-z])/i.test(text) ? s : ' '.repeat(s.length)))
  // The other side of a comparison, "the faster of the two", "the cheapest of the three at $689,000", counts nothing.
  work = work.replace(OF_THE_FEW, (m) => ' '.repeat(m.length))
  // Legal style "sixty (60) days": the digits say it, right before the unit.
  if (work.includes('(')) work = work.replace(NUMBER_IN_WORDS_AND_DIGITS, (all, d: string) => ' '.repeat(all.length - d.length) + d)
  const out: Quantity[] = []
  for (const p of PATTERNS) {
    p.re.lastIndex = 0
    let m: RegExpExecArray | null
    const hits: Array<[number, number]> = []
    while ((m = p.re.exec(work))) {
      if (!m[0].trim()) {
        p.re.lastIndex++
        continue
      }
      const before = text.slice(Math.max(0, m.index - 24), m.index)
      const approx = APPROX.test(before)
      const bound = BELOW.test(before) ? '<' : ABOVE.test(before) ? '>' : ''
      // "can weigh up to 10 kg", "may bring at most 3": an allowance, which another allowance does not fall within.
      const limit = bound !== '' && LIMIT.test(text.slice(Math.max(0, m.index - 60), m.index))
      const every = /\bevery\s*$/i.test(before)
      const timeBound = bound || (LATER.test(before) ? '>' : EARLIER.test(before) ? '<' : '')
      for (const q of p.read(m)) {
        if (every && q.dim === 'duration' && !q.per) q.interval = true
        const qBound = q.dim === 'time' ? timeBound : bound
        const tol = approx ? Math.max(q.tol, Math.abs(q.value) * 0.06, q.dim === 'duration' ? 60 : 0) : q.tol
        out.push({ ...q, approx, bound: qBound, tol, digits: q.tol, index: m.index, end: m.index + m[0].length, ...(limit ? { limit } : {}) })
      }
      hits.push([m.index, m.index + m[0].length])
    }
    // The text read is blanked in one pass (a copy of the text per hit is quadratic in a long answer).
    if (hits.length) {
      let blanked = ''
      let at = 0
      for (const [a, b] of hits) {
        blanked += work.slice(at, a) + ' '.repeat(b - a)
        at = b
      }
      work = blanked + work.slice(at)
    }
  }
  // A temperature range's first number took the unit of the second.
  for (let i = 0; i < out.length; i++) if (out[i]!.dim === 'temperature' && out[i]!.unit === '?') {
    const next = out.find((q, j) => j !== i && q.dim === 'temperature' && q.unit !== '?' && q.index > out[i]!.index)
    const f = next ? /f/i.test(text.slice(next.index, next.end)) : false
    if (f) out[i] = { ...out[i]!, value: ((out[i]!.value - 32) * 5) / 9, tol: out[i]!.tol * (5 / 9) }
    out[i] = { ...out[i]!, unit: '' }
  }
  // A bare number after a setting's name that carries its unit ("RETRY_TIMEOUT_MS from 30000 to 12000",
  // "MAX_UPLOAD_MB = 25") is in that unit, up to the end of the clause.
  for (const m of text.matchAll(UNIT_NAME)) {
    const unit = KEY_UNIT_WORDS[(m[1] ?? m[2])!.toLowerCase()]!
    const from = m.index! + m[0].length
    const stop = /[.;()\n]/.exec(text.slice(from))
    const to = from + Math.min(stop ? stop.index : Infinity, 40)
    for (let i = 0; i < out.length; i++) {
      const q = out[i]!
      if (q.dim !== 'count' || q.per || q.index < from || q.index >= to) continue
      const r = quantities(`${text.slice(q.index, q.end)} ${unit}`)[0]
      if (r && r.dim !== 'count') out[i] = { ...r, approx: q.approx, bound: q.bound, index: q.index, end: q.end }
    }
  }
  return out.sort((a, b) => a.index - b.index)
}

/** A setting's name ending in its unit, with underscores or (a result's value as words) spaces: RETRY_TIMEOUT_MS. */
const UNIT_SUFFIX = 'MS|SECS?|SECONDS|MINS?|MINUTES|HOURS|DAYS|KB|MB|GB|BYTES|PCT'
const UNIT_NAME = new RegExp(`\\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(${UNIT_SUFFIX})\\b|\\b[A-Z][A-Z0-9]+(?: [A-Z][A-Z0-9]+)+ (${UNIT_SUFFIX})\\b`, 'g')
const KEY_UNIT_WORDS: Record<string, string> = { ms: 'ms', sec: 's', secs: 's', seconds: 's', min: 'min', mins: 'min', minutes: 'min', hours: 'h', days: 'days', kb: 'kB', mb: 'MB', gb: 'GB', bytes: 'bytes', pct: '%' }
