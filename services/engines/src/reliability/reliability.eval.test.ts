/**
 * content_reliability and sources_matrix against the development sets: the old
 * labelled traces (tests/fixtures/engines, its holdout-* files included: they are
 * known by now), the v2 development traces (tests/fixtures/engines-v2/dev) and v3
 * (tests/fixtures/engines-v3, blind until the v4 set was written, development since) and v4
 * (tests/fixtures/engines-v4, blind until the v5 set was written, development since) and v5 (tests/fixtures/engines-v5,
 * blind until the v6 set was written, development since), v6 (likewise, until v7), v7 (until v8), v8 and v9 (until v10) and the tables set (tests/fixtures/engines-tables, answers
 * with markdown tables, a development set from the start).
 * Floors sit a little under the measured figures (docs/engines.md gives them and
 * the held-out figures, which no test reads) so a regression fails.
 */
import { SCORER_VERSION } from '@svc/shared/domain/versions'
import { describe, expect, it } from 'vitest'
import { evaluateReliability, figures } from '../test-support/eval-reliability.js'
import { reliabilityRunner } from '../test-support/eval-runner.js'
import { asFixture, fixtureView, loadFixtures, loadV2 } from '../test-support/fixtures.js'
import { loadV3Fixtures } from '../../../../tests/fixtures/engines-v3/fixtures-v3.js'
import { loadV4Fixtures } from '../../../../tests/fixtures/engines-v4/fixtures-v4.js'
import { loadV5Fixtures } from '../../../../tests/fixtures/engines-v5/fixtures-v5.js'
import { loadV6Fixtures } from '../../../../tests/fixtures/engines-v6/fixtures-v6.js'
import { loadV7Fixtures } from '../../../../tests/fixtures/engines-v7/fixtures-v7.js'
import { loadV8Fixtures } from '../../../../tests/fixtures/engines-v8/fixtures-v8.js'
import { loadV9Fixtures } from '../../../../tests/fixtures/engines-v9/fixtures-v9.js'
import { loadTablesFixtures } from '../../../../tests/fixtures/engines-tables/fixtures-tables.js'
import { semanticLayer } from '../semantic/layer.js'
import { modelDir } from '../semantic/model-files.js'

const old = loadFixtures().filter((f) => f.labels.claims !== undefined)
const dev = loadV2('dev')
// The default mode: with the local sentence model (lexical when it cannot load; the floors hold for both).
const model = await semanticLayer(modelDir(process.env.SVC_MODEL_DIR)).embedder()
const oldEval = await evaluateReliability(old, reliabilityRunner(model))
const devEval = await evaluateReliability(dev, reliabilityRunner(model))
const v3 = loadV3Fixtures().map(asFixture('v3'))
const v3Eval = await evaluateReliability(v3, reliabilityRunner(model))
const v4 = loadV4Fixtures().map(asFixture('v4'))
const v4Eval = await evaluateReliability(v4, reliabilityRunner(model))
const v5 = loadV5Fixtures().map(asFixture('v5'))
const v5Eval = await evaluateReliability(v5, reliabilityRunner(model))
const v6Eval = await evaluateReliability(loadV6Fixtures().map(asFixture('v6')), reliabilityRunner(model))
const v7Eval = await evaluateReliability(loadV7Fixtures().map(asFixture('v7')), reliabilityRunner(model))
const v8Eval = await evaluateReliability(loadV8Fixtures().map(asFixture('v8')), reliabilityRunner(model))
const v9Eval = await evaluateReliability(loadV9Fixtures().map(asFixture('v9')), reliabilityRunner(model))
const tablesEval = await evaluateReliability(loadTablesFixtures().map(asFixture('tables')), reliabilityRunner(model))

