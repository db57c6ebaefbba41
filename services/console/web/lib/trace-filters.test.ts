import { describe, expect, it } from 'vitest'
import { DEFAULT_FILTERS, filtersFromQuery, filtersToQuery, traceListQuery } from './trace-filters'

describe('trace list filters', () => {
  it('round-trip through the query string, dropping values the API would refuse', () => {
    const f = { ...DEFAULT_FILTERS, range: 'custom' as const, from: '2026-01-01T00:00:00.000Z', to: '2026-01-02T00:00:00.000Z', project: 'checkout', grade_min: 'B+', include_empty: true }
    expect(filtersFromQuery(new URLSearchParams(filtersToQuery(f)))).toEqual(f)
    expect(filtersToQuery(DEFAULT_FILTERS)).toBe('')
    expect(filtersFromQuery(new URLSearchParams('grade_min=E&range=forever'))).toEqual(DEFAULT_FILTERS)
  })

  it('become GET /traces parameters, a rolling range measured back from now', () => {
    const now = Date.parse('2026-05-01T12:00:00.000Z')
    expect(traceListQuery({ ...DEFAULT_FILTERS, range: '1h', grade_min: 'A-' }, now, { cursor: 'c1' })).toEqual({
      page_size: '50',
      start_time: '2026-05-01T11:00:00.000Z',
      grade_min: 'A-',
      cursor: 'c1',
    })
    expect(traceListQuery({ ...DEFAULT_FILTERS, range: 'custom', to: '2026-04-01T00:00:00.000Z', include_empty: true, project: 'p' }, now)).toEqual({
      page_size: '50',
      end_time: '2026-04-01T00:00:00.000Z',
      include_empty: 'true',
      project: 'p',
    })
  })
})
