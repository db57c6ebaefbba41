/**
 * The patterns quantities() reads, from the most specific to the least, each with
 * how a match becomes quantities in its dimension's unit and the tolerance its
 * writing implies (quantity.ts blanks each match so later patterns cannot reread it).
 */
import type { Dim, Quantity } from './quantity.js'
import { CODES, CURRENCY_SIGNS, CURRENCY_WORDS, decimalData, fraction, month, MONTH_RE, MONTH_SECONDS, periodWord, perUnit, SCALE, unitNamed, UNITS, WORD_NUMBERS } from './units.js'

/**
 * The relative tolerance of a measure: half a percent, but months are 28 to 31 days and people say "two months" for
 * eight weeks, so a figure in months is within 8%.
 */
const calendarTolerance = (factor: number) => (factor === MONTH_SECONDS ? 0.08 : 0.005)

/** Vulgar fractions a number may end in: "2½ hours", "1¾ miles". */
const VULGAR_FRACTIONS: Record<string, number> = { '½': 0.5, '¼': 0.25, '¾': 0.75, '⅓': 1 / 3, '⅔': 2 / 3 }

function decimals(s: string): number {
  // (a fraction is a rounding to a quarter or so: two places)
  if (/[½¼¾⅓⅔]$/.test(s)) return 2
  const i = s.indexOf('.')
  return i < 0 ? 0 : s.length - i - 1
}

