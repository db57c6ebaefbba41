import { describe, expect, it } from 'vitest'
import { fixtureView, loadFixtures } from '../test-support/fixtures.js'
import { evaluateDecisions } from '../test-support/eval-tasks.js'
import { decisionTrace } from './index.js'

const fixtures = loadFixtures()

describe('decision_trace on the labelled fixtures', () => {
  it('finds the labelled decisions', () => {
    const r = evaluateDecisions(fixtures)
    console.log('decision_trace eval', JSON.stringify(r, null, 1))
    expect(r.fixtures).toBeGreaterThanOrEqual(12)
    expect(r.decision_recall).toBeGreaterThanOrEqual(0.95)
  })
  it('edges reference existing nodes and follow containment or time order', () => {
    for (const f of fixtures) {
      const v = fixtureView(f)
      const byId = new Map(v.spans.map((s) => [s.span_id, s]))
      const d = decisionTrace(v)
      const nodes = new Map(d.nodes.map((n) => [n.id, n]))
      expect(nodes.size, f.file).toBe(d.nodes.length)
      for (const n of d.nodes) {
        expect(byId.has(n.span_id), f.file).toBe(true)
        expect(n.confidence).toBeGreaterThanOrEqual(0)
        expect(n.confidence).toBeLessThanOrEqual(1)
      }
      for (const e of d.edges) {
        const a = byId.get(nodes.get(e.from)!.span_id)!
        const b = byId.get(nodes.get(e.to)!.span_id)!
        let ancestor = false
        for (let p = b.parent_span_id; p; p = byId.get(p)?.parent_span_id ?? null) if (p === a.span_id) ancestor = true
        expect(a === b || ancestor || a.end_ms <= b.start_ms + 1, `${f.file} ${e.from}->${e.to}`).toBe(true)
      }
    }
  })
})
