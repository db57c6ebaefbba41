/**
 * Quantities as a reader understands them, so structured results and answers can
 * be compared by value rather than by spelling: money (per currency), percentages,
 * durations, lengths, masses, volumes, temperatures, data sizes, dates and clock
 * times, each normalised to one unit of its dimension (seconds, metres, grams,
 * millilitres, °C, bytes, days since the epoch, minutes after midnight). A
 * quantity keeps the tolerance its writing implies (the last digit written, wider
 * after "about"), and a bound when the text says "under", "at least", "up to".
 */

export type Dim = 'money' | 'percent' | 'duration' | 'length' | 'mass' | 'volume' | 'temperature' | 'data' | 'date' | 'time' | 'count'

export interface Quantity {
  dim: Dim
  /** In the dimension's unit; a date is its day number (UTC) or month*100+day when the year is not given. */
  value: number
  /** Currency code for money, '/unit' for a rate ("$0.70 a mile"), '' otherwise. */
  unit: string
  /** Half the spacing of the last digit written, in the dimension's unit (wider after "about"). */
  tol: number
  approx: boolean
  /** The text says the true value lies below ('<') or above ('>') this one. */
  bound: '' | '<' | '>'
  /** false when a date was written without a year. */
  hasYear: boolean
  /** The other reading of an ambiguous date (03/04/2026: March 4 or 3 April). */
  alt?: number
  /** Position in the text it was read from. */
  index: number
  end: number
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']
const MONTH_RE = '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?'
const month = (s: string) => MONTHS.indexOf(s.slice(0, 3).toLowerCase()) + 1

const WORD_NUMBERS: Record<string, number> = {
  zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12,
  thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19, twenty: 20, thirty: 30,
  forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90, hundred: 100, dozen: 12, a: 1, an: 1, half: 0.5,
}

/** unit word → [dimension, factor to the dimension's unit] (temperature handled apart). */
const UNITS: Record<string, [Dim, number]> = {}
const unit = (dim: Dim, factor: number, ...names: string[]) => names.forEach((n) => (UNITS[n] = [dim, factor]))
unit('duration', 0.001, 'ms', 'millisecond', 'milliseconds')
unit('duration', 1, 's', 'sec', 'secs', 'second', 'seconds')
unit('duration', 60, 'min', 'mins', 'minute', 'minutes')
unit('duration', 3600, 'h', 'hr', 'hrs', 'hour', 'hours')
unit('duration', 86400, 'day', 'days', 'business day', 'business days', 'working days', 'calendar days', 'nights', 'night')
unit('duration', 604800, 'week', 'weeks', 'wk', 'wks')
unit('duration', 86400 * 14, 'fortnight')
unit('duration', 86400 * 30.44, 'month', 'months', 'mo', 'mos')
unit('duration', 86400 * 365.25, 'year', 'years', 'yr', 'yrs')
unit('duration', 86400 * 3652.5, 'decade', 'decades')
unit('length', 0.001, 'mm', 'millimetre', 'millimetres', 'millimeter', 'millimeters')
unit('length', 0.01, 'cm', 'centimetre', 'centimetres', 'centimeter', 'centimeters')
unit('length', 1, 'm', 'metre', 'metres', 'meter', 'meters')
unit('length', 1000, 'km', 'kilometre', 'kilometres', 'kilometer', 'kilometers')
unit('length', 0.0254, 'in.', 'inch', 'inches', '"')
unit('length', 0.3048, 'ft', 'foot', 'feet')
unit('length', 0.9144, 'yd', 'yard', 'yards')
unit('length', 1609.344, 'mi', 'mile', 'miles')
unit('mass', 1e-6, 'µg', 'mcg', 'microgram', 'micrograms')
unit('mass', 0.001, 'mg', 'milligram', 'milligrams')
unit('mass', 1, 'g', 'gram', 'grams')
unit('mass', 1000, 'kg', 'kilo', 'kilos', 'kilogram', 'kilograms')
unit('mass', 1e6, 't', 'tonne', 'tonnes', 'ton', 'tons', 'metric tons')
unit('mass', 453.59237, 'lb', 'lbs', 'pound', 'pounds')
unit('mass', 28.349523, 'oz', 'ounce', 'ounces')
unit('volume', 0.001, 'µl', 'ul', 'μl', 'microlitre', 'microliter', 'microlitres', 'microliters')
unit('volume', 1, 'ml', 'millilitre', 'milliliter', 'millilitres', 'milliliters', 'cc')
unit('volume', 10, 'cl')
unit('volume', 1000, 'l', 'litre', 'liter', 'litres', 'liters')
unit('volume', 3785.41, 'gal', 'gallon', 'gallons')
unit('volume', 29.5735, 'fl oz')
unit('data', 1, 'b', 'byte', 'bytes')
unit('data', 1e3, 'kb', 'kilobyte', 'kilobytes')
unit('data', 1e6, 'mb', 'megabyte', 'megabytes')
unit('data', 1e9, 'gb', 'gigabyte', 'gigabytes')
unit('data', 1e12, 'tb', 'terabyte', 'terabytes')
unit('data', 1024, 'kib')
unit('data', 1024 ** 2, 'mib')
unit('data', 1024 ** 3, 'gib')
unit('data', 1024 ** 4, 'tib')
unit('percent', 1, '%', 'percent', 'per cent', 'pct')

const CURRENCY_SIGNS: Record<string, string> = { $: 'USD', '€': 'EUR', '£': 'GBP', '¥': 'JPY', '₹': 'INR' }
const CURRENCY_WORDS: Record<string, string> = {
  usd: 'USD', dollar: 'USD', dollars: 'USD', eur: 'EUR', euro: 'EUR', euros: 'EUR', gbp: 'GBP', jpy: 'JPY', yen: 'JPY', chf: 'CHF',
  cad: 'CAD', aud: 'AUD', inr: 'INR', sek: 'SEK', nok: 'NOK', dkk: 'DKK', pln: 'PLN', mxn: 'MXN', cents: 'USD/100', cent: 'USD/100',
  pence: 'GBP/100', p: 'GBP/100',
}
const SCALE: Record<string, number> = { k: 1e3, thousand: 1e3, m: 1e6, mn: 1e6, million: 1e6, b: 1e9, bn: 1e9, billion: 1e9 }

const APPROX = /\b(?:about|around|roughly|approximately|approx\.?|nearly|almost|some|close to|just (?:over|under)|an estimated|estimated|~)\s*$/i
const BELOW = /\b(?:under|below|less than|fewer than|within|up to|at most|no more than|not more than|lower than|shorter than|cheaper than)\s*$/i
const ABOVE = /\b(?:over|above|more than|greater than|at least|no less than|exceeds?|exceeding|higher than|longer than|beyond)\s*$/i

function decimals(s: string): number {
  const i = s.indexOf('.')
  return i < 0 ? 0 : s.length - i - 1
}

/**
 * The tolerance of a number as written, in the dimension's unit: just under half
 * its last digit (99.9 may be 99.93, never 99.95), and for measures that get
 * converted (lengths, masses, temperatures...) half a percent.
 */
function tolerance(raw: string, factor: number, approx: boolean, value: number, relative = 0.005): number {
  const rounding = 0.49 * 10 ** -decimals(raw) * factor
  return Math.max(rounding, Math.abs(value) * (approx ? 0.06 : relative))
}

const dayNumber = (y: number, m: number, d: number) => Math.round(Date.UTC(y, m - 1, d) / 86_400_000)
const validDate = (m: number, d: number) => m >= 1 && m <= 12 && d >= 1 && d <= 31

/** Number words and numerals: "4,200", "0.79", ".5", "twenty-five", "a dozen". */
const NUM = '(\\d{1,3}(?:,\\d{3})+(?:\\.\\d+)?|\\d+(?:\\.\\d+)?|\\.\\d+)'
const WORDNUM = '(zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|a dozen|dozen|half an?)'
const UNIT_ALT = Object.keys(UNITS)
  .filter((u) => u !== '"')
  .sort((a, b) => b.length - a.length)
  .map((u) => u.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
  .join('|')

// Written from the most specific pattern to the least: each match blanks its span so later ones cannot reread it.
const PATTERNS: Array<{ re: RegExp; read: (m: RegExpExecArray) => Array<Omit<Quantity, 'index' | 'end' | 'approx' | 'bound'> & { approx?: boolean }> }> = [
  // ISO date (and time): 2026-11-23, 2026-10-30T13:00/17:00
  {
    re: /\b(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?(?:\/(\d{2}):(\d{2}))?)?\b/g,
    read: (m) => {
      const out: Array<Omit<Quantity, 'index' | 'end' | 'approx' | 'bound'>> = []
      if (validDate(Number(m[2]), Number(m[3]))) out.push({ dim: 'date', value: dayNumber(Number(m[1]), Number(m[2]), Number(m[3])), unit: '', tol: 0, hasYear: true })
      if (m[4]) out.push({ dim: 'time', value: Number(m[4]) * 60 + Number(m[5]), unit: '', tol: 0, hasYear: true })
      if (m[7]) out.push({ dim: 'time', value: Number(m[7]) * 60 + Number(m[8]), unit: '', tol: 0, hasYear: true })
      return out
    },
  },
  // 01/15/2026, 15/01/2026, 15.01.2026: day-first or month-first by which part can be a month (US order when both can).
  {
    re: /\b(\d{1,2})[/.](\d{1,2})[/.](\d{4})\b/g,
    read: (m) => {
      const a = Number(m[1])
      const b = Number(m[2])
      const y = Number(m[3])
      const [mo, d] = a > 12 ? [b, a] : [a, b]
      if (!validDate(mo, d)) return []
      const alt = a <= 12 && b <= 12 && a !== b ? { alt: dayNumber(y, b, a) } : {}
      return [{ dim: 'date' as Dim, value: dayNumber(y, mo, d), unit: '', tol: 0, hasYear: true, ...alt }]
    },
  },
  // 15 Jan 2026, 15th of January, January 15, Jan. 15th, 2026 (a weekday before it is ignored)
  {
    re: new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?(?: of)? ${MONTH_RE}(?:,? (\\d{4}))?\\b|\\b${MONTH_RE} (\\d{1,2})(?:st|nd|rd|th)?\\b(?:,? (\\d{4}))?`, 'gi'),
    read: (m) => {
      const [d, mo, y] = m[1] ? [Number(m[1]), month(m[2]!), m[3]] : [Number(m[5]), month(m[4]!), m[6]]
      if (!validDate(mo, d)) return []
      return [{ dim: 'date', value: y ? dayNumber(Number(y), mo, d) : mo * 100 + d, unit: '', tol: 0, hasYear: Boolean(y) }]
    },
  },
  // 7:30 pm, 9 am, 9 a.m., noon, midnight
  {
    re: /\b(\d{1,2})(?::(\d{2}))?\s?([ap])\.?m\.?(?![a-z])|\b(noon|midday|midnight)\b/gi,
    read: (m) => {
      if (m[4]) return [{ dim: 'time', value: /midnight/i.test(m[4]) ? 0 : 720, unit: '', tol: 0, hasYear: true }]
      const h = Number(m[1]) % 12 + (m[3]!.toLowerCase() === 'p' ? 12 : 0)
      return [{ dim: 'time', value: h * 60 + Number(m[2] ?? 0), unit: '', tol: 0, hasYear: true }]
    },
  },
  // 13:00, 15:30:00Z, 08:00 UTC
  {
    re: /\b([01]?\d|2[0-3]):([0-5]\d)(?::[0-5]\d)?(?:Z\b|\s?(?:UTC|GMT)\b)?(?!\s?[ap]\.?m)/gi,
    read: (m) => [{ dim: 'time', value: Number(m[1]) * 60 + Number(m[2]), unit: '', tol: 0, hasYear: true }],
  },
  // compound and ISO durations: 1 h 30 min, 2 hours and 15 minutes, an hour and a half, PT1H30M, P3D
  {
    re: /\b(\d+)\s?(?:h|hr|hrs|hours?)\s*(?:and\s*)?(\d+)\s?(?:m|min|mins|minutes?)\b|\ban hour and a half\b|\bP(?:(\d+)D)?T?(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?\b/g,
    read: (m) => {
      if (/^an hour/i.test(m[0])) return [{ dim: 'duration', value: 5400, unit: '', tol: 30, hasYear: true }]
      if (m[1]) return [{ dim: 'duration', value: Number(m[1]) * 3600 + Number(m[2]) * 60, unit: '', tol: 30, hasYear: true }]
      if (!m[3] && !m[4] && !m[5] && !m[6]) return []
      const value = Number(m[3] ?? 0) * 86400 + Number(m[4] ?? 0) * 3600 + Number(m[5] ?? 0) * 60 + Number(m[6] ?? 0)
      return [{ dim: 'duration', value, unit: '', tol: 0.5, hasYear: true }]
    },
  },
  // money: $4.82 billion, €22.50, EUR 22.50, 24.8p, 126 dollars, 16 euros
  {
    re: new RegExp(`(?:(?:([$€£¥₹])|\\b(USD|EUR|GBP|JPY|CHF|CAD|AUD|INR|SEK|NOK|DKK|PLN|MXN)\\s?)${NUM}(?:\\s?(k|thousand|million|mn|m|billion|bn|b)\\b)?|${NUM}(?:\\s?(thousand|million|billion|bn))?\\s?(USD|EUR|GBP|JPY|CHF|CAD|AUD|INR|SEK|NOK|DKK|PLN|MXN|dollars?|euros?|yen|cents?|pence|p)\\b)(?:\\s?(?:(?:a|an|per|each)\\s|/\\s?)([a-z]+)\\b)?`, 'gi'),
    read: (m) => {
      const raw = m[3] ?? m[5]!
      const scale = SCALE[(m[4] ?? m[6] ?? '').toLowerCase()] ?? 1
      let code = m[1] ? CURRENCY_SIGNS[m[1]]! : m[2] ? m[2].toUpperCase() : CURRENCY_WORDS[m[7]!.toLowerCase()] ?? m[7]!.toUpperCase()
      let factor = scale
      if (code.endsWith('/100')) {
        code = code.slice(0, -4)
        factor /= 100
      }
      const value = Number(raw.replace(/,/g, '')) * factor
      // "$0.70 a mile", "24.8p per kWh": a price per unit, comparable only with prices of that unit.
      const per = m[8] ? `/${m[8].toLowerCase().replace(/s$/, '')}` : ''
      return [{ dim: 'money', value, unit: code + per, tol: tolerance(raw, factor, false, value, 0), hasYear: true }]
    },
  },
  // °C / °F and "degrees Fahrenheit"
  {
    re: new RegExp(`(-?${NUM.slice(1, -1)})\\s?(?:°|º|degrees?)\\s?(c|f|celsius|fahrenheit)?\\b|(-?${NUM.slice(1, -1)})\\s?(?:to|-|–)\\s?(?=-?\\d+(?:\\.\\d+)?\\s?(?:°|º))`, 'gi'),
    read: (m) => {
      const raw = m[1] ?? m[3]!
      const f = /^f/i.test(m[2] ?? '')
      const v = Number(raw.replace(/,/g, ''))
      const value = f ? ((v - 32) * 5) / 9 : v
      return [{ dim: 'temperature', value, unit: m[3] ? '?' : '', tol: tolerance(raw, f ? 5 / 9 : 1, false, value), hasYear: true }]
    },
  },
  // number + unit: 25 min, 2.4 kB, 120 × 80 cm (the unit applies back to a bare number before "×", "to", "-")
  {
    re: new RegExp(`${NUM}(?:\\s?(?:×|x|by|to|-|–|and)\\s?${NUM})?\\s?(${UNIT_ALT}|")(?![a-z/])`, 'gi'),
    read: (m) => {
      const u = m[3]!.toLowerCase()
      const [dim, factor] = UNITS[u] ?? UNITS[m[3]!]!
      const out: Array<Omit<Quantity, 'index' | 'end' | 'approx' | 'bound'>> = []
      for (const raw of [m[1], m[2]]) {
        if (!raw) continue
        const value = Number(raw.replace(/,/g, '')) * factor
        out.push({ dim, value, unit: '', tol: tolerance(raw, factor, false, value, dim === 'percent' ? 0 : 0.005), hasYear: true })
      }
      return out
    },
  },
  // number words + unit: "half an hour", "two hours", "four weeks", "a day"
  {
    re: new RegExp(`\\b${WORDNUM}(?:[ -](one|two|three|four|five|six|seven|eight|nine))?\\s(${UNIT_ALT})\\b`, 'gi'),
    read: (m) => {
      const w = m[1]!.toLowerCase()
      const n = /^half/.test(w) ? 0.5 : w === 'a dozen' ? 12 : (WORD_NUMBERS[w] ?? 1) + (m[2] ? WORD_NUMBERS[m[2].toLowerCase()]! : 0)
      const [dim, factor] = UNITS[m[3]!.toLowerCase()]!
      const value = n * factor
      return [{ dim, value, unit: '', tol: Math.abs(value) * 0.005, hasYear: true }]
    },
  },
  // "immediately", "right away": no delay at all
  {
    re: /\b(immediately|instantly|right away|at once|straight away)\b/gi,
    read: () => [{ dim: 'duration', value: 0, unit: '', tol: 3600, hasYear: true }],
  },
  // plain numbers and number words: counts ("33 pallets", "two authors")
  {
    re: new RegExp(`(?<![\\w.-])${NUM}(?:\\s?(thousand|million|billion|bn))?(?![\\w-]|\\.\\d)|\\b(two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|hundred|dozen)\\b`, 'gi'),
    read: (m) => {
      if (m[3]) {
        const value = WORD_NUMBERS[m[3].toLowerCase()]!
        return [{ dim: 'count', value, unit: '', tol: 0, hasYear: true }]
      }
      const factor = SCALE[(m[2] ?? '').toLowerCase()] ?? 1
      const value = Number(m[1]!.replace(/,/g, '')) * factor
      return [{ dim: 'count', value, unit: '', tol: tolerance(m[1]!, factor, false, value, 0), hasYear: true }]
    },
  },
]

/** Codes and versions (RX-55102, 88-41207, v2.4.0, node:20-bookworm, LH716) are names, not quantities: blank them first. */
const IDENTIFIER = /\b(?:[A-Za-z]+[-_:]?\d[\w.-]*|\d+-\d+(?:-[\dA-Za-z]+)*(?![\d:])|\d+(?:\.\d+){2,}|v\d[\w.]*)\b/g
const isIsoDate = (s: string) => /^\d{4}-\d{2}-\d{2}/.test(s)
const ISO_DURATION = /^P(?=\w*\d)(?:\d+D)?(?:T(?:\d+H)?(?:\d+M)?(?:\d+S)?)?$/

/** Unit and currency words: they say what a figure measures, which its quantity already carries. */
export const UNIT_WORDS = new Set([...Object.keys(UNITS), ...Object.keys(CURRENCY_WORDS)].filter((u) => /^[a-zµμ]+$/.test(u) && u.length > 1))

/** Every quantity in a text, in order of position. */
export function quantities(text: string): Quantity[] {
  // Citation markers ("[1]") are references, not figures.
  let work = text.replace(/\[\d{1,3}\]/g, (m) => ' '.repeat(m.length)).replace(IDENTIFIER, (s) => (isIsoDate(s) || ISO_DURATION.test(s) || /^\d+-\d+$/.test(s) && /\d+-\d+\s?(?:°|%|[a-z])/i.test(text) ? s : ' '.repeat(s.length)))
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
      for (const q of p.read(m)) {
        const tol = approx ? Math.max(q.tol, Math.abs(q.value) * 0.06, q.dim === 'duration' ? 60 : 0) : q.tol
        out.push({ ...q, approx, bound, tol, index: m.index, end: m.index + m[0].length })
      }
      hits.push([m.index, m.index + m[0].length])
    }
    for (const [a, b] of hits) work = work.slice(0, a) + ' '.repeat(b - a) + work.slice(b)
  }
  // A temperature range's first number took the unit of the second.
  for (let i = 0; i < out.length; i++) if (out[i]!.dim === 'temperature' && out[i]!.unit === '?') {
    const next = out.find((q, j) => j !== i && q.dim === 'temperature' && q.unit !== '?' && q.index > out[i]!.index)
    const f = next ? /f/i.test(text.slice(next.index, next.end)) : false
    if (f) out[i] = { ...out[i]!, value: ((out[i]!.value - 32) * 5) / 9, tol: out[i]!.tol * (5 / 9) }
    out[i] = { ...out[i]!, unit: '' }
  }
  return out.sort((a, b) => a.index - b.index)
}

/** Two quantities state the same value (dates without a year compare by month and day). */
/** Money compares within one currency; a price per unit ("$75 per day") also meets the same amount written plainly. */
const sameCurrency = (a: Quantity, b: Quantity) => a.unit === b.unit || (a.unit.split('/')[0] === b.unit.split('/')[0] && (!a.unit.includes('/') || !b.unit.includes('/')))

export function sameValue(claim: Quantity, ev: Quantity): boolean {
  if (claim.dim !== ev.dim) return false
  if (claim.dim === 'money' && !sameCurrency(claim, ev)) return false
  if (claim.dim === 'date' && claim.hasYear !== ev.hasYear) {
    const md = (q: Quantity) => {
      if (!q.hasYear) return q.value
      const d = new Date(q.value * 86_400_000)
      return (d.getUTCMonth() + 1) * 100 + d.getUTCDate()
    }
    return md(claim) === md(ev)
  }
  const tol = Math.max(claim.tol, ev.tol * 0.5, 1e-9)
  if (claim.alt !== undefined && claim.alt === ev.value) return true
  return Math.abs(claim.value - ev.value) <= tol
}

/** The evidence value satisfies the claim: the same value, or within the claim's bound ("under 30 minutes"). */
export function satisfies(claim: Quantity, ev: Quantity): boolean {
  if (sameValue(claim, ev)) return true
  // "Within 60 days" against "within 30 days" is two limits that differ, not a value inside one.
  if (!claim.bound || ev.bound || claim.dim !== ev.dim || (claim.dim === 'money' && !sameCurrency(claim, ev)) || claim.dim === 'date') return false
  return claim.bound === '<' ? ev.value <= claim.value : ev.value >= claim.value
}
