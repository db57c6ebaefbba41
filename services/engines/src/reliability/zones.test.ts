import { describe, expect, it } from 'vitest'
import { offsetsIn, zoneOffset } from './zones.js'

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b)

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

  it('reads IANA names, cities and AoE, on the days of the trace\'s dates when it has no timestamp', () => {
    expect(offsetsIn(['The member is in America/Chicago.', '"next_run": "2027-03-13"'])).toEqual([-360])
    expect(offsetsIn(['The member is in America/Chicago.', '"next_run": "2027-03-15"'])).toEqual([-300])
    expect(offsetsIn(['1:15 am Central (07:15 UTC)', '"at": "2026-11-20T07:15:00Z"'])).toEqual([-360])
    expect(offsetsIn(['deadline 25 June at 23:59 AoE'])).toEqual([-720])
    expect(offsetsIn(['12:59 pm in London', '2027-06-26'])).toEqual([60])
  })

  it('gives both offsets when nothing says the day, and none for a text naming no zone', () => {
    expect(sorted(offsetsIn(['10 pm tonight Eastern']))).toEqual([-300, -240])
    expect(offsetsIn(['Meet at 10 am.'])).toEqual([])
  })
})

describe('zoneOffset', () => {
  it('follows each zone\'s own daylight saving rules, and knows no made-up zone', () => {
    expect(zoneOffset('America/New_York', new Date(Date.UTC(2026, 2, 8, 12)))).toBe(-240)
    expect(zoneOffset('America/New_York', new Date(Date.UTC(2026, 2, 7, 12)))).toBe(-300)
    expect(zoneOffset('Europe/Paris', new Date(Date.UTC(2026, 2, 29, 12)))).toBe(120)
    expect(zoneOffset('Asia/Kolkata', new Date(Date.UTC(2026, 6, 1)))).toBe(330)
    expect(zoneOffset('Mars/Olympus_Mons', new Date())).toBeNull()
  })
})

describe('named zones in passing', () => {
  it('read "Central" as a zone only after a clock time', () => {
    expect(offsetsIn(['Meet at Central Station.', '2026-11-20'])).toEqual([])
    expect(offsetsIn(['at 1:15 am Central', '2026-11-20'])).toEqual([-360])
  })
})
