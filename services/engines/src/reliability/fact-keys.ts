/**
 * What a JSON result's keys and values say, for the walk in facts.ts: which keys
 * name an object, which are generic, which carry a unit, a currency, money or a
 * status, and a number's value as text and quantities in the unit its key, its
 * object or a units map around it gives.
 */
import { quantities, type Quantity } from './quantity.js'
import { periodWord, perUnit } from './units.js'

const NAME_KEYS =
  /^(?:name|title|mode|plan|product|model|compound|author|store|city|carrier|line|type|kind|label|customer|account|subject|service|tier|drug|medication|medicine|flight|hotel|airline|brand|item|sku|id|code|route|option|vendor|provider|location|branch|doctor|physician|clinic|player|team|company|region|country|airport|station|package|version|tag|room|category|tool|method|test|course|program|fund|ticker|symbol|card|policy|project|repo|file|path|image|host|server|merchant|doc|document|counterparty|mark|train|warehouse|candidate|series|survey|segment|trial|study|site|unit|department|role|benefit|fare|fare_brand|brand_name|[a-z_]*_name)$/i
export const GENERIC_PARENTS = /^(?:result|results|data|response|output|item|items|record|records|details|info|payload|body|value|values)$/i
export const CURRENCY_KEYS: Record<string, string> = {
  usd: 'USD', eur: 'EUR', gbp: 'GBP', jpy: 'JPY', chf: 'CHF', cad: 'CAD', aud: 'AUD', inr: 'INR', sek: 'SEK', nok: 'NOK', dkk: 'DKK', sgd: 'SGD',
  hkd: 'HKD', nzd: 'NZD', cny: 'CNY', rmb: 'CNY', krw: 'KRW', brl: 'BRL', mxn: 'MXN', pln: 'PLN', zar: 'ZAR',
}
export const KEY_UNITS: Record<string, string> = {
  ms: 'ms', s: 's', sec: 's', secs: 's', seconds: 's', min: 'min', mins: 'min', minutes: 'min', h: 'h', hr: 'h', hrs: 'h', hours: 'h', days: 'days', day: 'days',
  weeks: 'weeks', months: 'months', years: 'years', mm: 'mm', cm: 'cm', m: 'm', km: 'km', mi: 'mi', miles: 'mi', nm: 'nm', nmi: 'nm', in: 'inches', inches: 'inches', ft: 'ft',
  mg: 'mg', g: 'g', kg: 'kg', t: 't', lb: 'lb', lbs: 'lb', oz: 'oz', ml: 'mL', l: 'L', gal: 'gal', gallons: 'gal', ul: 'µL', dl: 'dL', bytes: 'bytes', b: 'bytes', kb: 'kB', mb: 'MB', gb: 'GB',
  tb: 'TB', kib: 'KiB', mib: 'MiB', gib: 'GiB', pct: '%', percent: '%', pc: 'pc', ly: 'ly', au: 'AU', c: '°C', f: '°F', celsius: '°C', fahrenheit: '°F', degc: '°C', degf: '°F',
  wh: 'Wh', kwh: 'kWh', mwh: 'MWh', kmh: 'km/h', kph: 'km/h', mph: 'mph', knots: 'knots', kt: 'knots', kts: 'knots', mps: 'm/s',
  m2: 'm²', sqm: 'm²', sqft: 'sq ft', ft2: 'sq ft', ha: 'ha', hectares: 'ha', acres: 'acres', km2: 'km²',
}
/** Units a key spells in two words: speeds ("speed_km_h", "wind_m_s") and rates per area ("yield_t_ha", "rate_ml_ha"). */
const PAIR_KEYS: Record<string, string> = { 'km h': 'km/h', 'm s': 'm/s', 'mm s': 'mm/s', 'mi h': 'mph', 't ha': 't/ha', 'kg ha': 'kg/ha', 'l ha': 'L/ha', 'ml ha': 'mL/ha' }
/** Unit words safe to read anywhere in a key ("walk_min_to_station"), not only at its end: no English word among them. */
const INNER_UNITS = new Set(['ms', 'secs', 'seconds', 'min', 'mins', 'minutes', 'hrs', 'hours', 'days', 'weeks', 'months', 'years', 'km', 'mg', 'kg', 'lbs', 'kwh', 'wh', 'pct', 'bytes', 'kb', 'mb', 'gb', 'tb', 'kmh', 'kph', 'mph'])
/** Period adjectives that make a money key a rate ("hourly_rate", "nightly_rate", "daily_rate"). */
const PERIOD_ADJECTIVE = /^(?:hourly|daily|nightly)$/

