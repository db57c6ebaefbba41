/**
 * Figures a claim may have computed from the trace's own: sums and differences
 * (of up to four figures on the claim's topic), shares and changes in percent,
 * multiples ("nine times the price"), a percentage of an amount, a rate times a
 * quantity or an amount divided by one ("15 mg per kg" × 18 kg, $4.15 per kg ×
 * 480 kg, 270 mg ÷ 160 mg per 5 mL), an amount at an exchange rate, an amount
 * split over a count, the days between two dates, the time between two clock
 * times, a date or a clock time moved by a duration, and a UTC time in a zone whose
 * offset the trace gives, and a one-way figure doubled for a round trip. Every candidate uses at least one evidence figure; the
 * user's figures may enter, and the answer's own (a chain: $8,526 × 0.79, "$2,710.50
 * at today's rate … with the $150 fee, $2,860.50"), rates of the answer only in products.
 */
import { currencyOf, sameValue } from './compare.js'
import type { Quantity } from './quantity.js'
import { MONTH_SECONDS } from './units.js'

export interface Operands {
  /** Figures of the evidence the claim may use (its entity's, not a competitor's). */
  evidence: Quantity[]
  /** Those on the claim's topic: the only ones that enter sums, differences and shares. */
  topical: Set<Quantity>
  /** The user's figures (operands, never support on their own). */
  request: Quantity[]
  /** Figures stated elsewhere in the answer and in the claim (a chain: always beside an evidence figure). */
  answer: Quantity[]
  /** Offsets from UTC, in minutes, that the trace names ("UTC-8", "+08:00"). */
  offsets: number[]
  /** Values of one attribute across the items of a list (siblings): what sums of three or four add up. */
  groups: Quantity[][]
  /** The claim says its figure is a fall ("down 5.6%", "5.6% lower"): a change in percent may be negative. */
  falling?: boolean
  /** The claim speaks of a journey both ways ("164 nm round trip"): a one-way figure doubles. */
  bothWays?: boolean
}

const key = (x: Quantity) => `${x.dim}|${x.unit}|${x.value}|${x.per?.word ?? ''}`
/** Each value once: the same figure read twice (a sentence and its window) is one operand. */
function uniq(xs: Quantity[], seen: Set<string>): Quantity[] {
  return xs.filter((x) => !seen.has(key(x)) && (seen.add(key(x)), true))
}

/** A quantity expressed in a named unit ("mile" → its value in miles), null when the unit is not one we convert to. */
function convertTo(q: Quantity, per: NonNullable<Quantity['per']>): number | null {
  if (q.dim === 'count') return per.dim === 'count' ? q.value : null
  return per.dim === q.dim ? q.value / per.amount : null
}

/** Combinations of 3 or 4 of the given figures (sums of a few items: regions, line items, legs). */
function* subsets(xs: Quantity[], min: number, max: number): Generator<Quantity[]> {
  const n = xs.length
  const pick: number[] = []
  function* rec(start: number): Generator<Quantity[]> {
    if (pick.length >= min) yield pick.map((i) => xs[i]!)
    if (pick.length === max) return
    for (let i = start; i < n; i++) {
      pick.push(i)
      yield* rec(i + 1)
      pick.pop()
    }
  }
  yield* rec(0)
}

/** The rounding of a figure as written (before "about" widened it): how far the value it stands for may lie. */
const rounding = (x: Quantity) => x.digits ?? x.tol
/** How far a product or a quotient may lie, from the rounding of its two operands. */
const productError = (a: number, da: number, b: number, db: number) => Math.abs(a) * db + Math.abs(b) * da
const quotientError = (a: number, da: number, b: number, db: number) => (Math.abs(a) * db + Math.abs(b) * da) / (b * b)

/**
 * Whether a computed value is the claim's figure, given how far the operands' own rounding lets it lie (`err`).
 * Arithmetic meets the figure as written: "about $1,860" is not 1,764, though "about" allows 6% for a reading. An
 * amount given to the cent is exact: the computed value must round to it, give or take the operands' rounding; a
 * percent of slack let a wrong total through ("$2,960.50" for $2,860.50 met $2,710.50 × 1.0842 within 0.8%). A
 * rounded amount ("$2.9k", "about $2,900", "$2,900") keeps the relative slack of its precision.
 */
