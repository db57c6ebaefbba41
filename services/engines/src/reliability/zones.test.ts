import { describe, expect, it } from 'vitest'
import { daylight, offsetsIn } from './zones.js'

describe('offsetsIn', () => {
  it('reads written offsets', () => {
    expect(offsetsIn(['Times are UTC-8.'])).toEqual([-480])
    expect(offsetsIn(['"at": "2026-03-02T09:00:00+05:30"'])).toEqual([330])
  })

  it('gives a named zone the offset its UTC timestamps\' days have', () => {
    expect(offsetsIn(['7:03 pm PT', '2026-10-30T02:03:00Z'])).toEqual([-420])
    expect(offsetsIn(['7:03 pm PT', '2026-11-02T03:03:00Z'])).toEqual([-480])
    expect(offsetsIn(['arrives 09:10 CET', '2026-10-24T08:10:00Z'])).toEqual([120])
    expect(offsetsIn(['arrives 09:10 CET', '2026-10-26T08:10:00Z'])).toEqual([60])
  })

  it('gives both offsets when no timestamp says the day, and none for a text naming no zone', () => {
    expect(offsetsIn(['10 pm tonight Eastern']).sort((a, b) => a - b)).toEqual([-300, -240])
    expect(offsetsIn(['Meet at 10 am.'])).toEqual([])
  })
})

describe('daylight', () => {
  it('follows the US and EU rules', () => {
    expect(daylight('us', new Date(Date.UTC(2026, 2, 8)))).toBe(true)
    expect(daylight('us', new Date(Date.UTC(2026, 2, 7)))).toBe(false)
    expect(daylight('us', new Date(Date.UTC(2026, 10, 1)))).toBe(false)
    expect(daylight('eu', new Date(Date.UTC(2026, 2, 29)))).toBe(true)
    expect(daylight('eu', new Date(Date.UTC(2026, 9, 25)))).toBe(false)
    expect(daylight(null, new Date(Date.UTC(2026, 6, 1)))).toBe(false)
  })
})
