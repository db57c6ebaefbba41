import { describe, expect, it } from 'vitest'
import { derivable, type Operands } from './arithmetic.js'
import { quantities, type Quantity } from './quantity.js'

const one = (text: string): Quantity => quantities(text)[0]!

/** Operands: the evidence's figures (all on the claim's topic) and the answer's. */
function ops(evidence: string, answer = ''): Operands {
  const ev = quantities(evidence)
  return { evidence: ev, topical: new Set(ev), request: [], answer: quantities(answer), offsets: [], groups: [] }
}

describe('derivable money at the precision the claim states', () => {
  const quote = ops('amount €2,500 at 1.0842 dollars per euro, a fee of $150', "$2,710.50 at today's rate")

  it('takes a total given to the cent only to the cent', () => {
    expect(derivable(one('$2,860.50'), quote)).toBe(true)
    // 0.74% off the answer's $2,710.50 at the rate: a slip, not a rounding.
    expect(derivable(one('$2,960.50'), quote)).toBe(false)
    expect(derivable(one('$2,861.00'), quote)).toBe(false)
  })

  it("allows what the operands' own rounding allows", () => {
    // $1,234 and $99 are whole dollars: the sum may lie a dollar either way of $1,333.
    const invoice = ops('subtotal $1,234, shipping $99')
    expect(derivable(one('$1,333.80'), invoice)).toBe(true)
    expect(derivable(one('$1,336.00'), invoice)).toBe(false)
    // A rate to two places: 4,000 × 0.79 may be 3,140-3,180.
    expect(derivable(one('€3,171.20'), ops('$4,000 at 0.79 euros per dollar'))).toBe(true)
  })

  it('keeps the relative slack of a rounded amount', () => {
    expect(derivable(one('$2.9k'), quote)).toBe(true)
    expect(derivable(one('about $2,900'), quote)).toBe(true)
    expect(derivable(one('$2,870'), quote)).toBe(true)
    expect(derivable(one('about $3,100'), quote)).toBe(false)
  })
})

describe('dates', () => {
  it('move by calendar months', () => {
    expect(derivable(one('February 28, 2027'), ops('bought on 2026-11-30, covered for 3 months'))).toBe(true)
    expect(derivable(one('March 3, 2027'), ops('bought on 2026-11-30, covered for 3 months'))).toBe(false)
  })
})