describe('content_reliability evaluation (development sets)', () => {
  it('has labelled sets to judge', () => {
    expect(old.length).toBeGreaterThanOrEqual(18)
    expect(dev.length).toBeGreaterThanOrEqual(20)
  })

  it('old set: supported precision and recall, sources', () => {
    const x = figures(oldEval.all)
    console.log(`old set: ${oldEval.all.claims} claims; supported P ${x.supportedPrecision.toFixed(3)} R ${x.supportedRecall.toFixed(3)}; sources ${oldEval.sourcesCorrect}/${oldEval.sourcesLabelled}`)
    expect(x.supportedPrecision).toBeGreaterThanOrEqual(0.95)
    expect(x.supportedRecall).toBeGreaterThanOrEqual(0.7)
    // The old labels call a source that backs one claim and contradicts another verified; v2 (and the engine) call it contradicted.
    expect(oldEval.sourcesCorrect / oldEval.sourcesLabelled).toBeGreaterThanOrEqual(0.65)
  })

  // Floors per development set: supported precision and recall, "not supported" F1, Spearman (at least); false
  // contradictions and ECE (at most). Rounds 7 and 8 recalibrated the rules over every development set together, so
  // the most accurate sets are a little under-confident: v2 dev's ECE is 0.128 and v3's 0.068 with the sentence model.
  const floors: Array<[string, typeof devEval, number, Partial<Record<'p' | 'r' | 'f1' | 'spearman', number>> & Partial<Record<'fc' | 'ece', number>>]> = [
    ['v2 dev', devEval, 20, { p: 0.94, r: 0.88, f1: 0.88, fc: 0.05, spearman: 0.45, ece: 0.13 }],
    ['v3 (development since v4)', v3Eval, 60, { p: 0.9, r: 0.82, fc: 0.02, spearman: 0.5, ece: 0.075 }],
    ['v4 (development since v5)', v4Eval, 60, { p: 0.83, r: 0.7, f1: 0.54, fc: 0.04, ece: 0.06 }],
    ['v5 (development since v6)', v5Eval, 60, { p: 0.8, r: 0.72, f1: 0.65, fc: 0.035, spearman: 0.52, ece: 0.07 }],
    ['v6 (development since v7)', v6Eval, 60, { p: 0.78, r: 0.71, f1: 0.67, fc: 0.035, spearman: 0.52, ece: 0.05 }],
    ['v7 (development since v8)', v7Eval, 60, { p: 0.79, r: 0.75, f1: 0.66, fc: 0.05, spearman: 0.72, ece: 0.05 }],
    // Their last blind figures (the combiner of 2.2.0, fit without them): not tuned on yet.
    ['v8 (development since v10)', v8Eval, 60, { p: 0.78, r: 0.76, f1: 0.68, fc: 0.05, spearman: 0.6, ece: 0.05 }],
    ['v9 (development since v10)', v9Eval, 60, { p: 0.82, r: 0.77, f1: 0.73, fc: 0.03, spearman: 0.78, ece: 0.05 }],
    ['tables (answers with markdown tables)', tablesEval, 20, { p: 0.7, r: 0.58, f1: 0.55, fc: 0.07 }],
  ]
  it.each(floors)('%s: supported claims, "not supported" detection, false contradictions, ranking, calibration', (name, e, traces, min) => {
    const x = figures(e.all)
    console.log(`${name}: ${JSON.stringify(x)} spearman ${e.spearman.toFixed(3)} ece ${e.calibration.ece.toFixed(3)}`)
    expect(e.results.size).toBeGreaterThanOrEqual(traces)
    if (min.p !== undefined) expect(x.supportedPrecision).toBeGreaterThanOrEqual(min.p)
    if (min.r !== undefined) expect(x.supportedRecall).toBeGreaterThanOrEqual(min.r)
    if (min.f1 !== undefined) expect(x.notSupportedF1).toBeGreaterThanOrEqual(min.f1)
    if (min.spearman !== undefined) expect(e.spearman).toBeGreaterThanOrEqual(min.spearman)
    if (min.fc !== undefined) expect(x.falseContradictedShare).toBeLessThanOrEqual(min.fc)
    if (min.ece !== undefined) expect(e.calibration.ece).toBeLessThanOrEqual(min.ece)
  })

  it('keeps the structural rules on every trace', () => {
    for (const f of [...old, ...dev]) {
      const { reliability: r, sources } = (oldEval.results.get(f.file) ?? devEval.results.get(f.file))!
      const ids = new Set(fixtureView(f).spans.map((s) => s.span_id))
      expect(r.scorer_version.startsWith(SCORER_VERSION), f.file).toBe(true)
      if (r.claims.length === 0) {
        // Nothing to grade: scored (scorer_version set) but ungradeable.
        expect(r).toMatchObject({ grade: '', score: null })
        continue
      }
      expect(r.score!).toBeGreaterThanOrEqual(0)
      expect(r.score!).toBeLessThanOrEqual(1)
      expect(r.grade).not.toBe('')
      for (const c of r.claims) {
        expect(c.supported).toBe(c.verdict === 'supported')
        if (c.verdict === 'unsupported') expect(c.evidence_span_id).toBeNull()
        else expect(ids.has(c.evidence_span_id!), f.file).toBe(true)
        expect(c.confidence).toBeGreaterThan(0)
        expect(c.confidence).toBeLessThanOrEqual(1)
      }
      const influence = sources.sources.reduce((a, s) => a + s.influence_score, 0)
      expect(influence).toBeLessThanOrEqual(1.001)
    }
  })
})
