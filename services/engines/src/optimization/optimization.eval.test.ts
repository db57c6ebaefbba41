import { describe, expect, it } from 'vitest'
import { loadPriceTable } from '@svc/shared/domain/pricing'
import { fixtureView, loadFixtures } from '../test-support/fixtures.js'
import { evaluateFindings } from '../test-support/eval-tasks.js'
import { priceSpan } from './cost.js'
import { correlationFindings, optimization, savingsFindings } from './index.js'

const fixtures = loadFixtures()
const prices = loadPriceTable()

describe('optimization on the labelled fixtures', () => {
  it('finds the labelled findings and nothing on clean traces', () => {
    const r = evaluateFindings(fixtures, prices)
    console.log('optimization eval', JSON.stringify(r, null, 1))
    expect(r.fixtures).toBeGreaterThanOrEqual(16)
    expect(r.precision).toBeGreaterThanOrEqual(0.95)
    expect(r.recall).toBeGreaterThanOrEqual(0.95)
  })
  it('savings are non-negative, model_downgrade equals the table price difference, the total is the sum', () => {
    for (const f of fixtures) {
      const v = fixtureView(f)
      const o = optimization(v.trace_id, [...correlationFindings(v, prices), ...savingsFindings(v, prices)])
      for (const x of o.findings) {
        expect(x.estimated_savings_usd, f.file).toBeGreaterThanOrEqual(0)
        if (x.kind !== 'model_downgrade') continue
        const s = v.spans.find((y) => y.span_id === x.span_id)!
        expect(x.estimated_savings_usd, f.file).toBeCloseTo(priceSpan(prices, s)! - priceSpan(prices, s, x.suggested_model)!, 7)
        expect(x.estimated_savings_usd).toBeLessThanOrEqual(s.cost_usd + 1e-9)
      }
      expect(o.total_estimated_savings_usd).toBeCloseTo(o.findings.reduce((t, x) => t + x.estimated_savings_usd, 0), 6)
    }
  })
})
