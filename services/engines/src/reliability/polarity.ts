/**
 * Which words of a sentence are denied, by scope rather than by counting cues: a
 * cue (not, no, never, without, cannot, non-, "n't") denies the content word it
 * governs in its clause; "it's not true that X" denies all of X, so a negation
 * inside X becomes an assertion again (double negative); antonyms are read as
 * their base word denied ("closed" = not open, "disabled" = not enabled,
 * "rejected" = not approved). Synonyms a structured key would use are folded in
 * ("need to" → required, "turned on" → enabled), so a JSON boolean and a sentence
 * meet on one word.
 */
import { isStopword, stem } from './text.js'

/** antonym → the word it denies. */
const ANTONYMS: Record<string, string> = {
  closed: 'open', shut: 'open', disabled: 'enabled', off: 'enabled', inactive: 'active', unavailable: 'available', excluded: 'included',
  prohibited: 'allowed', forbidden: 'allowed', disallowed: 'allowed', banned: 'allowed', rejected: 'approved', declined: 'approved', denied: 'approved',
  cancelled: 'confirmed', canceled: 'confirmed', failed: 'succeeded', unpaid: 'paid', unsupported: 'supported', nonrefundable: 'refundable',
  unsafe: 'safe', invalid: 'valid', ineligible: 'eligible', expired: 'valid', missing: 'present', absent: 'present', unlimited: 'limited',
  optional: 'required', voluntary: 'required', unnecessary: 'required', lost: 'found', incomplete: 'complete', unverified: 'verified',
  unconfirmed: 'confirmed', inaccessible: 'accessible', offline: 'online', down: 'up', sold: 'available',
  small: 'large', smaller: 'larger', short: 'long', shorter: 'longer', low: 'high', lower: 'higher', cheap: 'expensive', slow: 'fast',
  light: 'heavy', cold: 'hot', narrow: 'wide', weak: 'strong', empty: 'full', decrease: 'increase', decreased: 'increased', fell: 'rose',
}
/** Phrases read as one word a key would use. */
const PHRASES: Array<[RegExp, string]> = [
  [/\b(?:turned|switched|is|are) on\b/gi, ' enabled '],
  [/\b(?:turned|switched) off\b/gi, ' disabled '],
  [/\bout of stock\b/gi, ' not in_stock '],
  [/\bin stock\b/gi, ' in_stock '],
  [/\b(?:need|needs|needed) to\b/gi, ' required to '],
  [/\b(?:need|needs|needed)\b(?=\s+(?:a|an|the|any|[a-z]+s)\b)/gi, ' required '],
  [/\b(?:has|have|had) to\b/gi, ' required to '],
  [/\bmust\b/gi, ' required '],
  [/\bnon-?(\w)/gi, ' not $1'],
  [/\bno longer\b/gi, ' not '],
  // A step still awaited has not happened: "status": "pending_approval" is not approved (yet).
  [/\b(?:pending|awaiting|waiting for)\s+(?=[a-z])/gi, ' not '],
  // A key's one word for a verb phrase: "carries over" is rollover, "ask for a credit" is credit_on_request.
  [/\b(?:carr(?:y|ies|ied)|roll(?:s|ed)?)[ -]?over\b/gi, ' rollover '],
  [/\b(?:ask(?:s|ed|ing)?|appl(?:y|ies|ied|ying)) for\b/gi, ' request '],
  // "costs extra" is not included, "costs nothing" free, "avoids tolls" is without them, "is needed" is required.
  [/\bcosts? nothing\b|\bat no (?:extra |additional )?(?:cost|charge)\b/gi, ' free '],
  [/\b(?:costs?|charged|is|are) (?:extra|separately)\b|\bat (?:an )?extra (?:cost|charge)\b/gi, ' not included '],
  // (A purpose is no denial: "cancel by Friday to avoid the $75 late fee" says the fee exists.)
  [/\b(?:in order |so as )?to avoid\b/gi, ' to prevent '],
  [/\bavoid(?:s|ed|ing)?\b/gi, ' without '],
  // "slowed instead of charging you overage": the charge is denied (not "$36 an hour instead of $24", an alternative). An answer's "No —" before a statement is the
  // answer to a question, not a denial of what follows ("No — finance_daily landed late today").
  [/\binstead of\b(?=\s+[a-z]+ing\b)/gi, ' not '],
  [/^\s*(?:no|nope)\s*(?:[,—–]|\s-)\s*/i, ' '],
  [/\b(?:is|are|isn't|aren't|was|were)\s+needed\b/gi, ' required '],
  // "topped up" is reloaded, "paying the loan off early" a prepayment, legs that "come off" removable.
  [/\btop(?:s|ped|ping)?[ -]up\b/gi, ' reload '],
  [/\bpa(?:y|ys|id|ying)(?: \w+){0,3} off early\b|\bearly (?:re)?payments?\b/gi, ' prepayment '],
  [/\b(?:come|comes|came) off\b/gi, ' removable '],
]
/** Words a key and a sentence use for one thing (a price is a cost, a fare, a fee). */
const SYNONYMS: Record<string, string> = {
  cost: 'price', costs: 'price', costing: 'price', fare: 'price', fares: 'price', fee: 'price', fees: 'price', charge: 'price', charges: 'price',
  priced: 'price', prices: 'price', takes: 'duration', lasts: 'duration',
  carryover: 'rollover', reopened: 'open', reopens: 'open', reopen: 'open',
  permitted: 'allowed', welcome: 'allowed', entitled: 'eligible',
}
const CONDITION = /^(?:unless|except|if)$/
/** Adverbs in -ly: they qualify a predicate and are no predicate of their own. */
const ADVERB = /^(?!(?:early|daily|weekly|monthly|yearly|hourly|nightly|family|supply|apply|reply|rely|comply|imply|multiply|july|italy|only|holy|ugly|assembly|belly|jelly|ally|rally|fly|anomaly|homily|lily|bully|silly|jolly|friendly|elderly|likely|unlikely|costly|lonely|lovely|orderly|quarterly|biweekly)$)[a-z]{3,}ly$/
const CUES = new Set(['not', 'no', 'never', 'none', 'nothing', 'neither', 'nor', 'without', 'cannot', 'unable', 'nobody'])
/** A cue denies the word it governs, the first content word after it ("not sell your data" denies selling, not data). */
const SCOPE = 1
/** Clause ends: a denial does not reach past them. */
const BREAK = /^(?:[,;:.!?()]|but|and|so|while|whereas|although|though|because|since)$/

