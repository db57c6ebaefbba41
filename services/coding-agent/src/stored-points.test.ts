import { describe, expect, it } from 'vitest'
import type { ConsumedRecord } from '@svc/shared/bus/types'
import type { MetricRow } from './map.js'
import { StoredPoints } from './stored-points.js'

const rec = (offset: number, partition = 0): ConsumedRecord => ({ topic: 'm', partition, offset: String(offset), key: null, value: Buffer.alloc(0), timestamp: 0 })
const row = (series_id: string, time_ns: string, value: number, count = 0) => ({ series_id, time_ns, value, count }) as MetricRow
const p0 = { topic: 'm', partition: 0 }

/** Stores a batch of records [from, to] of a partition holding these rows. */
function store(s: StoredPoints, from: number, to: number, rows: MetricRow[], partition = 0) {
  const records = Array.from({ length: to - from + 1 }, (_, i) => rec(from + i, partition))
  s.begin(records)
  s.stored(records, rows.map((r) => ({ row: r, record: { topic: 'm', partition } })))
  return records
}

describe('StoredPoints', () => {
  it('knows the latest point it stored of a series while its partition is read without a gap', () => {
    const s = new StoredPoints()
    store(s, 0, 2, [row('a', '100', 5), row('a', '200', 7, 2), row('b', '150', 1)])
    s.begin([rec(3)])
    expect(s.previous('a', p0, '300')).toEqual({ value: 7, count: 2 })
    expect(s.previous('b', p0, '151')).toEqual({ value: 1, count: 0 })
    expect(s.previous('c', p0, '300')).toBeUndefined()
  })

  it('compares times as decimal integers of any length', () => {
    const s = new StoredPoints()
    store(s, 0, 0, [row('a', '999', 1)])
    expect(s.previous('a', p0, '1000')).toEqual({ value: 1, count: 0 })
    expect(s.previous('a', p0, '998')).toBeUndefined()
  })

  it('does not answer for a point that is not after the remembered one (a replay, a late point): that is looked up', () => {
    const s = new StoredPoints()
    store(s, 0, 0, [row('a', '200', 7)])
    expect(s.previous('a', p0, '200')).toBeUndefined()
    expect(s.previous('a', p0, '150')).toBeUndefined()
  })

  it('keeps the later point when a batch stores an older one (a late point) of a known series', () => {
    const s = new StoredPoints()
    store(s, 0, 0, [row('a', '200', 7)])
    store(s, 1, 1, [row('a', '150', 3)])
    expect(s.previous('a', p0, '300')).toEqual({ value: 7, count: 0 })
  })

  it('forgets a partition whose batch does not start where its last one ended, until it stores again', () => {
    const s = new StoredPoints()
    store(s, 0, 4, [row('a', '100', 5)])
    // Offsets 5-9 went to another member; this one gets the partition back at 10.
    s.begin([rec(10)])
    expect(s.previous('a', p0, '300')).toBeUndefined()
    // The batch fails and is delivered again: still forgotten.
    s.begin([rec(10)])
    expect(s.previous('a', p0, '300')).toBeUndefined()
    s.stored([rec(10)], [{ row: row('a', '250', 9), record: p0 }])
    s.begin([rec(11)])
    expect(s.previous('a', p0, '300')).toEqual({ value: 9, count: 0 })
  })

  it('forgets a partition read again from an earlier offset (a rewind)', () => {
    const s = new StoredPoints()
    store(s, 0, 4, [row('a', '100', 5)])
    s.begin([rec(0), rec(1)])
    expect(s.previous('a', p0, '300')).toBeUndefined()
  })

  it('a failed batch retried from the same offset still uses what was stored before it', () => {
    const s = new StoredPoints()
    store(s, 0, 1, [row('a', '100', 5)])
    s.begin([rec(2)]) // this attempt fails before stored()
    s.begin([rec(2)])
    expect(s.previous('a', p0, '300')).toEqual({ value: 5, count: 0 })
  })

  it('only answers for the partition the series was stored from', () => {
    const s = new StoredPoints()
    store(s, 0, 0, [row('a', '100', 5)])
    expect(s.previous('a', { topic: 'm', partition: 1 }, '300')).toBeUndefined()
  })

  it('a gap on one partition leaves the others known', () => {
    const s = new StoredPoints()
    store(s, 0, 0, [row('a', '100', 5)], 0)
    store(s, 0, 0, [row('b', '100', 6)], 1)
    s.begin([rec(7, 0), rec(1, 1)])
    expect(s.previous('a', p0, '300')).toBeUndefined()
    expect(s.previous('b', { topic: 'm', partition: 1 }, '300')).toEqual({ value: 6, count: 0 })
  })

  it('holds at most maxSeries series, forgetting the least recently stored first', () => {
    const s = new StoredPoints(2)
    store(s, 0, 0, [row('a', '100', 1), row('b', '100', 2)])
    store(s, 1, 1, [row('a', '200', 3), row('c', '100', 4)])
    expect(s.previous('b', p0, '300')).toBeUndefined()
    expect(s.previous('a', p0, '300')).toEqual({ value: 3, count: 0 })
    expect(s.previous('c', p0, '300')).toEqual({ value: 4, count: 0 })
  })
})