function hitter(q: Quantity): (v: number, err?: number) => boolean {
  const slack = Math.max(q.digits ?? q.tol, Math.abs(q.value) * (q.approx ? 0.035 : 0.01))
  // Money's tolerance is the last digit's alone (0.49 of it): to the cent, the half cent either way rounds to it.
  const toCent = q.dim === 'money' && !q.approx && q.tol < 0.01
  const half = (q.tol / 0.49) * 0.5
  return (v, err = 0) => {
    if (!Number.isFinite(v) || Math.abs(v) <= 1e-9) return false
    // A loose bound ("a little over three weeks", "just under an hour") holds a computed value on its side, not far
    // past it: a figure half again as large is no longer "a little over" it in anyone's reading. (A cap, "up to £50",
    // is stated exactly.)
    if (q.approx && q.bound === '>' && q.value > 0) return v >= q.value - slack && v <= q.value * 1.5
    if (q.approx && q.bound === '<' && q.value > 0) return v <= q.value + slack && v >= q.value / 1.5
    const within = toCent ? Math.min(slack, half + err + 1e-9 * Math.abs(q.value)) : slack
    return Math.abs(v - q.value) <= within
  }
}

/**
 * Operands one figure is computed from, at most (the labelled sets' largest pool is 25): every pair of them is
 * tried, so the pools are bounded for a trace whose results or answer hold thousands of figures.
 */
const MAX_OPERANDS = { evidence: 48, request: 16, answer: 32 }
const MAX_SUM_TERMS = 4
/** Sums of three or four figures are searched among at most this many topical figures (chance hits grow with more). */
const MAX_SUM_POOL = 9

/** A duration of whole months or years ("24 months", "2 years"): its months, else null. */
function wholeMonths(seconds: number): number | null {
  const m = seconds / MONTH_SECONDS
  return m >= 1 && Math.abs(m - Math.round(m)) < 0.02 ? Math.round(m) : null
}
/**
 * Whether a day number is the claim's day: the same day, or for a day written without its year ("arrives 21 April"),
 * the same month and day (the year is the computed day's own).
 */
function onDay(q: Quantity, day: number): boolean {
  if (q.hasYear) return Math.abs(day - q.value) < 0.5
  const d = new Date(Math.round(day) * 86_400_000)
  const md = (d.getUTCMonth() + 1) * 100 + d.getUTCDate()
  return md === q.value || q.alt === md
}
/** A day number moved by calendar months: 2025-03-01 plus 24 months is 2027-03-01 (the last day of a shorter month when it has no such day). */
function addMonths(day: number, months: number): number {
  const d = new Date(day * 86_400_000)
  const target = d.getUTCMonth() + months
  const last = new Date(Date.UTC(d.getUTCFullYear(), target + 1, 0)).getUTCDate()
  return Math.round(Date.UTC(d.getUTCFullYear(), target, Math.min(d.getUTCDate(), last)) / 86_400_000)
}

