/**
 * The lexical machinery of the reliability engine: sentences, content-word stems,
 * numbers with the words around them, and negation cues. Everything is local and
 * deterministic; no dictionary beyond the stop-word list below.
 */

// Function words, modal/auxiliary verbs and deictic words ("today") carry no fact a
// document could confirm; meta words ("according", "note") only frame a claim.
const STOP = new Set(
  `a an the and or but if then so than that this these those there here it its it's they them their theirs we us our ours you your yours i me my
  he him his she her hers who whom whose which what when where why how is are was were be been being am do does did done doing have has had having
  can could will would shall should may might must get gets got getting to of in on at by for with from into onto over under about as up out off
  per via also just only still very really quite too even yet already both each every any some all most more many much such other another own
  same again further once ok okay yes yeah please note according generally typically usually normally basically approximately roughly around
  today tomorrow yesterday now currently right let lets able need needs`.split(/\s+/),
)
// Words that answer "how much" without being digits.
const NUMBER_WORDS: Record<string, number> = {
  two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12, fifteen: 15,
  twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, ninety: 90, hundred: 100,
}
const SCALE: Record<string, number> = { thousand: 1e3, k: 1e3, million: 1e6, billion: 1e9, bn: 1e9 }
const NEGATION = new Set(['not', 'no', 'never', 'none', 'nothing', 'neither', 'nor', 'without', 'cannot', 'non', 'unless'])
/** How many content words after a negation cue it governs (within its clause). */
const NEG_SCOPE = 3

/** Light suffix stripping, so refund/refunds/refunded and monthly/month meet. */
export function stem(word: string): string {
  let w = word.toLowerCase()
  if (w.length <= 3) return w
  if (w.endsWith('ies') && w.length > 4) w = w.slice(0, -3) + 'y'
  else if (w.endsWith('sses')) w = w.slice(0, -2)
  else if (w.endsWith('s') && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1)
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3)
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2)
  else if (w.length > 6 && w.endsWith('able')) w = w.slice(0, -4)
  if (w.length > 5 && w.endsWith('ly')) w = w.slice(0, -2)
  if (w.length > 4 && w.endsWith('e')) w = w.slice(0, -1)
  if (w.length > 4 && /([bdglmnprt])\1$/.test(w)) w = w.slice(0, -1)
  return w
}

export const isStopword = (w: string) => STOP.has(w.toLowerCase())

/** A number as the text states it, with the content words beside it (its "unit"). */
export interface Quantity {
  value: number
  context: Set<string>
}

export interface Analysis {
  /** Content stems and number keys ("#12.5") with their weight: entities and numbers count double. */
  terms: Map<string, number>
  numbers: Quantity[]
  /** How many negation cues the text holds. */
  negations: number
  /** Content stems some negation cue governs. */
  negated: Set<string>
}

export const numberKey = (v: number) => '#' + Number(v.toPrecision(6))

const URL_RE = /\bhttps?:\/\/[^\s<>()\]"']+/gi
// A code written with a hyphen (SC-3391, T-112, INV-22817, OL-LT-04417) is one word: its digits are its identity, and
// read as a figure the three certificates SC-3391, SC-3527 and SC-3710 would all be "SC".
const TOKEN_RE = /([$€£])?\s?(\d+(?:,\d{3})*(?:\.\d+)?|\.\d+)\s?(%|percent\b|thousand\b|million\b|billion\b|bn\b|k\b)?|([A-Z]{1,6}(?:-[A-Z]{1,6})*-\d[\dA-Z]*\b|[A-Za-z][A-Za-z0-9]*)|([,;:.!?()])/g

type Token = { kind: 'num'; value: number; unit: string } | { kind: 'word'; raw: string; stem: string; stop: boolean; first: boolean } | { kind: 'punct' }

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']
/**
 * Structured data (tool results, JSON) writes dates as ISO 2026-09 or 2026-09-14
 * where an answer says "September" or "14 September 2026": both become the words.
 */
const isoDates = (text: string) =>
  text.replace(/\b(\d{4})-(0[1-9]|1[0-2])(?:-(0[1-9]|[12]\d|3[01]))?(?![\d:-])/g, (_, y: string, m: string, d?: string) => ` ${MONTHS[Number(m) - 1]} ${d ? `${Number(d)} ` : ''}${y} `)