/** Keys whose amounts are money even when no currency is named (then any currency meets them). */
const MONEY_WORDS = new Set([
  'price', 'prices', 'cost', 'costs', 'amount', 'total', 'subtotal', 'balance', 'fee', 'fees', 'fare', 'payment', 'paid', 'refund', 'charge', 'charges', 'rent',
  'deposit', 'salary', 'gross', 'net', 'pay', 'budget', 'copay', 'payout', 'tax', 'toll', 'tolls', 'discount', 'premium', 'due', 'owed', 'spend', 'spent',
  'principal', 'income', 'revenue', 'earnings', 'fine', 'penalty', 'allowance', 'credit', 'debit', 'bill', 'invoice', 'wage', 'bonus', 'tip',
  'shipping', 'postage', 'surcharge', 'savings', 'cashback', 'interest',
])
/** Keys a status value sits under: its word is what the entity is (cancelled, passed, declined). */
export const STATUS_KEYS = /^(?:status|state|result|outcome|conclusion|decision|verdict)$/i
/** Status words and the everyday words for them, so "success" meets "passed". */
export const STATUS_WORDS: Record<string, string> = {
  success: 'passed succeeded', succeeded: 'passed', passed: 'succeeded', failure: 'failed', failed: 'failure', ok: 'passed', green: 'passed', red: 'failed',
  partially_filled: 'partially filled', in_progress: 'still running in progress', running: 'in progress', pending: 'not yet', scheduled: 'scheduled',
}

const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']
/** A key that is a month or a date ("2026-09") reads as one ("September 2026"), not as two numbers. */
const dateKey = (k: string) => k.replace(/\b(\d{4})-(0[1-9]|1[0-2])(?:-(\d{2}))?\b/g, (_, y: string, m: string, d?: string) => `${MONTH_NAMES[Number(m) - 1]}${d ? ` ${Number(d)}` : ''} ${y}`)
export const keyWords = (k: string) =>
  dateKey(k)
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .split(/[_\s.-]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase())
/**
 * Key words as the fact's text shows them: without the unit and currency words (the value carries them), bare numbers
 * other than years, and "per". A one-letter or English unit word ("in", "m", "s") is a unit only at the end of the key ("in_stock" keeps "in").
 */
export const attributeOf = (words: string[]) =>
  words.filter((w, i) => !CURRENCY_KEYS[w] && !(KEY_UNITS[w] && (INNER_UNITS.has(w) || i === words.length - 1)) && w !== 'p' && w !== 'per' && (!/^\d+$/.test(w) || YEAR.test(w))).join(' ')
/** A year as a key ("recent": {"2022": 0.24}) names the value: "2023 was cooler than 2022". */
const YEAR = /^(?:1[89]\d\d|20\d\d)$/

export interface Scope {
  /** A currency the object or one around it names ("currency": "JPY"). */
  currency?: string
  /** Units an object around this one gives per key ("units": {"snow": "cm"}). */
  units?: Record<string, string>
  /** The unit the object around gives all its values ("unit": "degC"), for a series it holds. */
  unit?: string
}

/** Unit words a key of an object may end in to give its values their unit ("temp_c": {"max": …}, "precip_mm": {"total": …}). */
const OBJECT_KEY_UNITS = new Set(['mm', 'cm', 'km', 'mi', 'kg', 'lb', 'lbs', 'mg', 'c', 'f', 'celsius', 'fahrenheit', 'kwh', 'mb', 'gb', 'tb', 'ms', 'mph', 'kmh'])
/** The unit a key ends in after a word of its own, when it is one of `units`. */
function endUnit(key: string, units: Set<string>): string | undefined {
  const words = keyWords(key)
  const last = words[words.length - 1] ?? ''
  return words.length >= 2 && units.has(last) ? KEY_UNITS[last] : undefined
}
/** The unit an object's key gives the values under it ("temp_c": {"max": …}). */
export const objectKeyUnit = (key: string) => endUnit(key, OBJECT_KEY_UNITS)
/** The unit of a value written as a string: "processing_business_days": "5-10" is 5 to 10 days (units no English word shares). */
export const stringKeyUnit = (key: string) => endUnit(key, INNER_UNITS)

