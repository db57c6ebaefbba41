/**
 * pnpm eval:engines [--sets old,dev,heldout,v3,v4,v5,v6,v7,v8,v9,tables,alignment] (the blind sets: v10, alignment-heldout) — the engines scored against the
 * labelled traces, one report per set, development and held-out apart:
 * - `old`: tests/fixtures/engines (its holdout-* files are known by now: development);
 * - `dev`: tests/fixtures/engines-v2/dev, the v2 development traces;
 * - `heldout`: tests/fixtures/engines-v2/heldout, labelled blind to the engines. Its
 *   figures are the guess of behaviour on new traffic, so only aggregates and the
 *   per-kind table are printed for it, never its individual misses: tune on the
 *   others (`--sets old,dev`).
 * - `v3`: tests/fixtures/engines-v3/heldout, blind until 2026-12-06 and development since (misses listed);
 * - `v4`: tests/fixtures/engines-v4/heldout, blind until 2026-12-07 and development since (misses listed);
 * - `v5`: tests/fixtures/engines-v5/heldout, blind until 2026-12-07 (round 7) and development since (misses listed);
 * - `v6`: tests/fixtures/engines-v6/heldout, blind until 2026-12-07 (round 8) and development since (misses listed);
 * - `v7`: tests/fixtures/engines-v7/heldout, blind until 2026-12-07 (round 9) and development since (misses listed);
 * - `tables`: tests/fixtures/engines-tables/dev, answers with markdown tables, written in round 7 as a development set (misses listed);
 * - `v8`, `v9`: tests/fixtures/engines-v8/heldout and engines-v9/heldout, the blind sets of rounds 9 and 10, development since round 11 (misses listed);
 * - `v10`: tests/fixtures/engines-v10/heldout, the blind set since round 11: aggregates only, never in the default sets.
 * The registry of sets is ./sets.ts.
 * content_reliability per claim kind (supported precision/recall, "not supported"
 * detection, false "contradicted"), Spearman between labelled supported share and
 * score, the reliability diagram of confidences, sources' verification levels,
 * decomposition, decision_trace and optimization (redundant_tool_call apart).
 * The *.eval.test.ts files assert floors on the development figures.
 */
import { parseArgs } from 'node:util'
import { loadFixtures, loadV2, type Fixture } from '@svc/engines/test-support/fixtures'
import { DEFAULT_SETS, TRACE_SETS } from './sets.js'
import { evaluateReliability, figures, type ReliabilityEvaluation, type Tally } from '@svc/engines/test-support/eval-reliability'
import { reliabilityRunner } from '@svc/engines/test-support/eval-runner'
import { evaluateDecisions, evaluateDecomposition, evaluateFindings } from '@svc/engines/test-support/eval-tasks'
import { decomposition, semanticDecomposition } from '@svc/engines/decomposition/index'
import { semanticLayer } from '@svc/engines/semantic/layer'
import { modelDir } from '@svc/engines/semantic/model-files'
import type { TraceView } from '@svc/engines/trace-view'
import { fmt, summarize, table } from '../bench/stats.js'

const { values: args } = parseArgs({ options: { sets: { type: 'string', default: [...DEFAULT_SETS, 'alignment'].join(',') } } })
const wanted = new Set(args.sets!.split(','))

const f3 = (x: number) => fmt(x, 3)
const line = (t: Tally) => {
  const x = figures(t)
  return `${String(t.claims).padStart(4)}  supported P ${f3(x.supportedPrecision)} R ${f3(x.supportedRecall)}  |  not-supported P ${f3(x.notSupportedPrecision)} R ${f3(x.notSupportedRecall)} F1 ${f3(x.notSupportedF1)}  |  false contradicted ${fmt(100 * x.falseContradictedShare, 1)}% (${t.falseContradicted})  contradicted precision ${f3(x.contradictedPrecision)} (${t.rightContradicted}/${t.predictedContradicted})`
}

function reliabilityReport(r: ReliabilityEvaluation) {
  const rows: Array<[string, string]> = [['content_reliability, all claims', line(r.all)]]
  if (r.byKind.size > 1 || !r.byKind.has('unlabelled')) for (const [kind, t] of [...r.byKind].sort()) rows.push([`  kind ${kind}`, line(t)])
  rows.push(
    ['  claims not extracted', String(r.unmatched)],
    ['  Spearman (labelled supported share ~ score)', `${f3(r.spearman)} over ${r.ranked} traces`],
    ['    ~ score over labelled claims only', f3(r.spearmanLabelledOnly)],
    ['    engine claims no label covers', `${(100 * r.unlabelledClaimShare).toFixed(1)}%`],
    ['  calibration (ECE)', `${f3(r.calibration.ece)}; ` + r.calibration.bins.map((b) => `[${fmt(b.from, 1)}: n ${b.n} conf ${fmt(b.meanConfidence, 2)} acc ${fmt(b.accuracy, 2)}]`).join(' ')],
  )
  if (r.answers.labelled) rows.push(['  answer judged = labelled answer', `${r.answers.right}/${r.answers.labelled}`])
  rows.push(['sources: verification levels', `${r.sourcesCorrect}/${r.sourcesLabelled} correct`])
  table(rows)
}

