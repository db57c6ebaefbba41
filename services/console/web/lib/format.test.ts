import { describe, expect, it } from 'vitest'
import { fmtCount, fmtDuration, fmtUsd, fromLocalInput, toLocalInput } from './format'
import { linearScale, niceStep, niceTicks } from './scale'
import { scrollToShow, visibleRange } from './virtual'

describe('format', () => {
  it('reads durations at their scale', () => {
    expect(fmtDuration(0.25)).toBe('250 µs')
    expect(fmtDuration(3.14159)).toBe('3.1 ms')
    expect(fmtDuration(850)).toBe('850 ms')
    expect(fmtDuration(1234)).toBe('1.23 s')
    expect(fmtDuration(125_000)).toBe('2 min 5 s')
    expect(fmtDuration(3 * 3600_000 + 60_000)).toBe('3 h 1 min')
  })

  it('keeps fractions of a cent visible and counts compactly', () => {
    expect(fmtUsd(0)).toBe('$0')
    expect(fmtUsd(0.000123)).toBe('$0.000123')
    expect(fmtUsd(0.0421)).toBe('$0.0421')
    expect(fmtUsd(12.5)).toBe('$12.50')
    expect(fmtCount(1234)).toBe('1,234')
    expect(fmtCount(12_345)).toBe('12.3k')
    expect(fmtCount(2_500_000)).toBe('2.5M')
  })

  it('round-trips a datetime-local value through an instant', () => {
    const iso = fromLocalInput('2026-03-04T05:06')!
    expect(toLocalInput(iso)).toBe('2026-03-04T05:06')
    expect(fromLocalInput('')).toBeNull()
    expect(fromLocalInput('not a date')).toBeNull()
  })
})

describe('scale', () => {
  it('picks steps of 1, 2 or 5 times a power of ten', () => {
    expect(niceStep(1000, 5)).toBe(200)
    expect(niceStep(7, 5)).toBe(2)
    expect(niceStep(0.3, 3)).toBe(0.1)
    expect(niceTicks(0, 1000, 5)).toEqual([0, 200, 400, 600, 800, 1000])
    expect(niceTicks(0, 0.3, 3)).toEqual([0, 0.1, 0.2, 0.3])
    expect(niceTicks(0, 950, 4)).toEqual([0, 500, 1000])
  })

  it('maps a domain linearly, a flat one to the middle', () => {
    expect(linearScale(0, 10, 0, 100)(2.5)).toBe(25)
    expect(linearScale(5, 5, 0, 100)(5)).toBe(50)
  })
})

describe('virtual rows', () => {
  it('renders the viewport plus overscan, clamped to the list', () => {
    expect(visibleRange({ scrollTop: 0, viewportHeight: 240, rowHeight: 24, count: 5000, overscan: 5 })).toEqual({ start: 0, end: 16 })
    expect(visibleRange({ scrollTop: 24 * 1000, viewportHeight: 240, rowHeight: 24, count: 5000, overscan: 5 })).toEqual({ start: 995, end: 1016 })
    expect(visibleRange({ scrollTop: 24 * 4999, viewportHeight: 240, rowHeight: 24, count: 5000, overscan: 5 })).toEqual({ start: 4994, end: 5000 })
    expect(visibleRange({ scrollTop: 0, viewportHeight: 240, rowHeight: 24, count: 0 })).toEqual({ start: 0, end: 0 })
  })

  it('scrolls only as far as needed to show a row', () => {
    const view = { scrollTop: 240, viewportHeight: 240, rowHeight: 24 }
    expect(scrollToShow(12, view)).toBeNull()
    expect(scrollToShow(2, view)).toBe(48)
    expect(scrollToShow(25, view)).toBe(26 * 24 - 240)
  })
})