export const isCurrency = (v: unknown): v is string => typeof v === 'string' && /^[A-Z]{3}$/.test(v)

/** A money quantity built directly: the key says the currency (or '*', any). */
function money(value: number, currency: string, per?: ReturnType<typeof perUnit>): Quantity {
  const decimals = String(value).split('.')[1]?.length ?? 0
  return { dim: 'money', value, unit: per ? `${currency}/${per.word}` : currency, tol: 0.49 * 10 ** -decimals, approx: false, bound: '', hasYear: true, index: 0, end: 0, ...(per ? { per } : {}) }
}

/** "100km" → [100, 'km']: a per-unit with its amount. */
const amountAndUnit = (w: string): [number, string] => {
  const m = /^(\d+(?:\.\d+)?)([a-z]+)$/.exec(w)
  return m ? [Number(m[1]), m[2]!] : [1, w]
}

/**
 * A number under its key as a person writes it, and its quantity: 25 under duration_min is "25 min",
 * 4.15 under rate_usd_per_kg "USD 4.15 per kg", 6.15 under accrual_hours_per_pay_period "6.15 h per pay period".
 */
export function numberValue(key: string, v: number, parent: string, scope: Scope, objectUnit: string | undefined): { text: string; quantities: Quantity[] } {
  const words = keyWords(key)
  const parentWords = keyWords(parent)
  // "tax_year": 2025 is a year, whatever money word comes before it.
  if (words[words.length - 1] === 'year' && Number.isInteger(v) && v >= 1800 && v <= 2100) return { text: String(v), quantities: quantities(String(v)) }
  const per = words.indexOf('per')
  const head = per > 0 ? words.slice(0, per) : words
  const cur = [...head, ...parentWords].map((w) => CURRENCY_KEYS[w]).find(Boolean)
  const pence = head.includes('p') || head.includes('pence')
  // The key's head word says what the number is: "statement_balance" is money, "payments_remaining" a count.
  const nouns = head.filter((w) => !CURRENCY_KEYS[w] && !KEY_UNITS[w])
  const noun = nouns[nouns.length - 1] ?? ''
  // A unit the key names ("data_allowance_mb", "credit_hours") says what it measures, whatever its noun usually is.
  const unitInKey = words.some((w, i) => KEY_UNITS[w] && (INNER_UNITS.has(w) || i === words.length - 1))
  // "price_month", "fee_annual": an amount for a period (a key ending in its period word after a money word) is money too.
  const period = periodWord(noun)
  const moneyNoun = MONEY_WORDS.has(noun) || (period !== null && nouns.slice(0, -1).some((w) => MONEY_WORDS.has(w)))
  const moneyKey = !unitInKey && (moneyNoun || (scope.currency !== undefined && /^(?:value|amount|total|rate|price)$/.test(noun)))
  // The unit an object gives its values ("unit": "mm" beside "monthly": [{"total": 38.9}]) is that of every measure
  // under it that names none of its own, and no count's; it also says a "total" there is no amount of money.
  const last = words[words.length - 1] ?? ''
  const objectMeasure = !unitInKey && !COUNT_WORDS.has(last) ? measureUnit(objectUnit ?? scope.unit) : undefined
  // So does a unit the parent's key ends in ("precip_mm": {"total": 38.6} is 38.6 mm, not an amount).
  const parentMeasure = !unitInKey && KEY_UNITS[parentWords[parentWords.length - 1] ?? ''] !== undefined
  const currency = cur ?? (moneyKey ? (scope.currency ?? (objectMeasure || parentMeasure ? undefined : '*')) : undefined)
  if (per > 0 && per < words.length - 1) {
    const after = words.slice(per + 1).filter((w) => !CURRENCY_KEYS[w] || per === words.length - 2)
    const [amount, unitWord] = amountAndUnit(after.join(' ').replace(/\s+/g, ' '))
    const perCur = after.length === 1 ? CURRENCY_KEYS[after[0]!] : undefined
    const p = perCur ? { dim: 'money' as const, amount: 1, word: perCur } : perUnit(unitWord, amount)
    if (pence || currency) {
      const c = pence ? 'GBP' : currency!
      const value = pence ? v / 100 : v
      const text = `${pence ? `${v}p` : `${c} ${v}`} per ${after.join(' ')}`
      // A rate's figure spans its whole value, "per kg" included: no words of its own beside it.
      return { text, quantities: [{ ...money(value, c, p ?? undefined), end: text.length }] }
    }
    const u = [...head].reverse().map((w) => KEY_UNITS[w]).find(Boolean)
    const text = `${v}${u ? ` ${u}` : ''} per ${after.join(' ')}`
    const base = u ? quantities(`${v} ${u}`)[0] : undefined
    const q: Quantity = base ?? { dim: 'count', value: v, unit: '', tol: 0, approx: false, bound: '', hasYear: true, index: 0, end: 0 }
    return { text, quantities: p ? [{ ...q, per: p, end: text.length }] : [q] }
  }
  // "late_fee_pct", "apr_percent": a percentage, whatever it is a percentage of.
  if (words.some((w) => /^(?:pct|percent|percentage)$/.test(w))) return { text: `${v}%`, quantities: quantities(`${v}%`) }
  if (currency) {
    // "premium_annual": 1104 is an amount per year, so "$92 a month" can be read against it; by its adjective,
    // "hourly_rate_usd" is an amount per hour. (Not "monthly_fee": a month's amount is added to others as it is.)
    const adjective = head.map((w) => (PERIOD_ADJECTIVE.test(w) ? periodWord(w) : null)).find(Boolean) ?? null
    const per = period !== null && moneyNoun ? perUnit(period) : adjective ? perUnit(adjective) : null
    const text = `${currency === '*' ? '' : `${currency} `}${v}${per ? ` per ${per.word}` : ''}`
    return { text, quantities: [money(pence ? v / 100 : v, pence ? 'GBP' : currency, per)] }
  }
  const prev = words[words.length - 2] ?? ''
  // "downloads_first_7_days", "signups_last_30_days": the period counted over, not the value's unit.
  if (/^\d+$/.test(prev) && PERIOD_UNITS.has(last)) return { text: String(v), quantities: quantities(String(v)) }
  // "speed_km_h": a compound unit, a speed, not hours ("expires_in_s" is seconds: "in" is a word there).
  let unit = PAIR_KEYS[`${prev} ${last}`] ?? (KEY_UNITS[last] && !(KEY_UNITS[prev] && prev !== 'in') ? KEY_UNITS[last] : words.filter((w) => INNER_UNITS.has(w)).map((w) => KEY_UNITS[w]).find(Boolean))
  if (!unit && /percent|pct|percentage/.test(key)) unit = '%'
  if (!unit && objectUnit && /^(?:value|amount|result|level|reading|min|max|low|high|limit|target|average|avg|mean)$/i.test(last)) unit = objectUnit
  if (!unit) unit = unitFromScope(key, scope) ?? objectMeasure
  // The key of the object around may carry the unit of all its values: "dimensions_cm": {"width": 214}.
  if (!unit && !COUNT_WORDS.has(last)) unit = KEY_UNITS[parentWords[parentWords.length - 1] ?? '']
  // A unit as a key would spell it ("C", "degC", "km") reads as its symbol.
  if (unit) unit = KEY_UNITS[unit.toLowerCase()] ?? unit
  const text = unit ? `${v} ${unit}` : String(v)
  return { text, quantities: quantities(text) }
}

