import { describe, expect, it } from 'vitest'
import { HttpError } from '@svc/shared/http/errors'
import { decodeCursor, encodeCursor, parseTraceListQuery } from './params.js'

const status = (f: () => unknown) => {
  try {
    f()
  } catch (e) {
    return e instanceof HttpError ? e.status : 'not an HttpError'
  }
  return 'no error'
}

describe('trace list query', () => {
  it('has the spec defaults', () => {
    expect(parseTraceListQuery({})).toEqual({ pageSize: 50, cursor: null, startNs: null, endNs: null, gradeMinRank: null, project: null, includeEmpty: false })
  })

  it('parses every parameter', () => {
    const cursor = encodeCursor({ start_ns: '1700000000000000000', trace_id: 'a'.repeat(32) })
    const q = parseTraceListQuery({ page_size: '10', cursor, start_time: '2026-01-01T00:00:00Z', end_time: '2026-01-02T00:00:00.5Z', grade_min: 'B+', project: 'p1', include_empty: 'true' })
    expect(q).toEqual({
      pageSize: 10,
      cursor: { start_ns: '1700000000000000000', trace_id: 'a'.repeat(32) },
      startNs: 1767225600000000000n,
      endNs: 1767312000500000000n,
      gradeMinRank: 5,
      project: 'p1',
      includeEmpty: true,
    })
  })

  it('ranks grades D=0 to A+=8', () => {
    expect(parseTraceListQuery({ grade_min: 'D' }).gradeMinRank).toBe(0)
    expect(parseTraceListQuery({ grade_min: 'A+' }).gradeMinRank).toBe(8)
  })

  it.each([
    ['grade_min', 'Z'], ['grade_min', 'a'], ['grade_min', 'F'],
    ['page_size', '0'], ['page_size', '501'], ['page_size', 'ten'], ['page_size', '-1'], ['page_size', '1.5'],
    ['start_time', 'yesterday'], ['end_time', '2026-13-45T00:00:00Z'],
    ['include_empty', 'maybe'],
    ['cursor', '%%%'], ['cursor', 'bm90LWpzb24'], ['cursor', Buffer.from('{"v":1,"s":"x","t":"y"}').toString('base64url')],
  ])('answers 400 for %s=%s', (name, value) => {
    expect(status(() => parseTraceListQuery({ [name]: value }))).toBe(400)
  })

  // Stored times are int64 nanoseconds (DateTime64(9)): 1900-01-01 to 2262-04-11T23:47:16.854775807Z.
  it.each([
    ['start_time', '2300-01-01T00:00:00Z'], ['end_time', '2262-04-11T23:47:16.854775808Z'], ['start_time', '9999-12-31'],
    ['start_time', '1899-12-31T23:59:59Z'], ['end_time', '0000-01-01T00:00:00Z'],
    ['cursor', encodeCursor({ start_ns: '9223372036854775808', trace_id: 'a'.repeat(32) })],
    ['cursor', encodeCursor({ start_ns: '99999999999999999999', trace_id: 'a'.repeat(32) })],
  ])('answers 400 for %s=%s, outside the stored time range', (name, value) => {
    expect(status(() => parseTraceListQuery({ [name]: value }))).toBe(400)
  })

  it('accepts the ends of the stored time range', () => {
    const q = parseTraceListQuery({ start_time: '1900-01-01T00:00:00Z', end_time: '2262-04-11T23:47:16.854775807Z' })
    expect(q.startNs).toBe(-2208988800000000000n)
    expect(q.endNs).toBe(9223372036854775807n)
  })

  it('lists the accepted grades in the error detail', () => {
    try {
      parseTraceListQuery({ grade_min: 'Z' })
    } catch (e) {
      expect((e as HttpError).detail).toMatchObject({ accepted: ['D', 'C', 'C+', 'B-', 'B', 'B+', 'A-', 'A', 'A+'] })
    }
  })

  it('round-trips a cursor', () => {
    const c = { start_ns: '1', trace_id: '0123456789abcdef0123456789abcdef' }
    expect(decodeCursor(encodeCursor(c))).toEqual(c)
  })
})