/** Contractions spelled out ("can't" → cannot, "isn't" → is not), possessives and 'll/'re dropped. */
const contractions = (s: string) =>
  s
    .replace(/\b(can)['’]t\b/gi, 'cannot')
    .replace(/\b(won)['’]t\b/gi, 'will not')
    .replace(/n['’]t\b/gi, ' not')
    .replace(/['’](ll|re|ve|d|m|s)\b/gi, '')

function tokens(text: string): Token[] {
  // Each rewrite is a pass over the text; most texts need few of them (this is the engines' hot path).
  let clean = /\d{4}-\d{2}/.test(text) ? isoDates(text) : text
  if (clean.includes('http')) clean = clean.replace(URL_RE, ' ')
  if (clean.includes('[')) clean = clean.replace(/\[\d+\]/g, ' ')
  if (clean.includes("'") || clean.includes('’')) clean = contractions(clean)
  const out: Token[] = []
  let sentenceStart = true
  for (const m of clean.matchAll(TOKEN_RE)) {
    if (m[5]) {
      out.push({ kind: 'punct' })
      if ('.!?'.includes(m[5])) sentenceStart = true
      continue
    }
    if (m[2]) {
      let value = Number(m[2].replace(/,/g, ''))
      const suffix = (m[3] ?? '').toLowerCase()
      if (SCALE[suffix]) value *= SCALE[suffix]!
      out.push({ kind: 'num', value, unit: m[1] ? 'cur' : suffix === '%' || suffix === 'percent' ? 'pct' : '' })
      sentenceStart = false
      continue
    }
    const raw = m[4]!
    const lower = raw.toLowerCase()
    if (NUMBER_WORDS[lower] !== undefined) {
      out.push({ kind: 'num', value: NUMBER_WORDS[lower]!, unit: '' })
    } else {
      out.push({ kind: 'word', raw, stem: raw.includes('-') ? lower : stem(raw), stop: STOP.has(lower) && !/^[A-Z]{2,}$/.test(raw), first: sentenceStart })
    }
    sentenceStart = false
  }
  return out
}

/** Proper nouns, acronyms and codes (SKU-7, LH716) name a specific thing: a match on one says more. */
function isEntity(t: Extract<Token, { kind: 'word' }>): boolean {
  if (/\d/.test(t.raw)) return true
  if (/^[A-Z]{2,}$/.test(t.raw)) return true
  return !t.first && /^[A-Z]/.test(t.raw)
}

/** The same sentences come back (claims split and re-read, documents repeated across traces): read each once. */
const analyses = new Map<string, Analysis>()
const ANALYSES_KEPT = 20_000

/** A text's terms, numbers and negations. The result is shared: callers must not change it. */
export function analyze(text: string): Analysis {
  const hit = analyses.get(text)
  if (hit) return hit
  const a = analyzeOnce(text)
  if (analyses.size >= ANALYSES_KEPT) analyses.delete(analyses.keys().next().value!)
  analyses.set(text, a)
  return a
}

function analyzeOnce(text: string): Analysis {
  const toks = tokens(text)
  const terms = new Map<string, number>()
  const numbers: Quantity[] = []
  const negated = new Set<string>()
  let negations = 0
  const contentAt = (i: number) => {
    const t = toks[i]
    return t && t.kind === 'word' && !t.stop && !NEGATION.has(t.raw.toLowerCase()) && t.raw.length > 1 ? t : null
  }
  toks.forEach((t, i) => {
    if (t.kind === 'num') {
      terms.set(numberKey(t.value), 2)
      // The unit of a number: its currency/percent sign and the nearest content word on each side.
      const context = new Set<string>(t.unit ? [t.unit] : [])
      for (const dir of [1, -1])
        for (let j = i + dir, seen = 0; j >= 0 && j < toks.length && seen < 3; j += dir, seen++) {
          const c = toks[j]!
          if (c.kind === 'punct' || c.kind === 'num') break
          const w = contentAt(j)
          if (w) {
            context.add(w.stem)
            break
          }
        }
      numbers.push({ value: t.value, context })
      return
    }
    if (t.kind !== 'word') return
    const lower = t.raw.toLowerCase()
    if (NEGATION.has(lower)) {
      negations++
      for (let j = i + 1, n = 0; j < toks.length && n < NEG_SCOPE; j++) {
        if (toks[j]!.kind === 'punct') break
        const w = contentAt(j)
        if (w) {
          negated.add(w.stem)
          n++
        }
      }
      return
    }
    if (t.stop || t.raw.length < 2) return
    terms.set(t.stem, Math.max(terms.get(t.stem) ?? 0, isEntity(t) ? 2 : 1))
  })
  return { terms, numbers, negations, negated }
}

const UPPER_START = /(?<=[.!?])\s+(?=["'([]?[A-Z0-9$€£])/
const LOWER_START = /(?<=[.!?])\s+(?=["'([]?[A-Z0-9$€£])|(?<=[a-z]{3}[.!?])\s+(?=[a-z]+\b)/

/**
 * Sentences of a passage: split at sentence ends and line breaks, abbreviations kept whole. With `lowerStarts`
 * a sentence may also open with a lower-case name after a word's full stop ("… a known exploit. minimist 1.2.5 has …").
 */
export function sentences(text: string, lowerStarts = false): string[] {
  const out: string[] = []
  for (const line of text.split(/\n+/)) {
    const parts = line.split(lowerStarts ? LOWER_START : UPPER_START)
    for (const p of parts) {
      const prev = out.length ? out[out.length - 1]! : ''
      // "e.g. Foo", "Dr. Smith": the split was an abbreviation, not a sentence end.
      if (out.length && /\b(e\.g|i\.e|etc|vs|dr|mr|mrs|ms|st|approx|inc|ltd|no|fig|u\.s)\.$/i.test(prev) && parts.indexOf(p) > 0) out[out.length - 1] = prev + ' ' + p
      else if (p.trim()) out.push(p.trim())
    }
  }
  return out
}

export const urlsIn = (text: string): string[] => [...text.matchAll(URL_RE)].map((m) => m[0].replace(/[.,;:!?]+$/, ''))

export const normalizeWs = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase()