/** Whether the claim's figure can be computed from the trace's figures. */
export function derivable(q: Quantity, ops: Operands): boolean {
  if (q.dim === 'count' && q.value <= 3 && !q.per) return false
  const seen = new Set<string>()
  // Topical figures first, so that the bound on operands keeps those a sum or a share may use.
  const evidence = uniq([...ops.evidence.filter((x) => ops.topical.has(x)), ...ops.evidence.filter((x) => !ops.topical.has(x))], seen).slice(0, MAX_OPERANDS.evidence)
  // The figure itself (the answer states it too) is no operand.
  const extra = uniq(ops.request.filter((x) => !sameValue(q, x)), seen).slice(0, MAX_OPERANDS.request)
  // The claim's own figures first (ops.answer ends with them): a chain is most often within the claim.
  const answer = uniq([...ops.answer].reverse().filter((x) => !sameValue(q, x)), seen).slice(0, MAX_OPERANDS.answer)
  const all = [...evidence, ...extra, ...answer]
  const isEv = new Set(evidence)
  // Sums and differences only of figures on the claim's topic, the user's or the answer's (a chain; not its rates: a
  // "100 requests per second" added up from the answer's other limits): two unrelated figures add up by chance.
  const inSum = new Set([...evidence.filter((x) => ops.topical.has(x)), ...extra, ...answer.filter((x) => !x.per)])
  const hit = hitter(q)
  const measured = !q.per && q.dim !== 'money' && q.dim !== 'count' && q.dim !== 'percent' && q.dim !== 'ratio' && q.dim !== 'date' && q.dim !== 'time'
  // A small term meets a rounded total by chance; an amount to the cent ("€11,406.63" with a €15 fee) only by arithmetic.
  const cents = q.dim === 'money' && !q.approx && q.tol < 0.01 && !Number.isInteger(q.value)
  const sizable = (x: Quantity) => cents || Math.abs(x.value) >= Math.abs(q.value) * 0.02
  const addable = (x: Quantity) => x.dim === q.dim && sizable(x) && !x.per === !q.per && (q.dim !== 'money' || x.unit === q.unit || currencyOf(x) === '*')
  for (const a of all)
    for (const b of all) {
      if (a === b || (!isEv.has(a) && !isEv.has(b))) continue
      if (inSum.has(a) && inSum.has(b) && addable(a) && addable(b) && q.dim !== 'date' && q.dim !== 'time') {
        const err = rounding(a) + rounding(b)
        if (hit(a.value + b.value, err) || hit(a.value - b.value, err)) return true
      }
      if (products(q, a, b, hit, inSum, ops.falling === true)) return true
      // A measure times a whole count the evidence gives on the topic: "12 pallets at 820 kg each is 9,840 kg".
      if (measured && a.dim === q.dim && !a.per && b.dim === 'count' && !b.per && isEv.has(b) && ops.topical.has(b) && Number.isInteger(b.value) && b.value >= 3 && hit(a.value * b.value, productError(a.value, rounding(a), b.value, rounding(b)))) return true
      if (q.dim === 'duration' && a.dim === 'date' && b.dim === 'date' && a.hasYear && b.hasYear && hit(Math.abs(a.value - b.value) * 86400)) return true
      // (A day without its year meets a sum by chance more often: only with a period of the evidence on the topic.)
      const topicalPeriod = b.dim === 'duration' && isEv.has(b) && ops.topical.has(b)
      if (q.dim === 'date' && a.dim === 'date' && b.dim === 'duration' && a.hasYear && (q.hasYear || topicalPeriod)) {
        if (onDay(q, a.value + b.value / 86400) || onDay(q, a.value - b.value / 86400)) return true
        const months = wholeMonths(b.value)
        if (months !== null && (onDay(q, addMonths(a.value, months)) || onDay(q, addMonths(a.value, -months)))) return true
        // Two steps of one lead time: "21 days ex works, plus 4 days' transport" from today.
        if (topicalPeriod) for (const step of evidence) if (step !== b && step.dim === 'duration' && ops.topical.has(step) && onDay(q, a.value + (b.value + step.value) / 86400)) return true
      }
      // (across midnight too: 22:00 to 03:00 is five hours)
      if (q.dim === 'duration' && a.dim === 'time' && b.dim === 'time' && (hit(Math.abs(a.value - b.value) * 60) || hit((1440 - Math.abs(a.value - b.value)) * 60))) return true
      if (q.dim === 'time' && a.dim === 'time' && b.dim === 'duration' && b.value < 86400) {
        const m = (x: number) => ((x % 1440) + 1440) % 1440
        if (m(a.value + b.value / 60) === q.value || m(a.value - b.value / 60) === q.value) return true
      }
    }
  // A one-way distance, time or fare, there and back.
  if (ops.bothWays && q.dim !== 'date' && q.dim !== 'time' && evidence.some((x) => x.dim === q.dim && !x.per === !q.per && hit(2 * x.value, 2 * rounding(x)))) return true
  // A UTC time shown in the zone the trace names.
  if (q.dim === 'time') for (const e of evidence) if (e.dim === 'time' && e.utc && ops.offsets.some((o) => (((e.value + o) % 1440) + 1440) % 1440 === q.value)) return true
  return ops.groups.some((g) => sums(q, g.filter(addable), hit)) || gains(q, [...inSum].filter((x) => isEv.has(x) || answer.includes(x)), hit)
}

/** A difference of two amounts times a count on the topic: a position's gain, 120 units × (£112.15 − £98.40) = £1,650. */
function gains(q: Quantity, pool: Quantity[], hit: (v: number, err?: number) => boolean): boolean {
  if (q.dim !== 'money' || q.per) return false
  const amounts = pool.filter((x) => x.dim === 'money' && !x.per && (x.unit === q.unit || currencyOf(x) === '*'))
  const counts = pool.filter((x) => x.dim === 'count' && !x.per && Number.isInteger(x.value) && x.value >= 2)
  for (const a of amounts)
    for (const b of amounts)
      for (const n of counts) {
        if (a === b || a.value <= b.value) continue
        if (hit((a.value - b.value) * n.value, (rounding(a) + rounding(b)) * n.value)) return true
      }
  return false
}

