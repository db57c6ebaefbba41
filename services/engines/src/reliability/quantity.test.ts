import { describe, expect, it } from 'vitest'
import { quantities, satisfies } from './quantity.js'

describe('quantities', () => {
  it('reads a height in feet and inches as one length', () => {
    for (const t of [`5'10"`, '5 ft 10 in', '5 feet 10 inches']) {
      const [q, ...rest] = quantities(`He is ${t} tall.`)
      expect(rest, t).toEqual([])
      expect(q!.dim).toBe('length')
      expect(q!.value).toBeCloseTo(1.778, 3)
    }
  })

  it('bounds a time of day by "after" and "before", never a duration', () => {
    const [after] = quantities('leaving after 9 am')
    const [nine33] = quantities('09:33')
    expect(after!.bound).toBe('>')
    expect(satisfies(after!, nine33!)).toBe(true)
    expect(satisfies(quantities('before 9 am')[0]!, nine33!)).toBe(false)
    expect(quantities('it times out after 30 minutes')[0]!.bound).toBe('')
  })
})

describe('ranges and limits as results write them', () => {
  it('reads both ends of a decimal range, with or without a unit, and a one-sided limit as a bound', () => {
    expect(quantities('3.9-5.5').map((q) => q.value)).toEqual([3.9, 5.5])
    expect(quantities('4.0-5.6 %').map((q) => [q.dim, q.value])).toEqual([['percent', 4], ['percent', 5.6]])
    expect(quantities('<42 mmol/mol')[0]!.bound).toBe('<')
    expect(quantities('≥ 100 mg/dL')[0]!.bound).toBe('>')
  })
})