/** A number as written: thousands separators, and a trailing fraction ("2½" is 2.5). */
const toNumber = (raw: string): number => {
  const f = VULGAR_FRACTIONS[raw.slice(-1)]
  const whole = Number((f === undefined ? raw : raw.slice(0, -1)).replace(/,/g, '') || 0)
  return f === undefined ? whole : whole + f
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
// (only from the start of a run of digits: "1111…" tried from each of its digits took time quadratic in its length)
const NUM = '((?<!\\d)(?:\\d{1,3}(?:,\\d{3})+(?:\\.\\d+)?|\\d+[½¼¾⅓⅔]|\\d+(?:\\.\\d+)?|\\.\\d+))'
/** A temperature's sign: a minus (or U+2212) that starts a number, not the dash of a range or a date ("4.0-5.6 °C"). */
const SIGNED = `(?<![\\w.])[-−]?(?:${NUM.slice(1, -1)})`
export const WORDNUM = '(zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|a dozen|dozen|half an?)'
/** Minutes written in digits or words ("20", "twenty-five"). */
const minutesIn = (w: string) => (/^\d+$/.test(w) ? Number(w) : w.split('-').reduce((n, part) => n + (WORD_NUMBERS[part] ?? 0), 0))
const UNIT_ALT = Object.keys(UNITS)
  .filter((u) => u !== '"')
  .sort((a, b) => b.length - a.length)
  .map((u) => u.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
  .join('|')

// Written from the most specific pattern to the least: each match blanks its span so later ones cannot reread it.
export const PATTERNS: Array<{ re: RegExp; read: (m: RegExpExecArray) => Array<Omit<Quantity, 'index' | 'end' | 'approx' | 'bound'> & { approx?: boolean }> }> = [
  // ISO date (and time): 2026-11-23, 2026-10-30T13:00/17:00
  {
    re: /\b(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?(?:\/(\d{2}):(\d{2}))?)?\b/g,
    read: (m) => {
      const out: Array<Omit<Quantity, 'index' | 'end' | 'approx' | 'bound'>> = []
      if (validDate(Number(m[2]), Number(m[3]))) out.push({ dim: 'date', value: dayNumber(Number(m[1]), Number(m[2]), Number(m[3])), unit: '', tol: 0, hasYear: true })
      if (m[4]) out.push({ dim: 'time', value: Number(m[4]) * 60 + Number(m[5]), unit: '', tol: 0, hasYear: true, ...(/^(?:Z|[+-]00:?00)$/.test(m[6] ?? '') ? { utc: true } : {}) })
      if (m[7]) out.push({ dim: 'time', value: Number(m[7]) * 60 + Number(m[8]), unit: '', tol: 0, hasYear: true })
      return out
    },
  },
  // 5'10", 6 ft 2 in, 5 feet 10 inches: a height in feet and inches is one length.
  {
    re: /\b(\d)\s?(?:'|’|ft|feet|foot)\s?(\d{1,2}(?:\.\d)?)\s?(?:"|”|''|in\b|inch(?:es)?\b)/g,
    read: (m) => [{ dim: 'length' as Dim, value: Number(m[1]) * 0.3048 + Number(m[2]) * 0.0254, unit: 'ft', tol: 0.0127, hasYear: true }],
  },
  // "1.52 in (38.6 mm)", "(2.05 in)": inches written "in" where no word follows that "in" could govern.
  {
    re: /\b(\d+\.\d+)\s?in\b(?=\s*[(),;]|\s*$)/g,
    read: (m) => [{ dim: 'length' as Dim, value: Number(m[1]) * 0.0254, unit: 'in.', tol: 0.0254 * 0.5 * 10 ** -(m[1]!.split('.')[1]!.length), hasYear: true }],
  },
  // "7 ft by 22 in": whole inches as the second side of a size.
  {
    re: /(?<=\b(?:by|x|×)\s)(\d{1,3})\s?in\b(?=\s*[(),;.]|\s*$)/g,
    read: (m) => [{ dim: 'length' as Dim, value: Number(m[1]) * 0.0254, unit: 'in.', tol: 0.0127, hasYear: true }],
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
  // "due on 11/06", "departs on 12/14": a month and day without a year, after a word that introduces a date
  // (never "5/6 ARM" or "24/7"); day first when the first part cannot be a month, both readings when both can.
  {
    re: /(?<=\b(?:on|by|until|till|from|before|after|since|due|dated|of|through)\s)(\d{1,2})\/(\d{1,2})\b(?!\/\d)/gi,
    read: (m) => {
      const a = Number(m[1])
      const b = Number(m[2])
      const [mo, d] = a > 12 ? [b, a] : [a, b]
      if (!validDate(mo, d)) return []
      const alt = a <= 12 && b <= 12 && a !== b ? { alt: b * 100 + a } : {}
      return [{ dim: 'date' as Dim, value: mo * 100 + d, unit: '', tol: 0, hasYear: false, ...alt }]
    },
  },
  // a range of days of one month: "October 12 through 25", "March 3-7, 2027" (both ends are dates)
  {
    re: new RegExp(`\\b${MONTH_RE} (\\d{1,2})(?:st|nd|rd|th)?\\s?(?:-|–|to|through|thru|until)\\s?(\\d{1,2})(?:st|nd|rd|th)?\\b(?!:|\\s?(?:am|pm|a\\.m|p\\.m))(?:,? (\\d{4}))?`, 'gi'),
    read: (m) => {
      const mo = month(m[1]!)
      const y = m[4] ? Number(m[4]) : undefined
      return [Number(m[2]), Number(m[3])].filter((d) => validDate(mo, d)).map((d) => ({ dim: 'date' as Dim, value: y ? dayNumber(y, mo, d) : mo * 100 + d, unit: '', tol: 0, hasYear: y !== undefined }))
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
  // a month of a year: "in March 2026" is any day of it, "the end of March 2028" its last day, "early June 2026" its start
  {
    re: new RegExp(`\\b(?:(end|start|beginning|early|mid|middle|late)[- ](?:of )?)?${MONTH_RE},? (\\d{4})\\b`, 'gi'),
    read: (m) => {
      const mo = month(m[2]!)
      const y = Number(m[3])
      const days = new Date(Date.UTC(y, mo, 0)).getUTCDate()
      const first = dayNumber(y, mo, 1)
      const part = (m[1] ?? '').toLowerCase()
      if (part === 'end') return [{ dim: 'date' as Dim, value: first + days - 1, unit: '', tol: 0, hasYear: true }]
      if (part === 'start' || part === 'beginning') return [{ dim: 'date' as Dim, value: first, unit: '', tol: 0, hasYear: true }]
      return [{ dim: 'date' as Dim, value: first + (days - 1) / 2, unit: '', tol: (days - 1) / 2 + 0.01, hasYear: true }]
    },
  },
  // a range of clock times sharing one meridiem: "between 6 and 7 pm", "9-11 am" (the first takes the second's half of the day)
  {
    re: /\b(\d{1,2})(?::(\d{2}))?\s?(?:-|–|to|and|until)\s?(\d{1,2})(?::(\d{2}))?\s?([ap])\.?m\.?(?![a-z])/gi,
    read: (m) => {
      const pm = m[5]!.toLowerCase() === 'p'
      const h2 = (Number(m[3]) % 12) + (pm ? 12 : 0)
      let h1 = (Number(m[1]) % 12) + (pm ? 12 : 0)
      if (h1 * 60 + Number(m[2] ?? 0) > h2 * 60 + Number(m[4] ?? 0)) h1 -= 12
      return [
        { dim: 'time', value: h1 * 60 + Number(m[2] ?? 0), unit: '', tol: 0, hasYear: true },
        { dim: 'time', value: h2 * 60 + Number(m[4] ?? 0), unit: '', tol: 0, hasYear: true },
      ]
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
    re: /\b([01]?\d|2[0-3]):([0-5]\d)(?::[0-5]\d)?(Z\b|\s?(?:UTC|GMT)\b)?(?!\s?[ap]\.?m)(?!\s?dilution)/gi,
    read: (m) => [{ dim: 'time', value: Number(m[1]) * 60 + Number(m[2]), unit: '', tol: 0, hasYear: true, ...(m[3] ? { utc: true } : {}) }],
  },
  // compound and ISO durations: 1 h 30 min, an hour and twenty minutes, 2 hours and 15 minutes, an hour and a half, PT1H30M, P3D
  {
    re: /\b(\d+)\s?(?:h|hr|hrs|hours?)\s*(?:and\s*)?(\d+)\s?(?:m|min|mins|minutes?)\b|\b(\d+)h(\d{2})\b|\b(?:[Aa]n?|[Oo]ne)\s(hour|day|week|month|year)\sand\sa\shalf\b|\b(?:[Aa]n|[Oo]ne)\shour\s(?:and\s)?(\d+|five|ten|fifteen|twenty|twenty-five|thirty|thirty-five|forty|forty-five|fifty|fifty-five)\s?(?:min|mins|minutes?)\b|\bP(?:(\d+)D)?T?(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?\b/g,
    read: (m) => {
      // "an hour and a half", "a day and a half"; "an hour and 47 minutes"
      if (m[5]) return [{ dim: 'duration', value: 1.5 * UNITS[m[5]]![1], unit: '', tol: Math.max(30, 0.0075 * UNITS[m[5]]![1]), hasYear: true }]
      if (m[6]) return [{ dim: 'duration', value: 3600 + minutesIn(m[6]) * 60, unit: '', tol: 30, hasYear: true }]
      if (m[1]) return [{ dim: 'duration', value: Number(m[1]) * 3600 + Number(m[2]) * 60, unit: '', tol: 30, hasYear: true }]
      if (m[3]) return [{ dim: 'duration', value: Number(m[3]) * 3600 + Number(m[4]) * 60, unit: '', tol: 30, hasYear: true }]
      if (!m[7] && !m[8] && !m[9] && !m[10]) return []
      const value = Number(m[7] ?? 0) * 86400 + Number(m[8] ?? 0) * 3600 + Number(m[9] ?? 0) * 60 + Number(m[10] ?? 0)
      return [{ dim: 'duration', value, unit: '', tol: 0.5, hasYear: true }]
    },
  },
  // money: $4.82 billion, €22.50, EUR 22.50, CA$412.30, 24.8p, 126 dollars, 16 euros; a price per unit: "$0.70 a mile", "1.0842 dollars per euro"
  {
    re: new RegExp(`(?:(?:(CA\\$|C\\$|AU?\\$|S\\$|HK\\$|NZ\\$|US\\$|R\\$|[$€£¥₹])|\\b(${CODES})\\s?)${NUM}(?:\\s?(k|thousand|million|mn|m|billion|bn|b)\\b)?|${NUM}(?:\\s?(thousand|million|billion|bn))?\\s?(${CODES}|dollars?|euros?|yen|yuan|renminbi|francs?|rupees?|cents?|pence|p|zł|złoty|zloty|zlotys|kronor|pesos?)(?![\\wł]))(?:\\s?(?:(?:a|an|per|each)\\s|/\\s?)((?:cubic\\s)?[a-z]+)\\b)?`, 'gi'),
    read: (m) => {
      const raw = m[3] ?? m[5]!
      const scale = SCALE[(m[4] ?? m[6] ?? '').toLowerCase()] ?? 1
      let code = m[1] ? CURRENCY_SIGNS[m[1].toUpperCase()]! : m[2] ? m[2].toUpperCase() : CURRENCY_WORDS[m[7]!.toLowerCase()] ?? m[7]!.toUpperCase()
      if (code === 'RMB') code = 'CNY'
      let factor = scale
      if (code.endsWith('/100')) {
        code = code.slice(0, -4)
        factor /= 100
      }
      const value = toNumber(raw) * factor
      // "$0.70 a mile", "24.8p per kWh", "1.0842 dollars per euro": a price per unit, comparable only with prices of that unit.
      const perWord = m[8] ? perUnit(m[8]) : null
      const per = perWord ? `/${perWord.word}` : ''
      return [{ dim: 'money', value, unit: code + per, tol: tolerance(raw, factor, false, value, 0), hasYear: true, ...(perWord ? { per: perWord } : {}) }]
    },
  },
  // °C / °F and "degrees Fahrenheit"
  {
    re: new RegExp(`(${SIGNED})\\s?(?:°|º|degrees?)\\s?(c|f|celsius|fahrenheit)?\\b(?:\\s?(?:(?:per|a|an|each|every)\\s|/\\s?)(${UNIT_ALT})(?![a-z]))?|(${SIGNED})\\s?(?:to|-|–)\\s?(?=[-−]?\\d+(?:\\.\\d+)?\\s?(?:°|º))`, 'gi'),
    read: (m) => {
      const raw = (m[1] ?? m[4]!).replace('−', '-')
      const f = /^f/i.test(m[2] ?? '')
      const v = toNumber(raw)
      // A rate ("0.38 °F per decade") is a change of temperature: °F scale only, no offset.
      const per = m[3] ? perUnit(m[3]) : null
      const value = f ? (per ? (v * 5) / 9 : ((v - 32) * 5) / 9) : v
      return [{ dim: 'temperature', value, unit: m[4] ? '?' : '', tol: tolerance(raw, f ? 5 / 9 : 1, false, value), hasYear: true, ...(per ? { per } : {}) }]
    },
  },
  // Kubernetes quantities: 512Mi, 1Gi (binary sizes; "Mi" here is never miles)
  {
    re: /\b(\d+(?:\.\d+)?)\s?(Ki|Mi|Gi|Ti)\b/g,
    read: (m) => {
      const value = Number(m[1]) * 1024 ** (['Ki', 'Mi', 'Gi', 'Ti'].indexOf(m[2]!) + 1)
      return [{ dim: 'data', value, unit: '', tol: value * 0.005, hasYear: true }]
    },
  },
  // a concentration in air or serum ("18.6 µg/m³", "4.2 ng/mL"): a reading on its own scale, as a result gives it beside
  // its unit ("mean": 18.6, "unit": "µg/m³"); not a mass, nor a rate per metre (mg/dL and mmol/L convert, below)
  {
    re: new RegExp(`${NUM}\\s?(?:(?:µg|μg|ug|mg|ng)\\s?/\\s?(?:m³|m3)|(?:ng|pg|µg|μg|ug)\\s?/\\s?(?:mL|ml|L))(?![\\w])`, 'g'),
    read: (m) => [{ dim: 'count' as Dim, value: toNumber(m[1]!), unit: '', tol: tolerance(m[1]!, 1, false, toNumber(m[1]!), 0), hasYear: true }],
  },
  // number + unit: 25 min, 2.4 kB, 101 million km, a 12-month term, 55 × 40 × 23 cm (the unit applies back to bare numbers
  // before "×", "to", "-"), and rates: "15 mg per kg", "160 mg per 5 mL", "28.5 L per 100 km", "12 hours a week"
  {
    re: new RegExp(`${NUM}(?:\\s?(?:×|x|by|to|-|–|and)\\s?${NUM})?(?:\\s?(?:×|x|by)\\s?${NUM})?(?:\\s?(thousand|million|billion|trillion))?(?:\\s|-)?(${UNIT_ALT}|")(?![a-z])(?:\\s?(?:(?:per|a|an|each|every)\\s|/\\s?)(?:(\\d+(?:\\.\\d+)?)\\s?)?(${UNIT_ALT})(?![a-z]))?(?!/)`, 'gi'),
    read: (m) => {
      const u = m[5]!.toLowerCase()
      const named = unitNamed(m[5]!)
      if (!named) return []
      const [dim, factor] = named
      const scale = SCALE[(m[4] ?? '').toLowerCase()] ?? 1
      const rate = m[7] ? perUnit(m[7], Number(m[6] ?? 1)) : undefined
      const per = rate && rate.dim === 'duration' && (m[6] !== undefined || /\bevery\s/i.test(m[0])) ? { ...rate, every: true } : rate
      const out: Array<Omit<Quantity, 'index' | 'end' | 'approx' | 'bound'>> = []
      for (const raw of [m[1], m[2], m[3]]) {
        if (!raw) continue
        const value = toNumber(raw) * factor * scale
        const alt = decimalData(u, factor, value)
        out.push({ dim, value, unit: '', tol: tolerance(raw, factor * scale, false, value, dim === 'percent' ? 0 : calendarTolerance(factor)), hasYear: true, ...(per ? { per } : {}), ...(alt ? { alt } : {}) })
      }
      return out
    },
  },
  // "four and a half hours", "one and a half months", "three-quarters of a percentage point", "a quarter of an hour"
  {
    re: new RegExp(`\\b(?:${WORDNUM}|${NUM})\\s+and\\s+a\\s+half\\s+(${UNIT_ALT})\\b|\\b(a|one|two|three)[ -](quarters?|thirds?|fifths?|tenths?)\\s+of\\s+an?\\s+(${UNIT_ALT})\\b`, 'gi'),
    read: (m) => {
      const n = m[3] ? 0.5 + (WORD_NUMBERS[m[1]?.toLowerCase() ?? ''] ?? toNumber(m[2] ?? '1')) : fraction(m[4]!, m[5]!)
      const named = unitNamed((m[3] ?? m[6])!)
      if (!named) return []
      const [dim, factor] = named
      const value = n * factor
      return [{ dim, value, unit: '', tol: Math.abs(value) * 0.01, hasYear: true }]
    },
  },
  // "in a minute", "within an hour", "for a week": one unit of time after a preposition (never "twice a day", "$0.70 a mile")
  {
    re: new RegExp(`(?<=\\b(?:in|within|after|for|about|under|over|than|only|just)\\s)an?\\s(${UNIT_ALT})(?![a-z])`, 'gi'),
    read: (m) => {
      const unit = unitNamed(m[1]!)
      if (!unit || unit[0] !== 'duration') return []
      return [{ dim: 'duration', value: unit[1], unit: '', tol: unit[1] * 0.005, hasYear: true }]
    },
  },
  // A window in a field's name: "et_last_7d_in", "rolling_30d" (lower case, after the window's word: never "3D printing").
  {
    re: /(?<=\b(?:last|past|previous|next|rolling|trailing)[\s_])(\d{1,3})d\b/g,
    read: (m) => [{ dim: 'duration', value: Number(m[1]) * 86400, unit: '', tol: 0, hasYear: true }],
  },
  // number words + unit: "half an hour", "two hours", "four weeks", "a day", "twelve-month terms"
  {
    re: new RegExp(`\\b${WORDNUM}(?:[ -](one|two|three|four|five|six|seven|eight|nine))?[\\s-](${UNIT_ALT})(?![a-z])`, 'gi'),
    read: (m) => {
      const w = m[1]!.toLowerCase()
      const n = /^half/.test(w) ? 0.5 : w === 'a dozen' ? 12 : (WORD_NUMBERS[w] ?? 1) + (m[2] ? WORD_NUMBERS[m[2].toLowerCase()]! : 0)
      const u = m[3]!.toLowerCase()
      const named = unitNamed(m[3]!)
      if (!named) return []
      const [dim, factor] = named
      const value = n * factor
      const alt = decimalData(u, factor, value)
      return [{ dim, value, unit: '', tol: Math.abs(value) * calendarTolerance(factor), hasYear: true, ...(alt ? { alt } : {}) }]
    },
  },
  // a change in points of a percentage: "a 3.5-point improvement", "a 2-point drop"
  {
    re: /\b(\d+(?:\.\d+)?)-point (?=(?:improvement|drop|gain|increase|decrease|lead|reduction|rise|fall|difference|gap|swing|jump|decline)s?\b)/gi,
    read: (m) => [{ dim: 'percent' as Dim, value: Number(m[1]), unit: '', tol: tolerance(m[1]!, 1, false, Number(m[1]), 0), hasYear: true }],
  },
  // pay multiples: "time and a half", "double time" (an overtime multiplier)
  {
    re: /\b(time and a half|double time|triple time)\b/gi,
    read: (m) => [{ dim: 'ratio' as Dim, value: ({ 'time and a half': 1.5, 'double time': 2, 'triple time': 3 } as Record<string, number>)[m[1]!.toLowerCase()]!, unit: '', tol: 0.01, hasYear: true }],
  },
  // multiples: "five times the Pro limit", "nine times the price", "twice as long"
  {
    re: new RegExp(`\\b(?:${NUM}|${WORDNUM})\\s+times\\s+(?=as\\b|the\\b|more\\b|higher\\b|larger\\b|bigger\\b|greater\\b|longer\\b|faster\\b|what\\b|that\\b|its\\b|their\\b|his\\b|her\\b|our\\b|your\\b)|\\b(twice|double|triple|quadruple)\\s+(?=as\\b|the\\b|that\\b|what\\b)`, 'gi'),
    read: (m) => {
      const value = m[3] ? { twice: 2, double: 2, triple: 3, quadruple: 4 }[m[3].toLowerCase() as 'twice']! : m[1] ? toNumber(m[1]) : WORD_NUMBERS[m[2]!.toLowerCase()]!
      return [{ dim: 'ratio', value, unit: '', tol: m[1] ? tolerance(m[1], 1, false, value, 0) : 0.49, hasYear: true }]
    },
  },
  // shares in words: "one in seven", "a third", "three quarters", "half of" (as percentages)
  {
    re: new RegExp(`\\b(?:one|1)\\s+(?:in|out of)\\s+(?:${NUM}|${WORDNUM})\\b|\\b(a|one|two|three|four)[ -](halves|half|thirds?|quarters?|fifths?|sixths?|sevenths?|eighths?|tenths?)\\b|\\b(half)\\s+(?=of\\b)`, 'gi'),
    read: (m) => {
      const value = m[5] ? 50 : m[3] ? fraction(m[3], m[4]!) * 100 : 100 / (m[1] ? toNumber(m[1]) : WORD_NUMBERS[m[2]!.toLowerCase()]!)
      // A share said in words is a rounded figure: "one in seven" for 14%, "a third" for 34%.
      return Number.isFinite(value) ? [{ dim: 'percent', value, unit: '', tol: value * 0.04, hasYear: true }] : []
    },
  },
  // "immediately", "right away": no delay at all
  {
    re: /\b(immediately|instantly|right away|at once|straight away)\b/gi,
    read: () => [{ dim: 'duration', value: 0, unit: '', tol: 3600, hasYear: true }],
  },
  // frequencies in words: "three times a day", "twice daily", "once a week" (a count per that time)
  {
    re: new RegExp(`\\b(?:${WORDNUM}\\s+times|(once|twice|thrice))\\s+(?:(?:a|an|per|each|every)\\s+(hour|day|week|month|year)|(hourly|daily|weekly|monthly|yearly|annually))\\b`, 'gi'),
    read: (m) => {
      const value = m[2] ? { once: 1, twice: 2, thrice: 3 }[m[2].toLowerCase() as 'once']! : WORD_NUMBERS[m[1]!.toLowerCase()]!
      const per = perUnit(periodWord(m[3] ?? m[4]!)!, 1)
      return value && per ? [{ dim: 'count', value, unit: '', tol: 0, hasYear: true, per }] : []
    },
  },
  // counts per time: "600 requests per minute", "10 per second", "3 times a day"
  {
    re: new RegExp(`${NUM}(?:\\s?(thousand|million|billion))?((?:\\s+[a-z]+){0,2}?)\\s+(?:per|a|an|each|every|/)\\s?(second|sec|minute|min|hour|hr|day|week|month|year|decade)s?\\b`, 'gi'),
    read: (m) => {
      const per = perUnit(m[4]!, 1)!
      const scale = SCALE[(m[2] ?? '').toLowerCase()] ?? 1
      const value = toNumber(m[1]!) * scale
      return [{ dim: 'count', value, unit: '', tol: tolerance(m[1]!, scale, false, value, 0), hasYear: true, per }]
    },
  },
  // a range of decimals without a unit ("ref_range": "3.9-5.5"): both ends, not a code
  {
    re: /(?<![\w.-])(\d+\.\d+)\s?[-–]\s?(\d+\.\d+)(?![\w.])/g,
    read: (m) => [m[1]!, m[2]!].map((x) => ({ dim: 'count' as Dim, value: Number(x), unit: '', tol: tolerance(x, 1, false, Number(x), 0), hasYear: true })),
  },
  // plain numbers and number words: counts ("33 pallets", "two authors"); a minus sign is read as the magnitude's
  // (a result's -0.88 bound, as its JSON numbers are), a hyphen after a word is a code's ("A-12")
  {
    re: new RegExp(`(?<![\\w.])(?<![\\w.][-−])${NUM}(?:\\s?(thousand|million|billion|bn))?(?![\\w]|-\\d|\\.\\d)|\\b(two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|hundred|dozen)\\b`, 'gi'),
    read: (m) => {
      if (m[3]) {
        const value = WORD_NUMBERS[m[3].toLowerCase()]!
        return [{ dim: 'count', value, unit: '', tol: 0, hasYear: true }]
      }
      const factor = SCALE[(m[2] ?? '').toLowerCase()] ?? 1
      const value = toNumber(m[1]!) * factor
      return [{ dim: 'count', value, unit: '', tol: tolerance(m[1]!, factor, false, value, 0), hasYear: true }]
    },
  },
]

