import { describe, expect, it } from 'vitest'
import { backgroundLane } from './background-lane.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('backgroundLane', () => {
  it('holds a batch while the hot path is busy and runs it once it is idle', async () => {
    let busy = true
    const lane = backgroundLane(() => busy, { maxWaitMs: 60_000, pollMs: 2 })
    let ran = false
    const done = lane.run(async () => {
      ran = true
      return 'ok'
    })
    await sleep(30)
    expect(ran).toBe(false)
    busy = false
    expect(await done).toBe('ok')
  })

  it('runs one batch at a time, in call order', async () => {
    const lane = backgroundLane(() => false)
    const events: string[] = []
    const job = (name: string) => async () => {
      events.push(`${name} start`)
      await sleep(5)
      events.push(`${name} end`)
    }
    await Promise.all([lane.run(job('a')), lane.run(job('b'))])
    expect(events).toEqual(['a start', 'a end', 'b start', 'b end'])
  })

  it('runs a batch anyway once it has waited its longest, so the background still progresses under sustained load', async () => {
    const lane = backgroundLane(() => true, { maxWaitMs: 20, pollMs: 2 })
    expect(await lane.run(async () => 1)).toBe(1)
  })

  it('does not hold a closing consumer', async () => {
    const lane = backgroundLane(() => true, { maxWaitMs: 60_000, pollMs: 2 })
    expect(await lane.run(async () => 2, { closing: true })).toBe(2)
  })

  it('a failed batch does not stop the ones behind it', async () => {
    const lane = backgroundLane(() => false)
    const failed = lane.run(async () => {
      throw new Error('boom')
    })
    const next = lane.run(async () => 'next')
    await expect(failed).rejects.toThrow('boom')
    expect(await next).toBe('next')
  })
})
