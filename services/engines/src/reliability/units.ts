/**
 * The words quantities are written with: units per dimension (with the factor to the
 * dimension's unit), currencies by sign, code and word, scale words, number words,
 * month names and the periods a rate may be per. quantity.ts reads text with them.
 */
import type { Dim, Per } from './quantity.js'

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']
export const MONTH_RE = '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?'
export const month = (s: string) => MONTHS.indexOf(s.slice(0, 3).toLowerCase()) + 1

export const WORD_NUMBERS: Record<string, number> = {
  zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12,
  thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19, twenty: 20, thirty: 30,
  forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90, hundred: 100, dozen: 12, a: 1, an: 1, half: 0.5,
}

/** A month as a duration: the mean Gregorian month, in seconds. */
export const MONTH_SECONDS = 86400 * 30.44

/** unit word → [dimension, factor to the dimension's unit] (temperature handled apart). */
export const UNITS: Record<string, [Dim, number]> = {}
const unit = (dim: Dim, factor: number, ...names: string[]) => names.forEach((n) => (UNITS[n] = [dim, factor]))
unit('duration', 0.001, 'ms', 'millisecond', 'milliseconds')
unit('duration', 1, 's', 'sec', 'secs', 'second', 'seconds')
unit('duration', 60, 'min', 'mins', 'minute', 'minutes')
unit('duration', 3600, 'h', 'hr', 'hrs', 'hour', 'hours')
unit('duration', 86400, 'day', 'days', 'business day', 'business days', 'working days', 'calendar days', 'nights', 'night')
unit('duration', 604800, 'week', 'weeks', 'wk', 'wks')
unit('duration', 86400 * 14, 'fortnight')
unit('duration', MONTH_SECONDS, 'month', 'months', 'mo', 'mos')
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
// ("nm" is the nautical mile of charts and flight plans; a wavelength in nm compares with itself all the same)
unit('length', 1852, 'nm', 'nmi', 'NM', 'nautical mile', 'nautical miles')
unit('length', 1.495978707e11, 'AU', 'astronomical unit', 'astronomical units')
unit('length', 9.4607304725808e15, 'ly', 'light-year', 'light-years', 'light year', 'light years')
unit('length', 3.0856775814914e16, 'pc', 'parsec', 'parsecs')
// (in square metres; "m2" only in a field's name, where it cannot be an M2 screw or chip)
unit('area', 1, 'm²', 'sq m', 'sqm', 'square metre', 'square metres', 'square meter', 'square meters')
unit('area', 1e-4, 'cm²', 'sq cm', 'square centimetre', 'square centimetres', 'square centimeter', 'square centimeters')
unit('area', 0.09290304, 'ft²', 'sq ft', 'sq. ft.', 'sq. ft', 'sqft', 'square foot', 'square feet')
unit('area', 1e4, 'ha', 'hectare', 'hectares')
unit('area', 4046.8564224, 'acre', 'acres')
unit('area', 1e6, 'km²', 'sq km', 'square kilometre', 'square kilometres', 'square kilometer', 'square kilometers')
unit('area', 2589988.110336, 'mi²', 'sq mi', 'square mile', 'square miles')
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
unit('volume', 100, 'dl')
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
unit('percent', 1, '%', 'percent', 'per cent', 'pct', 'percentage point', 'percentage points', 'pp')
unit('speed', 1, 'm/s', 'metres per second', 'meters per second')
unit('speed', 0.001, 'mm/s', 'millimetres per second', 'millimeters per second')
unit('speed', 1 / 3.6, 'km/h', 'kmh', 'kph', 'km per hour', 'kilometres per hour', 'kilometers per hour', 'kilometres an hour', 'kilometers an hour')
unit('speed', 0.44704, 'mph', 'miles per hour', 'miles an hour')
unit('speed', 0.514444, 'kn', 'kt', 'kts', 'knot', 'knots')
unit('energy', 1, 'wh', 'watt-hour', 'watt-hours')
unit('energy', 1000, 'kwh', 'kilowatt-hour', 'kilowatt-hours', 'kilowatt hours', 'kilowatt hour')
unit('energy', 1e6, 'mwh')

