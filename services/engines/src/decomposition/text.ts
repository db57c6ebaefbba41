/**
 * Small lexical helpers shared by the deterministic engines. Matching is by content
 * words (stop words dropped, a light suffix stemmer) because the traces mix
 * paraphrase, tool arguments and JSON results: exact phrases rarely survive, but
 * the distinctive nouns of a request ("Lisbon", "visa", "refund") usually do.
 */
import { parseJson } from '@svc/shared/json-limits'

const STOP = new Set(
  `a an the and or but if then else also too of to in on at by for from with without into onto about as is are was were be been being am do does did doing
have has had having i me my mine we us our you your yours he she it its they them their this that these those there here what which who whom whose
when where why how can could would should will shall may might must please me let lets not no yes so than very just any some all each every
get got give tell show find make help need want like know would i'd i'm it's what's don't can't im id ok okay hi hello thanks thank whether up`.split(/\s+/),
)

/** Lower-case word tokens (letters, digits, inner hyphens/dots kept: "gpt-4o", "4.82m", "48213"). */
export function words(text: string): string[] {
  return (text.toLowerCase().normalize('NFKD').match(/[a-z0-9]+(?:[-.'][a-z0-9]+)*/g) ?? []).map((w) => w.replace(/'s$/, ''))
}

/** Folds plurals and common verb endings so "refunds"/"refunded"/"refund" meet. */
export function stem(w: string): string {
  if (w.length <= 3 || /\d/.test(w)) return w
  let s = w
  for (const [suf, rep] of [['ies', 'y'], ['ing', ''], ['ed', ''], ['es', ''], ['s', ''], ['ly', '']] as const) {
    if (s.endsWith(suf) && s.length - suf.length >= 3 && !(suf === 's' && s.endsWith('ss'))) {
      s = s.slice(0, -suf.length) + rep
      break
    }
  }
  // "issue"/"issued", "price"/"pricing" meet once a final e is dropped.
  return s.length > 3 && s.endsWith('e') ? s.slice(0, -1) : s
}

const NUMBER_WORDS: Record<string, string> = { one: '1', two: '2', three: '3', four: '4', five: '5', six: '6', seven: '7', eight: '8', nine: '9', ten: '10' }

/** Content words, stemmed; identifiers such as snake_case tool names are split first. */
export function contentWords(text: string): string[] {
  const spaced = text.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/_/g, ' ')
  return words(spaced)
    .filter((w) => !STOP.has(w) && (w.length > 1 || /\d/.test(w)))
    .map((w) => NUMBER_WORDS[w] ?? stem(w))
}

export const wordSet = (text: string) => new Set(contentWords(text))

/** Share of `needles` present in `hay` (0 when there are no needles). */
export function overlap(needles: Iterable<string>, hay: Set<string>): number {
  let n = 0
  let hit = 0
  for (const w of needles) {
    n++
    if (hay.has(w)) hit++
  }
  return n ? hit / n : 0
}

/** Sentences of a text (terminal punctuation or newlines), trimmed, non-empty. */
export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+(?=[A-Z0-9"'(\-•*])|\n+/)
    .map((s) => s.trim())
    .filter(Boolean)
}

/** All string leaves of a JSON value (keys included), for lexical matching of tool arguments and results. */
export function jsonText(v: unknown): string {
  if (v === null || v === undefined) return ''
  if (typeof v === 'string') return v
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  if (Array.isArray(v)) return v.map(jsonText).join(' ')
  if (typeof v === 'object') return Object.entries(v as Record<string, unknown>).map(([k, x]) => `${k} ${jsonText(x)}`).join(' ')
  return ''
}

/** Text of an attribute that may hold JSON (flattened) or plain text. */
export const attrText = (s: string | undefined) => {
  const j = parseJson(s)
  return j === undefined ? (s ?? '') : jsonText(j)
}

/** A completion without the "assistant: " prefix genai-content puts on OTel output messages. */
export const completionText = (s: { content: { completion: string } }) => s.content.completion.replace(/^(?:assistant|ai|model): ?/gim, '').trim()
