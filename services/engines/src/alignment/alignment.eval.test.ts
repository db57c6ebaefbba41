/**
 * The deterministic alignment engine against the labelled fixtures
 * (tests/fixtures/alignment): precision and recall of confident flags on outputs
 * labelled `violates`. The development policies were written beside the engine;
 * holdout-* were written and labelled by someone who had not seen it, and have
 * floors of their own, far lower (docs/engines.md gives both sets' figures).
 */
import { describe, expect, it } from 'vitest'
import { evaluateAlignment, loadAlignmentFixtures } from './eval-fixtures.js'

const all = loadAlignmentFixtures()
const heldOut = (f: { file: string }) => f.file.startsWith('holdout-')

describe('alignment evaluation', () => {
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