/** Products and quotients: shares, multiples, rates, prices, conversions. */
function products(q: Quantity, a: Quantity, b: Quantity, hit: (v: number, err?: number) => boolean, inSum: Set<Quantity>, falling: boolean): boolean {
  const [da, db] = [rounding(a), rounding(b)]
  // A share or a change in percent, and a multiple, of figures on the claim's topic only.
  if (inSum.has(a) && inSum.has(b) && a.dim === b.dim && a.dim !== 'date' && a.dim !== 'time' && b.value) {
    const change = ((a.value - b.value) / b.value) * 100
    if (q.dim === 'percent' && a.dim !== 'percent' && (hit((a.value / b.value) * 100) || hit(change) || (falling && hit(-change)))) return true
    if (q.dim === 'ratio' && hit(a.value / b.value)) return true
    // An amount split evenly ("1,840 units at 40 per pallet is 46 pallets").
    if (q.dim === 'count' && a.dim === 'count' && Number.isInteger(a.value) && hit(a.value / b.value)) return true
  }
  // A percentage of an amount, the amount with it added or taken off (not of a day or a time: 7 April "plus 4%" is
  // no 24 April).
  if (a.dim === q.dim && !a.per && b.dim === 'percent' && q.dim !== 'date' && q.dim !== 'time' && (q.dim !== 'money' || currencyOf(a) === currencyOf(q) || currencyOf(a) === '*')) {
    const err = productError(a.value, da, b.value, db) / 100
    if (hit((a.value * b.value) / 100, err) || hit(a.value * (1 + b.value / 100), err + da) || hit(a.value * (1 - b.value / 100), err + da)) return true
  }
  // A rate times what it is per ("$4.15 per kg" × 480 kg, "15 mg per kg" × 18 kg, "6.15 h per pay period" × 2),
  // and an amount divided by a rate ("270 mg" ÷ "160 mg per 5 mL" = 8.4 mL).
  if (a.per && a.dim === q.dim && (q.dim !== 'money' || currencyOf(a) === currencyOf(q) || currencyOf(a) === '*')) {
    const amount = b.dim === 'count' && !b.per ? b.value : convertTo(b, a.per)
    const scale = amount === null || !b.value ? 1 : amount / b.value
    if (amount !== null && b.dim !== 'date' && b.dim !== 'time' && hit(a.value * amount, productError(a.value, da, amount, db * Math.abs(scale)))) return true
  }
  if (a.per && b.dim === a.dim && !b.per && a.value && q.dim === a.per.dim && hit((b.value / a.value) * a.per.amount, quotientError(b.value, db, a.value, da) * a.per.amount)) return true
  if (q.dim === 'money') {
    // An amount at an exchange rate: "1.0842 dollars per euro" × €2,500, or a plain rate (1.08) either way.
    if (a.per?.dim === 'money' && b.dim === 'money' && currencyOf(a) === currencyOf(q) && currencyOf(b) === a.per.word && hit(a.value * b.value, productError(a.value, da, b.value, db))) return true
    if (a.per?.dim === 'money' && b.dim === 'money' && currencyOf(b) === currencyOf(a) && a.per.word === currencyOf(q) && a.value && hit(b.value / a.value, quotientError(b.value, db, a.value, da))) return true
    if (a.dim === 'money' && !a.per && b.dim === 'count' && !b.per && b.value > 0) {
      const same = currencyOf(a) === currencyOf(q) || currencyOf(a) === '*'
      // Same currency: a price times a whole count, or an amount shared over a count on the topic; another: a conversion.
      const [times, over] = [productError(a.value, da, b.value, db), quotientError(a.value, da, b.value, db)]
      if (same ? (Number.isInteger(b.value) && b.value >= 1 && hit(a.value * b.value, times)) || (inSum.has(b) && hit(a.value / b.value, over)) : hit(a.value * b.value, times) || hit(a.value / b.value, over)) return true
    }
  }
  return false
}

/** Sums of three or four values of one attribute: "11,700 sign-ups in total" over three regions. */
function sums(q: Quantity, pool: Quantity[], hit: (v: number, err?: number) => boolean): boolean {
  if (q.dim === 'percent' || q.dim === 'ratio' || q.dim === 'date' || q.dim === 'time' || pool.length < 3 || pool.length > MAX_SUM_POOL * 2) return false
  const xs = pool.slice(0, MAX_SUM_POOL)
  for (const set of subsets(xs, 3, MAX_SUM_TERMS)) {
    const total = set.reduce((t, x) => t + x.value, 0)
    if (hit(total, set.reduce((t, x) => t + rounding(x), 0))) return true
  }
  return false
}
