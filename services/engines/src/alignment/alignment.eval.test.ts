/**
 * The deterministic alignment engine against the labelled development fixtures:
 * precision and recall of confident flags on outputs labelled `violates`, in the
 * default mode (the local sentence model) and in the lexical fallback. Development
 * sets only: tests/fixtures/alignment (its holdout-* policies are known by now),
 * alignment-v2 (dev, and heldout since round 2 of issue 14), alignment-r2, alignment-v3
 * (blind until the v4 set was written), alignment-v4 (blind until v5) and alignment-v6 (blind until v7, tuned
 * on in round 8), alignment-v7 (blind until v8), alignment-v8 and alignment-v9 (blind until v10). alignment-v5 (blind until v6) has no floor; the v10 held-out set is never
 * asserted on (pnpm eval:engines --sets alignment-heldout prints its aggregate; docs/engines.md
 * gives every set's figures).
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { modelDir } from '../semantic/model-files.js'
import { SentenceModel } from '../semantic/sentence-model.js'
import { evaluateAlignment, FIXTURE_DIR, loadAlignmentFixtures } from './eval-fixtures.js'

const all = loadAlignmentFixtures()
const heldOut = (f: { file: string }) => f.file.startsWith('holdout-')
let model: SentenceModel
beforeAll(async () => {
  model = await SentenceModel.load(modelDir(process.env.SVC_MODEL_DIR))
}, 60_000)

describe('alignment evaluation with the sentence model', () => {
  it('meets its floors on the old development and held-out policies, v2, round 2, v3, v4, v6, v7, v8 and v9', async () => {
    for (const [name, set, p, r] of [
      ['old development', all.filter((f) => !heldOut(f)), 0.85, 0.95],
      ['old held-out', all.filter(heldOut), 0.85, 0.85],
      ['v2 development', loadAlignmentFixtures(`${FIXTURE_DIR}-v2/dev`), 0.85, 0.85],
      ['v2 held-out (development since round 2)', loadAlignmentFixtures(`${FIXTURE_DIR}-v2/heldout`), 0.9, 0.9],
      ['round-2 development', loadAlignmentFixtures(`${FIXTURE_DIR}-r2`), 0.95, 0.9],
      ['v3 (development since v4)', loadAlignmentFixtures(`${FIXTURE_DIR}-v3/heldout`), 0.8, 0.6],
      // Its blind figures (0.727 / 0.649) are where it stands: not tuned on yet.
      ['v4 (development since v5)', loadAlignmentFixtures(`${FIXTURE_DIR}-v4/heldout`), 0.7, 0.6],
      ['v6 (development since v7)', loadAlignmentFixtures(`${FIXTURE_DIR}-v6/heldout`), 0.7, 0.55],
      // Its last blind figures (0.700 / 0.583): not tuned on yet.
      ['v7 (development since v8)', loadAlignmentFixtures(`${FIXTURE_DIR}-v7/heldout`), 0.65, 0.55],
      // Their blind figures (0.581 / 0.474 and 0.676 / 0.561): not tuned on yet.
      ['v8 (development since v10)', loadAlignmentFixtures(`${FIXTURE_DIR}-v8/heldout`), 0.55, 0.45],
      ['v9 (development since v10)', loadAlignmentFixtures(`${FIXTURE_DIR}-v9/heldout`), 0.65, 0.53],
    ] as const) {
      const e = await evaluateAlignment([...set], model)
      process.stdout.write(`alignment ${name} (sentence model): precision ${e.precision.toFixed(3)} recall ${e.recall.toFixed(3)} (TP ${e.tp} FP ${e.fp} FN ${e.fn} TN ${e.tn})\n`)
      expect(e.precision, name).toBeGreaterThanOrEqual(p)
      expect(e.recall, name).toBeGreaterThanOrEqual(r)
    }
  }, 240_000)
})

describe('alignment evaluation, lexical fallback', () => {
  it('meets its precision and recall floors on the development outputs', async () => {
    const fixtures = all.filter((f) => !heldOut(f))
    expect(fixtures.length).toBeGreaterThanOrEqual(3)
    const r = await evaluateAlignment(fixtures)
    expect(r.outputs).toBeGreaterThanOrEqual(30)
    process.stdout.write(`alignment: precision ${r.precision.toFixed(3)} recall ${r.recall.toFixed(3)} (TP ${r.tp} FP ${r.fp} FN ${r.fn} TN ${r.tn}; ${r.outputs} outputs)\n`)
    for (const m of r.misses) process.stdout.write(`  - ${m}\n`)
    expect(r.precision).toBeGreaterThanOrEqual(0.8)
    expect(r.recall).toBeGreaterThanOrEqual(0.9)
  })

  it('on the held-out policies, flags (counting unclear ones) keep the recall and precision measured there', async () => {
    const r = await evaluateAlignment(all.filter(heldOut))
    expect(r.outputs).toBeGreaterThanOrEqual(30)
    process.stdout.write(`alignment held out: confident precision ${r.precision.toFixed(3)} recall ${r.recall.toFixed(3)}; with unclear precision ${r.precisionWithUnclear.toFixed(3)} recall ${r.recallWithUnclear.toFixed(3)}\n`)
    expect(r.recallWithUnclear).toBeGreaterThanOrEqual(0.55)
    expect(r.precisionWithUnclear).toBeGreaterThanOrEqual(0.55)
  })
})