/** Unit words of a period, which after a number end a key that counts over a window ("_first_7_days"). */
const PERIOD_UNITS = new Set(['h', 'hr', 'hrs', 'hours', 'day', 'days', 'weeks', 'months', 'years', 'min', 'mins', 'minutes'])

/** Last key words of a count: an object's unit is not theirs ("unit": "kg" beside "quantity": 3). */
const COUNT_WORDS = new Set(['count', 'counts', 'number', 'num', 'n', 'qty', 'quantity', 'rank', 'position', 'year', 'id', 'index', 'page', 'pages', 'items', 'stations', 'samples', 'readings'])

/** A unit of measure as an object spells it ("mm", "degC", "mg/dL"), or undefined for a word that is none ("each", "Apt 4B"). */
function measureUnit(u: string | undefined): string | undefined {
  if (!u) return undefined
  // Asked for every number under an object with a unit: the few spellings a trace uses are read once.
  if (measureUnits.has(u)) return measureUnits.get(u)
  const symbol = KEY_UNITS[u.toLowerCase()] ?? u
  const q = quantities(`1 ${symbol}`)[0]
  const unit = q && q.dim !== 'count' && q.dim !== 'money' && q.end === symbol.length + 2 ? symbol : undefined
  if (measureUnits.size >= 1000) measureUnits.clear()
  measureUnits.set(u, unit)
  return unit
}
const measureUnits = new Map<string, string | undefined>()

