import { describe, expect, it } from 'vitest'
import { fuzzQuery, mutateJson, rng, transport } from './fuzz.js'

const base = { resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: 'a'.repeat(32), attributes: [{ key: 'k', value: { intValue: 1 } }] }] }] }] }
const run = (seed: number) => {
  const r = rng(seed)
  return Array.from({ length: 200 }, () => {
    const m = mutateJson(base, r)
    const t = transport(m.text, r)
    return [m.note, t.note, typeof t.body === 'string' ? t.body : Buffer.from(t.body).toString('base64'), fuzzQuery(['limit', 'period'], r)].join('\n')
  })
}

describe('the seeded fuzzer', () => {
  it('is reproducible: a seed names one sequence of requests', () => {
    expect(run(42)).toEqual(run(42))
    expect(run(42)).not.toEqual(run(43))
  })

  it('writes what JSON.stringify cannot: deep nesting and out-of-range number literals', () => {
    const texts = run(7).map((c) => c.split('\n')[2]!)
    expect(texts.some((t) => t.includes('['.repeat(1000)) || t.includes('{"a":'.repeat(1000)))).toBe(true)
    expect(texts.some((t) => /[:[,](?:9223372036854775808|1e400|-1e400)[,}\]]/.test(t))).toBe(true)
  })

  it('leaves the base value untouched', () => {
    const before = JSON.stringify(base)
    run(1)
    expect(JSON.stringify(base)).toBe(before)
  })
})