// decomposition in the default mode: with the local sentence model when it loads (lexical otherwise, as the engine falls back).
const sentenceModel = await semanticLayer(modelDir(process.env.SVC_MODEL_DIR)).embedder()
const decompositionRun = (v: TraceView) => (sentenceModel ? semanticDecomposition(v, sentenceModel) : decomposition(v))

async function report(title: string, fixtures: Fixture[], showMisses: boolean): Promise<string[]> {
  const r = await evaluateReliability(fixtures, reliabilityRunner(sentenceModel))
  const d = await evaluateDecomposition(fixtures, decompositionRun)
  const t = evaluateDecisions(fixtures)
  const f = evaluateFindings(fixtures)
  const redundant = evaluateFindings(fixtures, undefined, 'redundant_tool_call')
  process.stdout.write(`\n${title}: ${fixtures.length} labelled traces\n`)
  reliabilityReport(r)
  table([
    ['decomposition', `sub-task recall ${f3(d.sub_task_recall)} (${d.found}/${d.labelled_sub_tasks})  resolved accuracy ${f3(d.resolved_accuracy)}  coverage mean absolute error ${fmt(d.coverage_mae, 4)} over ${d.fixtures} traces`],
    ['  parts called unresolved', `precision ${f3(d.unresolved_precision)}  recall ${f3(d.unresolved_recall)}`],
    ['decision_trace', t.labelled_decisions ? `labelled decisions found ${t.found}/${t.labelled_decisions} (${f3(t.decision_recall)})` : 'no labelled decisions'],
    ['optimization findings', f.labelled || f.predicted ? `precision ${f3(f.precision)}  recall ${f3(f.recall)}  (${f.true_positives} of ${f.predicted} predicted, ${f.labelled} labelled)` : 'no labelled findings'],
    ['  redundant_tool_call', redundant.labelled || redundant.predicted ? `precision ${f3(redundant.precision)}  recall ${f3(redundant.recall)}  (${redundant.true_positives} of ${redundant.predicted} predicted, ${redundant.labelled} labelled)` : 'none labelled or found'],
  ])
  const misses = [
    ...r.answers.misses,
    ...r.misses.map((m) => `${m.file}: [${m.kind}] "${m.text}" labelled ${m.expected}, engine ${m.got}${m.confidence === null ? '' : ` (${m.confidence})`}`),
    ...r.sourceMisses,
    ...d.misses,
    ...t.misses,
    ...f.misses,
    ...f.false_positives.map((x) => `false positive: ${x}`),
  ]
  if (!showMisses) {
    process.stdout.write(`  (${misses.length} misses, not listed: a held-out set is not for tuning)\n`)
    return []
  }
  return misses.map((m) => `${title}: ${m}`)
}

const misses: string[] = []
for (const s of TRACE_SETS) if (wanted.has(s.key)) misses.push(...(await report(s.title, s.load(), s.development)))
// The LLM judge's prompt size per trace, on the development sets, against the loopback fake model server.
if (wanted.has('llm')) {
  const { measureLlmCost } = await import('@svc/engines/test-support/eval-llm')
  const c = await measureLlmCost([...loadFixtures(), ...loadV2('dev')])
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length)
  const p95 = (xs: number[]) => summarize(xs).p95
  process.stdout.write(`\ncontent_reliability with an LLM credential (old set + v2 dev, fake model server): ${c.calls} calls for ${c.traces} traces\n`)
  table([
    ['input tokens per call', `mean ${fmt(mean(c.inputTokens))}  p95 ${fmt(p95(c.inputTokens))}  max ${fmt(Math.max(...c.inputTokens))}`],
    ['output tokens per call', `mean ${fmt(mean(c.outputTokens))}  p95 ${fmt(p95(c.outputTokens))}`],
    ['prompt characters', `mean ${fmt(mean(c.promptChars))}  p95 ${fmt(p95(c.promptChars))}`],
    ['whole-evidence prompt (no pre-selection)', `mean ${fmt(mean(c.wholeEvidenceChars))}  p95 ${fmt(p95(c.wholeEvidenceChars))} characters`],
  ])
}

