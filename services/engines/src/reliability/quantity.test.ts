import { describe, expect, it } from 'vitest'
import { sameValue, satisfies } from './compare.js'
import { quantities } from './quantity.js'

describe('quantities', () => {
  it('reads a window in a field\'s name, an hour and minutes in words, a vulgar fraction and an area', () => {
    const dims = (text: string) => quantities(text).map((q) => `${q.dim} ${+q.value.toFixed(2)}`)
    expect(dims('et last 7d: 1.89 inches')).toEqual(['duration 604800', 'length 0.05'])
    expect(dims('a 3D printer')).toEqual([])
    expect(dims('about an hour and twenty minutes')).toEqual(['duration 4800'])
    expect(dims('about 2½ hours')).toEqual(['duration 9000'])
    expect(dims('71 m² (about 764 sq ft), on 2 ha')).toEqual(['area 71', 'area 70.98', 'area 20000'])
    // A clause's or a section's number names it, as "Section 7(b)" does.
    expect(dims('under clause 12.3, within 30 days (§ 5, Schedule 2).')).toEqual(['duration 2592000'])
  })

  it('reads a unit however the text cases or writes it, and a match the unit table lacks as no unit, never a crash', () => {
    // (The patterns match case-insensitively: "au" matched the table's "AU", and a Greek mu its micro sign's "µg".)
    const [selenium] = quantities('5 μg of selenium')
    expect(selenium?.dim).toBe('mass')
    expect(selenium?.value).toBeCloseTo(5e-6, 12)
    expect(quantities('two AU away').map((q) => q.dim)).toEqual(['length'])
    for (const text of ['2 au', 'two au', '1.5 Au pairs', 'one and a half au']) expect(quantities(text).filter((q) => q.dim === 'length')).toEqual([])
  })

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

describe('units a text implies', () => {
  it('gives the unit of a setting\'s name to the bare numbers after it in its clause', () => {
    expect(quantities('lower RETRY_TIMEOUT_MS from 30000 to 12000 (#2231)').map((q) => [q.dim, q.value])).toEqual([['duration', 30], ['duration', 12], ['count', 2231]])
    expect(quantities('lower RETRY TIMEOUT MS from 30000 to 12000').map((q) => q.dim)).toEqual(['duration', 'duration'])
    expect(quantities('NYC MS 131 has 400 students').map((q) => q.dim)).toEqual(['count', 'count'])
  })

  it('reads a month of a year as any of its days, its end as the last', () => {
    const [march] = quantities('filed in March 2026')
    const [day] = quantities('2026-03-09')
    expect(march!.dim).toBe('date')
    expect(sameValue(march!, day!)).toBe(true)
    expect(sameValue(march!, quantities('2026-04-01')[0]!)).toBe(false)
    expect(sameValue(quantities('valid until the end of March 2028')[0]!, quantities('2028-03-31')[0]!)).toBe(true)
  })

  it('reads light-years and parsecs as lengths, and "a 3.5-point improvement" as percentage points', () => {
    expect(sameValue(quantities('about 101 light-years')[0]!, quantities('31.1 pc')[0]!)).toBe(true)
    expect(quantities('a 3.5-point improvement')[0]!.dim).toBe('percent')
    expect(quantities('she scored 24 points')[0]!.dim).toBe('count')
  })
})

describe('inches written "in"', () => {
  it('reads a decimal before "in" and a bracket or the end as inches, and "in" before a word as a preposition', () => {
    const [q] = quantities('Rain: 1.52 in (38.6 mm) for the month.')
    expect(q).toMatchObject({ dim: 'length', unit: 'in.' })
    expect(q!.value).toBeCloseTo(0.0386, 3)
    expect(quantities('It ranked 4.5 in the survey.').map((x) => x.dim)).toEqual(['count'])
  })
})

describe('currencies written after the amount', () => {
  it('reads złoty, kronor and pesos', () => {
    expect(quantities("Wawel's state rooms are 60 zł, the tour 159 zł.").map((q) => [q.dim, q.value, q.unit])).toEqual([['money', 60, 'PLN'], ['money', 159, 'PLN']])
    expect(quantities('about 37,670 kronor').map((q) => q.unit)).toEqual(['SEK'])
    expect(quantities('1,200 pesos a month').map((q) => q.unit)).toEqual(['MXN/month'])
  })
})

describe('durations of a unit and more', () => {
  it('reads "an hour and 47 minutes" and "a day and a half" as one duration', () => {
    expect(quantities('It took about an hour and 47 minutes.').map((q) => [q.dim, q.value])).toEqual([['duration', 6420]])
    expect(quantities('One hour 10 minutes').map((q) => q.value)).toEqual([4200])
    expect(quantities('a day and a half').map((q) => [q.dim, q.value])).toEqual([['duration', 129600]])
  })
})

describe('signed numbers', () => {
  it('read a minus sign as the magnitude’s, as a result’s JSON numbers are, and a hyphen after a word as a code’s', () => {
    expect(quantities('ci95: -0.88, -0.24').map((q) => q.value)).toEqual([0.88, 0.24])
    expect(quantities('unit A-12, range 5-10')).toEqual([])
  })
})