// Contractions are spelled out first ("it's" → "it"), so "it" alone may open the frame.
const OUTER = /\b(?:it'?s?|it is|that'?s?|that is|it was)\s+(?:not true|not the case|false|untrue|a myth)\s+that\s+/i

function expand(text: string): string {
  let t = text.replace(/[’‘]/g, "'")
  t = t.replace(/\b(can)'t\b/gi, 'cannot').replace(/\b(won)'t\b/gi, 'will not').replace(/n't\b/gi, ' not').replace(/'(ll|re|ve|d|m|s)\b/gi, '')
  for (const [re, to] of PHRASES) t = t.replace(re, to)
  return t
}

export const polarityStem = (w: string): string => (w === 'in_stock' ? 'in_stock' : stem(w))

/**
 * A cue a few words before one of the given stems, in its clause: "no known public exploit" denies the
 * exploit, which a one-word scope (the cue's governed word, "known") misses. For matching a claim
 * against a flag whose key names the thing ("exploit_available").
 */
export function deniedNear(text: string, targets: (stem: string) => boolean, window = 3): boolean {
  const tokens = expand(text).toLowerCase().match(/[a-z_]+|[,;:.!?()]/g) ?? []
  return tokens.some((tok, i) => {
    if (CUES.has(tok) || BREAK.test(tok) || !targets(polarityStem(SYNONYMS[tok] ?? tok))) return false
    for (let j = i - 1, n = 0; j >= 0 && n < window; j--, n++) {
      if (BREAK.test(tokens[j]!)) return false
      if (CUES.has(tokens[j]!)) return true
    }
    return false
  })
}

const polarities = new Map<string, Map<string, boolean>>()

/** The stems of a text's content words with whether each is denied (an odd number of denials). Shared: do not change it. */
export function polarity(text: string): Map<string, boolean> {
  const hit = polarities.get(text)
  if (hit) return hit
  const p = polarityOnce(text)
  if (polarities.size >= 20_000) polarities.delete(polarities.keys().next().value!)
  polarities.set(text, p)
  return p
}

function polarityOnce(text: string): Map<string, boolean> {
  let t = expand(text)
  let outer = false
  const m = OUTER.exec(t)
  if (m) {
    outer = true
    t = t.slice(m.index + m[0].length)
  }
  const tokens = t.toLowerCase().match(/[a-z_]+|[,;:.!?()]/g) ?? []
  const flips = new Array<number>(tokens.length).fill(0)
  tokens.forEach((tok, i) => {
    if (!CUES.has(tok)) return
    let governed = 0
    for (let j = i + 1; j < tokens.length && governed < SCOPE; j++) {
      if (BREAK.test(tokens[j]!)) break
      // A cue governs the verb past its adverb: "didn't significantly lower" denies lowering.
      if (CUES.has(tokens[j]!) || isStopword(tokens[j]!) || ADVERB.test(tokens[j]!)) continue
      flips[j]!++
      governed++
    }
    // Nothing after it in its clause ("…, but accidental damage is not."): it denies what the clause named before it.
    if (!governed) for (let j = i - 1; j >= 0 && !BREAK.test(tokens[j]!); j--) if (!CUES.has(tokens[j]!) && !isStopword(tokens[j]!)) flips[j]!++
  })
  // Each content word as its base word (antonyms turned), with whether it is denied; adverbs carry no polarity.
  const words = tokens.map((tok, i) => {
    if (CUES.has(tok) || BREAK.test(tok) || isStopword(tok) || tok.length < 2 || ADVERB.test(tok)) return null
    let word = tok
    let flip = flips[i]! % 2 === 1
    const base = ANTONYMS[word]
    if (base) {
      word = base
      flip = !flip
    }
    word = SYNONYMS[word] ?? word
    return { stem: polarityStem(word), flip: outer ? !flip : flip }
  })
  // A denial in a condition ("renews … unless either party gives notice of non-renewal") states nothing.
  const out = new Map<string, boolean>()
  let condition = false
  tokens.forEach((tok, i) => {
    if (CONDITION.test(tok)) condition = true
    else if (BREAK.test(tok) && tok !== 'and') condition = false
    const w = words[i]
    if (!w || (condition && w.flip)) return
    // One denied mention is enough to deny the word in this text.
    out.set(w.stem, (out.get(w.stem) ?? false) || w.flip)
  })
  return out
}

