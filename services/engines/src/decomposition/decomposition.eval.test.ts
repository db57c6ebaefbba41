import { beforeAll, describe, expect, it } from 'vitest'
import { modelDir } from '../semantic/model-files.js'
import { SentenceModel } from '../semantic/sentence-model.js'
import { fixtureView, loadFixtures, loadV2 } from '../test-support/fixtures.js'
import { evaluateDecomposition } from '../test-support/eval-tasks.js'
import { decomposition, semanticDecomposition } from './index.js'

const fixtures = loadFixtures()
// holdout-* traces were labelled blind to the algorithm; they get floors of their own.
const heldOut = (f: { file: string }) => f.file.startsWith('holdout-')
let model: SentenceModel
beforeAll(async () => {
  model = await SentenceModel.load(modelDir(process.env.SVC_MODEL_DIR))
}, 60_000)

describe('decomposition with the sentence model (the default mode), development sets', () => {
  it('keeps the old sets\' figures and meets floors on v2 dev', async () => {
    const run = (v: Parameters<typeof decomposition>[0]) => semanticDecomposition(v, model)
    const dev = await evaluateDecomposition(fixtures.filter((f) => !heldOut(f)), run)
    const old = await evaluateDecomposition(fixtures.filter(heldOut), run)
    const v2 = await evaluateDecomposition(loadV2('dev'), run)
    for (const [name, r] of [['old dev', dev], ['old held-out', old], ['v2 dev', v2]] as const)
      process.stdout.write(`decomposition ${name} (sentence model): sub-task recall ${r.sub_task_recall.toFixed(3)} resolved accuracy ${r.resolved_accuracy.toFixed(3)} coverage error ${r.coverage_mae.toFixed(4)} (${r.fixtures} traces)\n`)
    expect(dev.sub_task_recall).toBeGreaterThanOrEqual(0.95)
    expect(dev.resolved_accuracy).toBeGreaterThanOrEqual(0.95)
    expect(dev.coverage_mae).toBeLessThanOrEqual(0.05)
    expect(old.sub_task_recall).toBeGreaterThanOrEqual(0.8)
    expect(old.coverage_mae).toBeLessThanOrEqual(0.1)
    expect(v2.fixtures).toBeGreaterThanOrEqual(10)
    expect(v2.coverage_mae).toBeLessThanOrEqual(0.2)
  }, 120_000)
})

describe('decomposition on the labelled fixtures, lexical fallback', () => {
  it('finds the labelled sub-tasks, their resolution and the coverage', async () => {
    const r = await evaluateDecomposition(fixtures.filter((f) => !heldOut(f)))
    console.log('decomposition eval', JSON.stringify(r, null, 1))
    expect(r.fixtures).toBeGreaterThanOrEqual(15)
    expect(r.sub_task_recall).toBeGreaterThanOrEqual(0.95)
    expect(r.resolved_accuracy).toBeGreaterThanOrEqual(0.95)
    expect(r.coverage_mae).toBeLessThanOrEqual(0.05)
  })
  it('stays close on the held-out traces', async () => {
    const r = await evaluateDecomposition(fixtures.filter(heldOut))
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
