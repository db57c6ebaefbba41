import { describe, expect, it } from 'vitest'
import { MAX_TRACKED_SPAN_IDS, spanCountOf, TraceTracker, type ObservedTrace } from './trace-tracker.js'

/** A trace as a batch with one of its spans stores it. */
const span = (trace: string, id: string, receivedMs: number, startNs = 100n, endNs = 200n): ObservedTrace => ({
  org_id: 'o', workspace_id: 'w', project_id: 'p', trace_id: trace, spanIds: [id], startNs, endNs, receivedMs,
})

describe('TraceTracker', () => {
  it('completes a trace only after the quiet period, with min start and max end', () => {
    const t = new TraceTracker(5000)
    t.observe(span('a', '1', 1000, 50n, 300n), 1000)
    t.observe(span('a', '2', 3000, 20n, 250n), 3000)
    expect(t.takeCompleted(7000)).toEqual([])
    const [done] = t.takeCompleted(8000)
    expect(done).toMatchObject({ trace_id: 'a', startNs: 20n, endNs: 300n, lastReceivedMs: 3000 })
    expect(spanCountOf(done!)).toBe(2)
    expect(t.size).toBe(0)
  })

  it('keeps interleaved traces apart, and re-opens a trace completed between two of its spans', () => {
    const t = new TraceTracker(5000)
    t.observe(span('a', '1', 0, 10n, 20n), 0)
    t.observe(span('b', '1', 0, 30n, 40n), 0)
    t.observe(span('a', '2', 0, 5n, 20n), 0)
    t.observe({ ...span('a', '3', 0), workspace_id: 'other' }, 0)
    const done = t.takeCompleted(10_000)
    expect(done.map((x) => [x.workspace_id, x.trace_id, spanCountOf(x), x.startNs])).toEqual([['w', 'a', 2, 5n], ['w', 'b', 1, 30n], ['other', 'a', 1, 100n]])
    // The same trace again after it completed: a new open trace, not the completed one.
    t.observe(span('a', '4', 20_000), 20_000)
    expect(t.size).toBe(1)
    expect(done[0]!.spanIds.has('4')).toBe(false)
    expect(spanCountOf(t.takeCompleted(30_000)[0]!)).toBe(1)
  })

  it('counts a redelivered span once', () => {
    const t = new TraceTracker(10)
    t.observe(span('a', '1', 0), 0)
    t.observe(span('a', '1', 0), 0)
    expect(spanCountOf(t.takeCompleted(10_000)[0]!)).toBe(1)
  })

  it('keeps at most MAX_TRACKED_SPAN_IDS ids of a trace that never goes quiet, and counts the spans past them', () => {
    const t = new TraceTracker(5000)
    const ids = (from: number, n: number) => Array.from({ length: n }, (_, i) => String(from + i))
    t.observe({ ...span('a', '0', 0), spanIds: ids(0, MAX_TRACKED_SPAN_IDS) }, 0)
    // A redelivered kept id is still told apart; ids past the bound are counted.
    t.observe({ ...span('a', '0', 1), spanIds: ['5', ...ids(MAX_TRACKED_SPAN_IDS, 1000)] }, 1)
    const [done] = t.takeCompleted(10_000)
    expect(done!.spanIds.size).toBe(MAX_TRACKED_SPAN_IDS)
    expect(spanCountOf(done!)).toBe(MAX_TRACKED_SPAN_IDS + 1000)
  })

  it('completes a trace whose spans never pause once it has been open maxOpenMs, and re-opens it with the next span', () => {
    const t = new TraceTracker(5000, 500_000, 60_000)
    for (let ms = 0; ms < 60_000; ms += 1000) {
      t.observe(span('a', String(ms), ms), ms)
      expect(t.takeCompleted(ms)).toEqual([])
    }
    t.observe(span('a', 'last', 60_000), 60_000)
    const [done] = t.takeCompleted(60_000)
    expect(spanCountOf(done!)).toBe(61)
    expect(t.size).toBe(0)
    t.observe(span('a', 'after', 61_000), 61_000)
    expect(t.takeCompleted(61_000)).toEqual([])
    expect(spanCountOf(t.takeCompleted(70_000)[0]!)).toBe(1)
  })

  it("takes a batch's spans of a trace at once, each counted once across batches", () => {
    const t = new TraceTracker(5000)
    t.observe({ ...span('a', '1', 0, 50n, 60n), spanIds: ['1', '2', '3'] }, 0)
    t.observe({ ...span('a', '3', 10, 40n, 300n), spanIds: ['3', '4'] }, 10)
    const [done] = t.takeCompleted(10_000)
    expect([spanCountOf(done!), done!.startNs, done!.endNs, done!.lastReceivedMs]).toEqual([4, 40n, 300n, 10])
  })

  it('waits a short local grace for replayed (old) spans before completing', () => {
    const t = new TraceTracker(5000)
    t.observe(span('a', '1', 0), 100_000)
    expect(t.takeCompleted(100_500)).toEqual([])
    expect(t.takeCompleted(101_000)).toHaveLength(1)
  })

  it('completes on the local clock when the ingest clock runs ahead', () => {
    const t = new TraceTracker(5000)
    t.observe(span('a', '1', 1_000_000), 0)
    expect(t.takeCompleted(4999)).toEqual([])
    expect(t.takeCompleted(5000)).toHaveLength(1)
  })

  it('bounds memory by completing the quietest traces early', () => {
    const t = new TraceTracker(60_000, 2)
    for (const [i, id] of ['a', 'b', 'c'].entries()) t.observe(span(id, '1', i), i)
    expect(t.takeCompleted(10).map((x) => x.trace_id)).toEqual(['a'])
  })

  it('restores traces whose jobs could not be emitted, merging newer spans', () => {
    const t = new TraceTracker(10)
    t.observe(span('a', '1', 0), 0)
    const taken = t.takeCompleted(100)
    t.observe(span('a', '2', 150), 150)
    t.restore(taken)
    expect(spanCountOf(t.takeCompleted(10_000)[0]!)).toBe(2)
  })
})
