import { describe, expect, it } from 'vitest'
import { BatchSize, batchSizes } from './batch-size.js'

describe('BatchSize', () => {
  it('starts at the caught-up size and doubles while a full batch is left waiting, up to the largest', () => {
    const s = new BatchSize(1000, 20_000)
    expect(s.limit).toBe(1000)
    const seen: number[] = []
    for (let backlog = 100_000; backlog > 0; ) {
      const taken = Math.min(s.limit, backlog)
      backlog -= taken
      seen.push(taken)
      s.observe(taken, backlog)
    }
    expect(seen.slice(0, 6)).toEqual([1000, 2000, 4000, 8000, 16_000, 20_000])
    expect(Math.max(...seen)).toBe(20_000)
  })

  it('keeps its size while less than a batch waits, and shrinks back once caught up with small batches', () => {
    const s = new BatchSize(100, 1600)
    s.observe(100, 5000)
    s.observe(200, 5000)
    s.observe(400, 5000)
    expect(s.limit).toBe(800)
    s.observe(800, 300) // less than a batch behind: no growth, no shrink
    expect(s.limit).toBe(800)
    s.observe(500, 0) // emptied the partition with a batch at least half full: stays
    expect(s.limit).toBe(800)
    s.observe(10, 0)
    s.observe(10, 0)
    s.observe(10, 0)
    expect(s.limit).toBe(100)
    s.observe(10, 0)
    expect(s.limit).toBe(100)
  })

  it('leaves the size alone when the bus cannot tell the backlog', () => {
    const s = new BatchSize(10, 100)
    s.observe(10, undefined)
    expect(s.limit).toBe(10)
  })

  it('refuses bounds that cannot hold', () => {
    expect(() => new BatchSize(0, 10)).toThrow()
    expect(() => new BatchSize(20, 10)).toThrow()
  })

  it('keeps one size per topic partition', () => {
    const sizes = batchSizes(() => ({ min: 10, max: 1000 }))
    sizes.observe('a', 0, 10, 500)
    expect(sizes.limit('a', 0)).toBe(20)
    expect(sizes.limit('a', 1)).toBe(10)
    expect(sizes.limit('b', 0)).toBe(10)
  })
})