/** Keys that hold a reading of a dimension a units map may name instead of the key ("units": {"temperature": "C"} for "high"). */
const DIMENSION_KEYS: Record<string, RegExp> = {
  temperature: /^(?:high|low|min|max|avg|mean|temp|feels like|dew point)$/,
  temp: /^(?:high|low|min|max|avg|mean|feels like|dew point)$/,
}

/** The unit a units map around the value gives its key, or the dimension its key reads. */
function unitFromScope(key: string, scope: Scope): string | undefined {
  const units = scope.units
  if (units?.[key]) return units[key]
  const words = keyWords(key).join(' ')
  for (const [dim, re] of Object.entries(DIMENSION_KEYS)) if (units?.[dim] && re.test(words)) return units[dim]
  // A series keyed by years or dates ("recent": {"2024": 0.72}) is in the unit of the object holding it.
  return /^\d{4}(?:-\d{2}){0,2}$/.test(key) ? scope.unit : undefined
}

/** What names an object: its name-like fields, else (an item of a list) its first short text field. */
export function ownerOf(o: Record<string, unknown>, inList: boolean): string[] {
  const named = Object.entries(o)
    // "unit": "mm" is what the object's values measure, not its name ("unit": "4B" is).
    .filter(([k, v]) => NAME_KEYS.test(k) && (typeof v === 'string' || typeof v === 'number') && String(v).length <= 60 && !(k === 'unit' && measureUnit(String(v))))
    // (A number names a record with its key: "line": 3 is "line 3", which a claim writes "Line 3".)
    .map(([k, v]) => (/^\d{1,6}$/.test(String(v).trim()) && !/(?:^|_)(?:id|code|sku)$/i.test(k) ? `${k} ${String(v).trim()}` : String(v)))
  if (named.length || !inList) return named
  const first = Object.values(o).find((v) => typeof v === 'string' && v.length <= 60 && !/^\d{4}-\d{2}/.test(v))
  return first ? [String(first)] : []
}

const WEEKDAYS: Record<string, string> = { mon: 'monday', tue: 'tuesday', tues: 'tuesday', wed: 'wednesday', thu: 'thursday', thur: 'thursday', thurs: 'thursday', fri: 'friday', sat: 'saturday', sun: 'sunday' }
/** Keys of opening hours spell days short ("hours": {"mon_fri": …, "sun": null}): read as the days' names. */
export function weekdays(key: string, parent: string): string {
  if (!/hours|schedule|opening|timetable|days/i.test(parent)) return key
  return key.replace(/[a-z]+/gi, (w) => WEEKDAYS[w.toLowerCase()] ?? w)
}

/** A table ({"columns": [...], "rows": [[...]]}) as the list of objects it stands for. */
export function tableRows(o: Record<string, unknown>): Array<Record<string, unknown>> | null {
  const cols = o.columns
  const rows = o.rows
  if (!Array.isArray(cols) || !Array.isArray(rows) || !cols.every((c) => typeof c === 'string') || !rows.every(Array.isArray)) return null
  return rows.map((r: unknown[]) => Object.fromEntries(cols.map((c: string, i) => [c, r[i]])))
}

/** A unit an object gives its unitless strings ("ref_range": "4.0-5.6" with "unit": "%"). */
export const numericString = (s: string) => /^[<>≤≥]?\s*-?\d[\d.,]*(?:\s*[-–]\s*-?\d[\d.,]*)?$/.test(s.trim())
