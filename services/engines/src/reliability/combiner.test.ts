import { describe, expect, it } from 'vitest'
import { combined, fitCombiner, fits, SIGNALS, type CombinerWeights, type Example } from './combiner.js'
import { probability } from '../logistic.js'
import { COMBINER_WEIGHTS } from './combiner-weights.js'
import { JUDGEMENT_VERSION } from './judgement.js'
import type { Judgement } from './support.js'
import type { Statement } from './statements.js'

const at = (name: string) => SIGNALS.indexOf(name)
/** A signal row with the given signals set, every other 0. */
function row(set: Record<string, number>): number[] {
  const x = new Array<number>(SIGNALS.length).fill(0)
  for (const [k, v] of Object.entries(set)) x[at(k)] = v
  return x
}

describe('the combiner fit', () => {
  // Supported exactly when the cosine is high, whatever the rule said: the fit must learn the cosine, not the rule.
  const data: Example[] = []
  for (let i = 0; i < 200; i++) {
    const cosine = (i % 20) / 20
    data.push({ x: row({ cosine, 'rule:text': i % 2, confidence: 0.8 }), supported: cosine >= 0.5 })
  }
  const w = fitCombiner(data, { judgement: 'test', threshold: 0.6, fitted_on: 'synthetic' })

  it('learns which signal tells supported claims apart', () => {
    expect(w.claims).toBe(200)
    expect(fits(w)).toBe(true)
    expect(probability(w, row({ cosine: 0.9, confidence: 0.8 }))).toBeGreaterThan(0.9)
    expect(probability(w, row({ cosine: 0.1, 'rule:text': 1, confidence: 0.8 }))).toBeLessThan(0.1)
    expect(Math.abs(w.weights[at('cosine')]!)).toBeGreaterThan(10 * Math.abs(w.weights[at('rule:text')]!))
  })

  it('is deterministic: the same examples give the same fit', () => {
    expect(fitCombiner(data, { judgement: 'test', threshold: 0.6, fitted_on: 'synthetic' })).toEqual(w)
  })

  it('refuses rows of another length, and a fit of other signals does not fit', () => {
    expect(() => fitCombiner([{ x: [1, 2], supported: true }], { judgement: 'test', threshold: 0.6, fitted_on: '' })).toThrow()
    expect(fits({ ...w, signals: SIGNALS.slice(1) })).toBe(false)
    expect(fits({ ...w, signals: [...SIGNALS].reverse() })).toBe(false)
  })
})

describe('the combiner verdict', () => {
  const w = { threshold: 0.6 } as CombinerWeights
  const evidence = { span_id: 's1', text: 'Total: $120', source: 'tool:quote', kind: 'tool_result' as const }
  const nearest = { evidence: { ...evidence, span_id: 's2' } } as Statement
  const rule = (verdict: Judgement['verdict'], withEvidence = verdict !== 'unsupported'): Judgement => ({ verdict, confidence: 0.8, evidence: withEvidence ? evidence : null, rule: 'r' })

  it('backs a claim at the threshold, with the rule’s evidence or else the nearest statement’s', () => {
    expect(combined(rule('supported'), 0.6, nearest, w)).toMatchObject({ verdict: 'supported', confidence: 0.6, evidence: { span_id: 's1' }, combined: 0.6 })
    expect(combined(rule('unsupported'), 0.9, nearest, w)).toMatchObject({ verdict: 'supported', confidence: 0.9, evidence: { span_id: 's2' }, rule: 'r' })
  })

  it('below the threshold keeps a contradiction and its evidence, and leaves anything else unsupported without evidence', () => {
    expect(combined(rule('contradicted'), 0.2, nearest, w)).toMatchObject({ verdict: 'contradicted', confidence: 0.8, evidence: { span_id: 's1' } })
    expect(combined(rule('supported'), 0.3, nearest, w)).toMatchObject({ verdict: 'unsupported', confidence: 0.7, evidence: null })
  })
})

describe('the shipped fit', () => {
  // A change of the rules changes the signals the fit was made on: `pnpm eval:combiner --write` after bumping the version.
  it('was fit on the rules of this judgement version, over these signals', () => {
    expect(COMBINER_WEIGHTS.judgement).toBe(JUDGEMENT_VERSION)
    expect(fits(COMBINER_WEIGHTS)).toBe(true)
    expect(COMBINER_WEIGHTS.claims).toBeGreaterThan(1000)
  })
})