export const CURRENCY_SIGNS: Record<string, string> = { $: 'USD', '€': 'EUR', '£': 'GBP', '¥': 'JPY', '₹': 'INR', 'CA$': 'CAD', C$: 'CAD', A$: 'AUD', 'AU$': 'AUD', S$: 'SGD', 'HK$': 'HKD', 'NZ$': 'NZD', 'US$': 'USD', 'R$': 'BRL' }
/** ISO codes read as currencies. */
export const CODES = 'USD|EUR|GBP|JPY|CHF|CAD|AUD|INR|SEK|NOK|DKK|PLN|MXN|SGD|HKD|NZD|CNY|RMB|KRW|BRL|ZAR|CZK|HUF|TRY|AED'
export const CURRENCY_WORDS: Record<string, string> = {
  usd: 'USD', dollar: 'USD', dollars: 'USD', eur: 'EUR', euro: 'EUR', euros: 'EUR', gbp: 'GBP', jpy: 'JPY', yen: 'JPY', chf: 'CHF',
  cad: 'CAD', aud: 'AUD', inr: 'INR', sek: 'SEK', nok: 'NOK', dkk: 'DKK', pln: 'PLN', mxn: 'MXN', cents: 'USD/100', cent: 'USD/100',
  pence: 'GBP/100', p: 'GBP/100', sgd: 'SGD', hkd: 'HKD', nzd: 'NZD', cny: 'CNY', rmb: 'CNY', yuan: 'CNY', renminbi: 'CNY', krw: 'KRW',
  brl: 'BRL', zar: 'ZAR', francs: 'CHF', franc: 'CHF', rupees: 'INR', rupee: 'INR',
  zł: 'PLN', złoty: 'PLN', zloty: 'PLN', zlotys: 'PLN', kronor: 'SEK', peso: 'MXN', pesos: 'MXN',
}
export const SCALE: Record<string, number> = { k: 1e3, thousand: 1e3, m: 1e6, mn: 1e6, million: 1e6, b: 1e9, bn: 1e9, billion: 1e9, trillion: 1e12 }

/** "15 GB" is often meant as GiB (and a result's "15360 MB" as MiB): a decimal data size also reads as the binary one. */
export function decimalData(unitWord: string, factor: number, value: number): number | undefined {
  if (!/^(?:[kmgt]b|kilobytes?|megabytes?|gigabytes?|terabytes?)$/.test(unitWord)) return undefined
  return value * 1.024 ** Math.round(Math.log10(factor) / 3)
}

const FRACTIONS: Record<string, number> = { half: 2, halves: 2, third: 3, quarter: 4, fifth: 5, sixth: 6, seventh: 7, eighth: 8, tenth: 10 }
/** "three quarters" → 0.75, "a third" → 1/3. */
export function fraction(count: string, part: string): number {
  const n = WORD_NUMBERS[count.toLowerCase()] ?? 1
  return n / FRACTIONS[part.toLowerCase().replace(/s$/, '').replace(/^halve$/, 'half')]!
}

/**
 * The unit a word of the text names, however it is cased or written ("AU", "Min", "μg" with a Greek mu for the micro
 * sign's "µg"): the patterns match units case-insensitively, and a match the table lacks is no unit, never a crash.
 */
export function unitNamed(word: string): [Dim, number] | undefined {
  const w = word.toLowerCase()
  return UNITS[word] ?? UNITS[w] ?? UNITS[w.replace(/\u03bc/g, '\u00b5')]
}

/** The unit a rate is per ("kg", "5 mL", "minute", "share"); a word that is no unit is a counted thing. */
export function perUnit(word: string, amount = 1): Per | null {
  const w = word.toLowerCase().trim()
  if (/^cubic\s+(?:met(?:er|re)s?)$|^cbm$|^m3$/.test(w)) return { dim: 'volume', amount: amount * 1e6, word: 'm3' }
  const u = UNITS[w] ?? UNITS[w.replace(/s$/, '')]
  if (u) return { dim: u[0], amount: amount * u[1], word: w.replace(/s$/, '') }
  const c = CURRENCY_WORDS[w] ?? CURRENCY_WORDS[w.replace(/s$/, '')]
  if (c && !c.includes('/')) return { dim: 'money', amount, word: c }
  if (!/^[a-z]+$/.test(w) || w.length < 2) return null
  return { dim: 'count', amount, word: w.replace(/(?:es|s)$/, '') }
}

/** Period adjectives and adverbs as the period's unit word: "daily" is per day, "annual" per year. */
const PERIOD_ADJECTIVES: Record<string, string> = { hourly: 'hour', daily: 'day', nightly: 'night', weekly: 'week', monthly: 'month', yearly: 'year', annual: 'year', annually: 'year' }
/** The period a word names, as its unit word ("month", "monthly" → month; "annual" → year), or null. */
export function periodWord(word: string): string | null {
  const w = word.toLowerCase()
  return PERIOD_ADJECTIVES[w] ?? (/^(?:hour|day|night|week|month|year)$/.test(w) ? w : null)
}
