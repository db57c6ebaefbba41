import { describe, expect, it } from 'vitest'
import { limitConcurrency } from './concurrency.js'

describe('limitConcurrency', () => {
  it('runs at most `limit` at once, the rest in call order, and passes results and failures through', async () => {
    const run = limitConcurrency(2)
    let inFlight = 0
    let peak = 0
    const started: number[] = []
    const releases: Array<() => void> = []
    const task = (i: number) => () => {
      started.push(i)
      inFlight++
      peak = Math.max(peak, inFlight)
      return new Promise<number>((resolve) => releases.push(() => (inFlight--, resolve(i))))
    }
    const results = [0, 1, 2, 3].map((i) => run(task(i)))
    const failed = run(() => Promise.reject(new Error('boom'))).catch((e: Error) => e.message)
    await Promise.resolve()
    expect(started).toEqual([0, 1])
    while (releases.length) {
      releases.shift()!()
      await new Promise((r) => setImmediate(r))
    }
    expect(await Promise.all(results)).toEqual([0, 1, 2, 3])
    expect(await failed).toBe('boom')
    expect(started).toEqual([0, 1, 2, 3])
    expect(peak).toBe(2)
    expect(await run(async () => 'after')).toBe('after')
  })
})
