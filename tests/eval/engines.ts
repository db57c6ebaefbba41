/**
 * pnpm eval:engines — the deterministic engines scored against the labelled traces
 * of tests/fixtures/engines (the same figures the *.eval.test.ts files assert
 * floors on), printed as one report with every miss. Two sets are reported apart:
 * the development traces (written alongside the algorithms) and the held-out
 * traces (holdout-*.json, written and labelled by someone who had not seen the
 * algorithms), whose figures are the better guess of behaviour on new traffic.
 */
import { loadFixtures, type Fixture } from '@svc/engines/test-support/fixtures'
import { evaluateReliability } from '@svc/engines/test-support/eval-reliability'
import { evaluateDecisions, evaluateDecomposition, evaluateFindings } from '@svc/engines/test-support/eval-tasks'
import { fmt, table } from '../bench/stats.js'

function report(title: string, fixtures: Fixture[]): string[] {
  const r = evaluateReliability(fixtures)
  const d = evaluateDecomposition(fixtures)
  const t = evaluateDecisions(fixtures)
  const f = evaluateFindings(fixtures)
  process.stdout.write(`\n${title}: ${fixtures.length} labelled traces\n`)
  table([
    ['content_reliability: supported claims', `precision ${fmt(r.precision, 3)}  recall ${fmt(r.recall, 3)}  accuracy ${fmt(r.accuracy, 3)}  (TP ${r.tp} FP ${r.fp} FN ${r.fn} TN ${r.tn}; ${r.unmatched} labelled claims not extracted)`],
    ['sources: verification levels', `${r.sourcesCorrect}/${r.sourcesLabelled} correct`],
    ['decomposition', `sub-task recall ${fmt(d.sub_task_recall, 3)} (${d.found}/${d.labelled_sub_tasks})  resolved accuracy ${fmt(d.resolved_accuracy, 3)}  coverage mean absolute error ${fmt(d.coverage_mae, 4)} over ${d.fixtures} traces`],
    ['decision_trace', t.labelled_decisions ? `labelled decisions found ${t.found}/${t.labelled_decisions} (${fmt(t.decision_recall, 3)})` : 'no labelled decisions'],
    ['optimization findings', f.labelled || f.predicted ? `precision ${fmt(f.precision, 3)}  recall ${fmt(f.recall, 3)}  (${f.true_positives} of ${f.predicted} predicted, ${f.labelled} labelled)` : 'no labelled findings'],
  ])
  return [
    ...r.fixtures.flatMap((x) => x.misses.map((m) => `${x.file}: claim "${m.text}" labelled ${m.expected ? 'supported' : 'unsupported'}, engine said ${m.got}`)),
    ...r.fixtures.flatMap((x) => x.sourceMisses.map((m) => `${x.file}: source ${m.url} expected ${m.expected}, got ${m.got}`)),
    ...d.misses,
    ...t.misses,
    ...f.misses,
    ...f.false_positives.map((x) => `false positive: ${x}`),
  ]
}

const all = loadFixtures()
const heldOut = (f: Fixture) => f.file.startsWith('holdout-')
const misses = [...report('development set', all.filter((f) => !heldOut(f))), ...report('held-out set', all.filter(heldOut))]
report('all', all)
process.stdout.write(`\nmisses (${misses.length})\n`)
for (const m of misses) process.stdout.write(`  - ${m}\n`)

// alignment: the labelled policy outputs of tests/fixtures/alignment, development and held-out (holdout-*) apart.
{
  const { evaluateAlignment, loadAlignmentFixtures } = await import('@svc/engines/alignment/eval-fixtures')
  const fixtures = loadAlignmentFixtures()
  for (const [title, set] of [['development', fixtures.filter((f) => !f.file.startsWith('holdout-'))], ['held-out', fixtures.filter((f) => f.file.startsWith('holdout-'))]] as const) {
    const a = await evaluateAlignment([...set])
    process.stdout.write(`\nalignment, ${title} set: ${a.outputs} labelled outputs\n`)
    table([
      ['confident flags on violating outputs', `precision ${fmt(a.precision, 3)}  recall ${fmt(a.recall, 3)}  (TP ${a.tp} FP ${a.fp} FN ${a.fn} TN ${a.tn})`],
      ['counting unclear flags too', `precision ${fmt(a.precisionWithUnclear, 3)}  recall ${fmt(a.recallWithUnclear, 3)}`],
    ])
    process.stdout.write(`misses (${a.misses.length})\n`)
    for (const m of a.misses) process.stdout.write(`  - ${m}\n`)
  }
}
