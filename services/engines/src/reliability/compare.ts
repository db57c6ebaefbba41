/**
 * Comparing quantities read by quantity.ts: the same value within the tolerance of its
 * writing (money within one currency, rates per the same kind of thing, dates without a
 * year by month and day, a frequency against the interval it implies), or within a
 * claim's bound ("under 30 minutes").
 */
import type { Quantity } from './quantity.js'

/**
 * Money compares within one currency ('*': an amount whose currency the trace does not say meets any); a price per
 * unit ("$75 per day") also meets the same amount written plainly, never a price per another unit.
 */
export const currencyOf = (q: Quantity) => q.unit.split('/')[0]!
export function sameCurrency(a: Quantity, b: Quantity): boolean {
  const ca = currencyOf(a)
  const cb = currencyOf(b)
  if (ca !== cb && ca !== '*' && cb !== '*') return false
  const pa = a.unit.split('/')[1]
  const pb = b.unit.split('/')[1]
  // Amounts per two periods ("$92 a month", "premium_annual": 1104) compare per one unit of time (perScale).
  return pa === pb || pa === undefined || pb === undefined || (a.per?.dim === 'duration' && b.per?.dim === 'duration')
}

/** Rates compare only with rates per the same kind of thing (per time with per time, per kg with per gram), or with the amount written plainly. */
function samePer(a: Quantity, b: Quantity): boolean {
  if (!a.per || !b.per) return true
  return a.per.dim === b.per.dim && (a.per.dim !== 'count' || a.per.word === b.per.word)
}

/** Two rates per the same kind of thing, compared per one unit of it ("600 per minute" is "10 per second"). */
const perScale = (claim: Quantity, ev: Quantity) => (claim.per && ev.per ? ev.per.amount / claim.per.amount : 1)

/** The time between two occurrences a quantity states: "3 times a day" every 8 h, "every 8 hours", "250 mg per 8 hours" (not "250 mg per hour": a flow). */
function interval(q: Quantity): number | null {
  if (q.per?.dim === 'duration' && q.per.every && q.dim !== 'count') return q.per.amount
  if (q.per?.dim === 'duration' && q.dim === 'count' && q.value > 0) return q.per.amount / q.value
  return q.dim === 'duration' && q.interval ? q.value : null
}

/**
 * A frequency and an interval that say the same: "three times a day" for "every 8 hours" or "250 mg every 8 hours"
 * (within 1%). The claim's side must be a bare frequency or interval: "800 mg every 4 hours" states a dose as well.
 */
function sameFrequency(claim: Quantity, ev: Quantity): boolean {
  if (!(claim.dim === 'count' && claim.per?.dim === 'duration') && !(claim.dim === 'duration' && claim.interval)) return false
  const a = interval(claim)
  const b = interval(ev)
  return a !== null && b !== null && Math.abs(a - b) <= 0.01 * b
}

/** Two quantities state the same value (dates without a year compare by month and day; an ambiguous reading counts). */
export function sameValue(claim: Quantity, ev: Quantity): boolean {
  if (claim.dim !== ev.dim) return sameFrequency(claim, ev)
  if (claim.dim === 'money' && !sameCurrency(claim, ev)) return false
  if (!samePer(claim, ev)) return false
  if (claim.dim === 'date' && claim.hasYear !== ev.hasYear) {
    const md = (q: Quantity) => {
      if (!q.hasYear) return q.value
      const d = new Date(q.value * 86_400_000)
      return (d.getUTCMonth() + 1) * 100 + d.getUTCDate()
    }
    return md(claim) === md(ev) || (!claim.hasYear && claim.alt === md(ev)) || (!ev.hasYear && ev.alt === md(claim))
  }
  const k = perScale(claim, ev)
  if (k !== 1) return Math.abs(claim.value * k - ev.value) <= Math.max(claim.tol * k, ev.tol * 0.5, 1e-9)
  const tol = Math.max(claim.tol, ev.tol * 0.5, 1e-9)
  // A month ("in March 2026") holds any of its days.
  if (claim.dim === 'date') return claim.value === ev.value || claim.alt === ev.value || (ev.alt !== undefined && ev.alt === claim.value) || (claim.tol > 0 && Math.abs(claim.value - ev.value) <= claim.tol)
  for (const a of claim.alt === undefined ? [claim.value] : [claim.value, claim.alt])
    for (const b of ev.alt === undefined ? [ev.value] : [ev.value, ev.alt]) if (Math.abs(a - b) <= tol) return true
  return false
}

/** The evidence value satisfies the claim: the same value, or within the claim's bound ("under 30 minutes"). */
export function satisfies(claim: Quantity, ev: Quantity): boolean {
  if (sameValue(claim, ev)) return true
  // "Within 60 days" against "within 30 days" is two limits that differ, not a value inside one.
  if (!claim.bound || claim.limit || ev.bound || claim.dim !== ev.dim || (claim.dim === 'money' && !sameCurrency(claim, ev)) || !samePer(claim, ev) || claim.dim === 'date') return false
  const k = perScale(claim, ev)
  return claim.bound === '<' ? ev.value <= claim.value * k : ev.value >= claim.value * k
}

/** The significant digits of a value as a result writes it: 412000 → "412", 6842.18 → "684218". */
const digitsOf = (v: number) => String(Math.abs(+v.toFixed(6))).replace('.', '').replace(/^0+/, '').replace(/0+$/, '')

/**
 * A misreading of the evidence's value rather than another value: the same significant digits of an amount of a
 * thousand or more in another order ("$421,000" for 412000, "$6,824.18" for 6842.18). Arithmetic that happens to meet
 * such a figure is chance. (Not dates: a date a year after one the evidence gives is often the point.)
 */
export function nearMiss(claim: Quantity, ev: Quantity): boolean {
  if (claim.dim !== ev.dim || (claim.dim === 'money' && claim.unit !== ev.unit) || claim.per || ev.per) return false
  if (claim.dim === 'date' || claim.dim === 'time' || Math.abs(claim.value) < 1000 || sameValue(claim, ev)) return false
  const [a, b] = [digitsOf(claim.value), digitsOf(ev.value)]
  return a.length >= 3 && a.length === b.length && a !== b && [...a].sort().join('') === [...b].sort().join('') && Math.abs(Math.log10(Math.abs(claim.value) / Math.abs(ev.value))) < 0.5
}