process.stdout.write(`\nmisses on the development sets (${misses.length})\n`)
for (const m of misses) process.stdout.write(`  - ${m}\n`)

// alignment: the labelled policy outputs, each set apart. Development (misses listed): the old
// development and held-out (holdout-*) policies of tests/fixtures/alignment, alignment-v2's dev
// and heldout (both tuned on since round 2 of issue 14), alignment-r2 (written while tuning
// round 2), alignment-v3 (blind until v4), alignment-v4 (blind until v5), alignment-v5 (blind until v6), alignment-v6 (blind until v7), alignment-v7 (blind until v8), alignment-v8 and alignment-v9 (blind in rounds 9 and 10). Held out: alignment-v10/heldout (blind since round 11), only with `alignment-heldout`, its own key (not in the
// default sets, so an ordinary run never spends one of its runs, nor one of the traces' held-out
// set), aggregates only. Default mode (the local sentence model, as the engines run it), with the
// lexical fallback's figures beside.
if (wanted.has('alignment') || wanted.has('alignment-heldout')) {
  const { evaluateAlignment, loadAlignmentFixtures, FIXTURE_DIR } = await import('@svc/engines/alignment/eval-fixtures')
  const layer = semanticLayer(modelDir(process.env.SVC_MODEL_DIR))
  const model = await layer.embedder()
  if (!model) process.stdout.write(`\nalignment: the sentence model is unavailable (${layer.status().reason}); default-mode figures below are lexical\n`)
  const old = loadAlignmentFixtures()
  const dev = wanted.has('alignment')
  const alignmentSets = [
    ['old development', dev ? old.filter((f) => !f.file.startsWith('holdout-')) : [], true],
    ['old held-out (known by now)', dev ? old.filter((f) => f.file.startsWith('holdout-')) : [], true],
    ['v2 development', dev ? loadAlignmentFixtures(`${FIXTURE_DIR}-v2/dev`) : [], true],
    ['v2 held-out (development since round 2)', dev ? loadAlignmentFixtures(`${FIXTURE_DIR}-v2/heldout`) : [], true],
    ['round-2 development (alignment-r2)', dev ? loadAlignmentFixtures(`${FIXTURE_DIR}-r2`) : [], true],
    ['v3 (development since v4)', dev ? loadAlignmentFixtures(`${FIXTURE_DIR}-v3/heldout`) : [], true],
    ['v4 (development since v5)', dev ? loadAlignmentFixtures(`${FIXTURE_DIR}-v4/heldout`) : [], true],
    ['v5 (development since v6)', dev ? loadAlignmentFixtures(`${FIXTURE_DIR}-v5/heldout`) : [], true],
    ['v6 (development since v7)', dev ? loadAlignmentFixtures(`${FIXTURE_DIR}-v6/heldout`) : [], true],
    ['v7 (development since v8)', dev ? loadAlignmentFixtures(`${FIXTURE_DIR}-v7/heldout`) : [], true],
    ['v8 (development since v10)', dev ? loadAlignmentFixtures(`${FIXTURE_DIR}-v8/heldout`) : [], true],
    ['v9 (development since v10)', dev ? loadAlignmentFixtures(`${FIXTURE_DIR}-v9/heldout`) : [], true],
    ['v10 held-out (blind)', wanted.has('alignment-heldout') ? loadAlignmentFixtures(`${FIXTURE_DIR}-v10/heldout`) : [], false],
  ] as const
  for (const [title, set, showMisses] of alignmentSets) {
    if (set.length === 0) continue
    const a = await evaluateAlignment([...set], model)
    const lexical = await evaluateAlignment([...set], null)
    process.stdout.write(`\nalignment, ${title} set: ${a.outputs} labelled outputs, ${model ? 'deterministic (sentence model)' : 'deterministic-lexical'}\n`)
    table([
      ['confident flags on violating outputs', `precision ${fmt(a.precision, 3)}  recall ${fmt(a.recall, 3)}  (TP ${a.tp} FP ${a.fp} FN ${a.fn} TN ${a.tn})`],
      ['counting unclear flags too', `precision ${fmt(a.precisionWithUnclear, 3)}  recall ${fmt(a.recallWithUnclear, 3)}`],
      ['lexical fallback, confident flags', `precision ${fmt(lexical.precision, 3)}  recall ${fmt(lexical.recall, 3)}  (TP ${lexical.tp} FP ${lexical.fp} FN ${lexical.fn} TN ${lexical.tn})`],
    ])
    if (!showMisses) continue
    process.stdout.write(`misses (${a.misses.length})\n`)
    for (const m of a.misses) process.stdout.write(`  - ${m}\n`)
  }
}
