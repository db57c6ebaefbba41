import { describe, expect, it } from 'vitest'
import { BacklogSampler, inSample, MIN_SAMPLE_RATE, samplePoint } from './sampling.js'

const traceId = (i: number) => `${(i * 2654435761) >>> 0}`.padStart(12, '0').repeat(3).slice(0, 32)

/**
 * A worker taking batches of 100 from a jobs topic, on a simulated clock, as
 * worker.ts does: the batch's sample is chosen from its oldest job's wait, and each
 * job kept is checked again as it starts (a long batch must not outlast the bound).
 * Jobs arrive at `arrivalsPerS` for `burstS` seconds; an analysed job costs
 * `costMs`, a skipped one `skipMs`. Returns the longest any analysed job waited, how
 * many jobs were analysed and skipped, and the sampler at the end.
 */
function simulate(opts: { arrivalsPerS: number; burstS: number; costMs: number; skipMs?: number; maxLagS: number; configuredRate?: number }) {
  const sampler = new BacklogSampler({ configuredRate: opts.configuredRate ?? 1, maxLagMs: opts.maxLagS * 1000 })
  const total = Math.round(opts.arrivalsPerS * opts.burstS)
  const arrival = (i: number) => (i * 1000) / opts.arrivalsPerS
  let now = 0
  let next = 0
  let worstLagMs = 0
  let analysed = 0
  let skipped = 0
  while (next < total) {
    if (arrival(next) > now) {
      now = arrival(next)
      sampler.idle(now)
    }
    const batch: number[] = []
    while (batch.length < 100 && next < total && arrival(next) <= now) batch.push(next++)
    const { rate } = sampler.observe(now - arrival(batch[0]!), now)
    for (const i of batch) {
      if (inSample(traceId(i), rate) && inSample(traceId(i), sampler.observe(now - arrival(i), now).rate)) {
        analysed++
        worstLagMs = Math.max(worstLagMs, now - arrival(i))
        now += opts.costMs
      } else {
        skipped++
        now += opts.skipMs ?? 0.05
      }
    }
  }
  return { worstLagMs, analysed, skipped, total, sampler }
}

describe('trace sampling', () => {
  it('places a trace by a hash of its id: the same every time, spread evenly, and nested across rates', () => {
    expect(samplePoint('4bf92f3577b34da6a3ce929d0e0e4736')).toBe(samplePoint('4bf92f3577b34da6a3ce929d0e0e4736'))
    const points = Array.from({ length: 20_000 }, (_, i) => samplePoint(traceId(i)))
    for (const rate of [0.1, 0.25, 0.5]) expect(Math.abs(points.filter((p) => p < rate).length / points.length - rate)).toBeLessThan(0.02)
    for (let i = 0; i < 2000; i++) {
      const id = traceId(i)
      // In a sample of 0.1 means in every larger sample: the most sampled engine's traces are analysed by all.
      if (inSample(id, 0.1)) expect(inSample(id, 0.25) && inSample(id, 0.5) && inSample(id, 1)).toBe(true)
    }
    expect(inSample('anything', 1)).toBe(true)
  })

  it('analyses every job of a burst the engine keeps up with', () => {
    const r = simulate({ arrivalsPerS: 50, burstS: 60, costMs: 10, maxLagS: 30 })
    expect(r.skipped).toBe(0)
    expect(r.analysed).toBe(r.total)
    expect(r.sampler.decision()).toEqual({ rate: 1, reason: null })
  })

  it.each([
    [10, 50],
    [100, 500],
  ])('keeps the lag bounded through a burst %i times the engine capacity, skipping what it must, and every job is accounted for', (times, costMs) => {
    // Five minutes of 200 jobs/s against an engine taking costMs per trace, with a 30 s bound.
    const r = simulate({ arrivalsPerS: 200, burstS: 300, costMs, maxLagS: 30 })
    expect(r.analysed + r.skipped).toBe(r.total)
    // Within 1.5 times the bound, where analysing everything would end (times - 1) x 300 s behind.
    expect(r.worstLagMs).toBeLessThan(1.5 * 30_000)
    expect(r.worstLagMs).toBeGreaterThan(30_000 / 2)
    // What the engine can analyse is 1/times of the arrivals: the analysed share is near it, the rest skipped.
    const share = r.analysed / r.total
    expect(share).toBeGreaterThan(0.5 / times)
    expect(share).toBeLessThan(1.5 / times)
    expect(r.sampler.decision().reason).toBe('backlog')
  })

  it('is back at the full rate after the burst once the engine is idle, and halves no lower than the floor', () => {
    const s = new BacklogSampler({ configuredRate: 1, maxLagMs: 10_000 })
    for (let t = 0; t < 200_000; t += 1000) s.observe(1_000_000, t)
    expect(s.adaptiveRate).toBe(MIN_SAMPLE_RATE)
    expect(s.idle(260_000)).toEqual({ rate: 1, reason: null })
  })

  it('applies the configured rate, and reports backlog only below it', () => {
    const s = new BacklogSampler({ configuredRate: 0.5, maxLagMs: 10_000 })
    expect(s.observe(0, 0)).toEqual({ rate: 0.5, reason: 'configured' })
    // 10% over the bound: halved (0.5 is still the configured rate), then halved again a step later.
    expect(s.observe(11_000, 1000)).toEqual({ rate: 0.5, reason: 'configured' })
    expect(s.observe(11_000, 1500)).toEqual({ rate: 0.5, reason: 'configured' }) // within the step: unchanged
    expect(s.observe(11_000, 3000)).toEqual({ rate: 0.25, reason: 'backlog' })
    // More than a fifth over: cut to a tenth.
    expect(s.observe(13_000, 4000)).toEqual({ rate: 0.025, reason: 'backlog' })
    // 0 turns the adaptive rate off: every job is analysed however late.
    const off = new BacklogSampler({ configuredRate: 1, maxLagMs: 0 })
    expect(off.observe(1e9, 1e9)).toEqual({ rate: 1, reason: null })
  })
})
