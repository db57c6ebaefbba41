import { describe, expect, it } from 'vitest'
import { fixtureView, loadFixtures } from '../test-support/fixtures.js'
import { evaluateDecomposition } from '../test-support/eval-tasks.js'
import { decomposition } from './index.js'

const fixtures = loadFixtures()
// holdout-* traces were labelled blind to the algorithm; they get floors of their own.
const heldOut = (f: { file: string }) => f.file.startsWith('holdout-')

describe('decomposition on the labelled fixtures', () => {
  it('finds the labelled sub-tasks, their resolution and the coverage', () => {
    const r = evaluateDecomposition(fixtures.filter((f) => !heldOut(f)))
    console.log('decomposition eval', JSON.stringify(r, null, 1))
    expect(r.fixtures).toBeGreaterThanOrEqual(15)
    expect(r.sub_task_recall).toBeGreaterThanOrEqual(0.95)
    expect(r.resolved_accuracy).toBeGreaterThanOrEqual(0.95)
    expect(r.coverage_mae).toBeLessThanOrEqual(0.05)
  })
  it('stays close on the held-out traces', () => {
    const r = evaluateDecomposition(fixtures.filter(heldOut))
    console.log('decomposition held out', JSON.stringify(r, null, 1))
    expect(r.fixtures).toBeGreaterThanOrEqual(4)
    expect(r.sub_task_recall).toBeGreaterThanOrEqual(0.8)
    expect(r.coverage_mae).toBeLessThanOrEqual(0.1)
  })
  it('coverage is the resolved share and every span id exists', () => {
    for (const f of fixtures) {
      const v = fixtureView(f)
      const d = decomposition(v)
      const ids = new Set(v.spans.map((s) => s.span_id))
      const share = d.sub_tasks.length ? d.sub_tasks.filter((t) => t.resolved).length / d.sub_tasks.length : 1
      expect(d.coverage, f.file).toBeCloseTo(share, 4)
      for (const t of d.sub_tasks) for (const id of t.span_ids) expect(ids.has(id), f.file).toBe(true)
    }
  })
})
