import { describe, expect, it } from 'vitest'
import { dayLabel, dimensionLabel, directionTone, driftTone, fmtChange, offsetPaging, topRows } from './dashboards'

describe('dashboards', () => {
  it('labels a UTC day by month and day', () => {
    expect(dayLabel('2026-05-01T00:00:00.000Z')).toBe('05-01')
    expect(dayLabel('2026-12-31')).toBe('12-31')
    expect(dayLabel('yesterday')).toBe('yesterday')
  })

  it('keeps the first rows of a breakdown and sums the rest into one', () => {
    const rows = [5, 4, 3, 2, 1].map((v, i) => ({ name: `m${i}`, cost: v }))
    expect(topRows(rows, (r) => r.cost, (r) => r.name, 5)).toHaveLength(5)
    expect(topRows(rows, (r) => r.cost, (r) => r.name, 3)).toEqual([
      { label: 'm0', value: 5 },
      { label: 'm1', value: 4 },
      { label: '3 others', value: 6 },
    ])
  })

  it('words drift: tones by status and direction, changes relative except the model mix', () => {
    expect([driftTone('ok'), driftTone('warn'), driftTone('alert'), driftTone('?')]).toEqual(['good', 'warn', 'bad', 'none'])
    expect([directionTone('worse'), directionTone('better'), directionTone('changed'), directionTone('stable')]).toEqual(['bad', 'good', 'warn', 'none'])
    expect(fmtChange('cost_per_trace', 0.1234)).toBe('+12.3%')
    expect(fmtChange('error_rate', -0.5)).toBe('−50%')
    expect(fmtChange('tokens_per_trace', 0)).toBe('±0%')
    expect(fmtChange('model_mix', 0.25)).toBe('0.25 apart')
    expect(dimensionLabel('p95_latency_ms')).toBe('p95 latency')
    expect(dimensionLabel('new_thing')).toBe('new thing')
  })

  it('pages by offset', () => {
    expect(offsetPaging(0, 50, 0)).toEqual({ page: 1, pages: 1, prev: null, next: null })
    expect(offsetPaging(0, 50, 120)).toEqual({ page: 1, pages: 3, prev: null, next: 50 })
    expect(offsetPaging(100, 50, 120)).toEqual({ page: 3, pages: 3, prev: 50, next: null })
    expect(offsetPaging(30, 50, 120)).toMatchObject({ prev: 0, next: 80 })
  })
})
