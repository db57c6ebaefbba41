import { describe, expect, it } from 'vitest'
import { computeDrift, mixDistance, type WindowFigures } from './drift.js'

const w = (o: Partial<WindowFigures> = {}): WindowFigures => ({ traces: 100, costUsd: 10, tokens: 100_000, calls: 1000, errors: 10, p95Ms: 800, reliability: 80, modelCalls: { 'gpt-4o': 500, 'gpt-4o-mini': 500 }, ...o })

describe('drift', () => {
  it('is ok and zero for identical windows', () => {
    const d = computeDrift(w(), w())
    expect(d).toMatchObject({ drift_score: 0, status: 'ok' })
    expect(d.dimensions.map((x) => x.name)).toEqual(['cost_per_trace', 'tokens_per_trace', 'p95_latency_ms', 'error_rate', 'reliability_score', 'model_mix'])
  })

  it('reports deltas with directions and scores the mean capped change', () => {
    const d = computeDrift(w({ costUsd: 20, p95Ms: 600, reliability: 60, modelCalls: { 'gpt-4o': 1000 } }), w())
    const by = Object.fromEntries(d.dimensions.map((x) => [x.name, x]))
    expect(by.cost_per_trace).toMatchObject({ recent: 0.2, baseline: 0.1, delta: 1, direction: 'worse' })
    expect(by.p95_latency_ms).toMatchObject({ delta: -0.25, direction: 'better' })
    expect(by.reliability_score).toMatchObject({ delta: -0.25, direction: 'worse' })
    expect(by.model_mix).toMatchObject({ delta: 0.5, direction: 'changed' })
    expect(d.drift_score).toBeCloseTo((1 + 0 + 0.25 + 0 + 0.25 + 0.5) / 6, 6)
    expect(d.status).toBe('warn')
    expect(computeDrift(w({ costUsd: 40, p95Ms: 1600, modelCalls: { 'o3': 10 } }), w())).toMatchObject({ drift_score: 0.5, status: 'alert' })
  })

  it('warns between the thresholds and leaves out dimensions without data', () => {
    expect(computeDrift(w({ costUsd: 15 }), w()).status).toBe('ok') // 0.5 / 6
    expect(computeDrift(w({ costUsd: 20 }), w()).status).toBe('warn') // 1 / 6
    const sparse = computeDrift(w({ reliability: null, p95Ms: null }), w({ reliability: null }))
    expect(sparse.dimensions.map((x) => x.name)).toEqual(['cost_per_trace', 'tokens_per_trace', 'error_rate', 'model_mix'])
    expect(computeDrift(w({ traces: 0, calls: 0, p95Ms: null, reliability: null, modelCalls: {} }), w())).toEqual({ drift_score: 0, status: 'ok', dimensions: [] })
  })

  it('measures the model mix as total variation distance', () => {
    expect(mixDistance({ a: 1 }, { b: 1 })).toBe(1)
    expect(mixDistance({ a: 1, b: 1 }, { a: 2, b: 2 })).toBe(0)
    expect(mixDistance({}, { a: 1 })).toBeNull()
  })
})
