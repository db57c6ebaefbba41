/**
 * Scoring the decomposition, decision_trace and optimization engines against the
 * labelled fixtures. Used by the eval tests and by the report script, so both print
 * the same figures. Matching is by the labels' distinctive substrings: a labelled
 * sub-task is found when a produced sub-task's text contains it, a labelled decision
 * when a node of the same kind has it in `chosen`; findings match on (kind, span_id).
 */
import { loadPriceTable, type PriceTable } from '@svc/shared/domain/pricing'
import { decisionTrace } from '../decision-trace/index.js'
import { decomposition } from '../decomposition/index.js'
import { correlationFindings, optimization, savingsFindings } from '../optimization/index.js'
import type { Decomposition } from '../outputs.js'
import type { TraceView } from '../trace-view.js'
import { fixtureView, type Fixture } from './fixtures.js'
import { prf } from './eval-metrics.js'

const has = (hay: string, needle: string) => hay.toLowerCase().includes(needle.toLowerCase())
const ratio = (a: number, b: number, empty = 1) => (b ? a / b : empty)

export interface DecompositionEval {
  fixtures: number
  labelled_sub_tasks: number
  found: number
  sub_task_recall: number
  resolved_correct: number
  resolved_accuracy: number
  coverage_mae: number
  /** Parts called unresolved: how many were (precision), and of those labelled unresolved, how many were called (recall). */
  unresolved_precision: number
  unresolved_recall: number
  misses: string[]
}

/** `run`: the lexical decomposition by default; the sentence model's with `(v) => semanticDecomposition(v, model)`. */
export async function evaluateDecomposition(fixtures: Fixture[], run: (view: TraceView) => Decomposition | Promise<Decomposition> = decomposition): Promise<DecompositionEval> {
  const scored = fixtures.filter((f) => f.labels.sub_tasks?.length)
  let labelled = 0, found = 0, correct = 0, coverageErr = 0
  const unresolved = { tp: 0, fp: 0, fn: 0, tn: 0 }
  const misses: string[] = []
  for (const f of scored) {
    const d = await run(fixtureView(f))
    const free = [...d.sub_tasks]
    for (const l of f.labels.sub_tasks!) {
      labelled++
      const i = free.findIndex((t) => has(t.text, l.text))
      if (i < 0) {
        misses.push(`${f.file}: sub-task "${l.text}" not found`)
        continue
      }
      const task = free.splice(i, 1)[0]!
      found++
      // (positive: called unresolved)
      unresolved[task.resolved ? (l.resolved ? 'tn' : 'fn') : l.resolved ? 'fp' : 'tp']++
      if (task.resolved === l.resolved) correct++
      else misses.push(`${f.file}: "${l.text}" resolved=${task.resolved}, labelled ${l.resolved}`)
    }
    const want = f.labels.coverage ?? ratio(f.labels.sub_tasks!.filter((t) => t.resolved).length, f.labels.sub_tasks!.length)
    coverageErr += Math.abs(d.coverage - want)
  }
  const u = prf(unresolved)
  return { fixtures: scored.length, labelled_sub_tasks: labelled, found, sub_task_recall: ratio(found, labelled), resolved_correct: correct,
    resolved_accuracy: ratio(correct, found), coverage_mae: ratio(coverageErr, scored.length, 0), unresolved_precision: u.precision, unresolved_recall: u.recall, misses }
}

export interface DecisionEval {
  fixtures: number
  labelled_decisions: number
  found: number
  decision_recall: number
  misses: string[]
}

export function evaluateDecisions(fixtures: Fixture[]): DecisionEval {
  const scored = fixtures.filter((f) => f.labels.decisions?.length)
  let labelled = 0, found = 0
  const misses: string[] = []
  for (const f of scored) {
    const free = [...decisionTrace(fixtureView(f)).nodes]
    for (const l of f.labels.decisions!) {
      labelled++
      const i = free.findIndex((n) => n.decision === l.decision && has(n.chosen, l.chosen))
      if (i < 0) misses.push(`${f.file}: ${l.decision} "${l.chosen}" not found`)
      else {
        found++
        free.splice(i, 1)
      }
    }
  }
  return { fixtures: scored.length, labelled_decisions: labelled, found, decision_recall: ratio(found, labelled), misses }
}

export interface FindingsEval {
  fixtures: number
  labelled: number
  predicted: number
  true_positives: number
  precision: number
  recall: number
  misses: string[]
  false_positives: string[]
}

/** Findings of every kind, or of one `kind` only (labels and predictions of other kinds are ignored). */
export function evaluateFindings(fixtures: Fixture[], prices: PriceTable = loadPriceTable(), kind?: string): FindingsEval {
  const scored = fixtures.filter((f) => Array.isArray(f.labels.findings))
  const ofKind = (k: string) => !kind || k === kind
  let labelled = 0, predicted = 0, tp = 0
  const misses: string[] = []
  const fps: string[] = []
  for (const f of scored) {
    const v = fixtureView(f)
    const got = optimization(v.trace_id, [...correlationFindings(v, prices), ...savingsFindings(v, prices)]).findings.filter((x) => ofKind(x.kind)).map((x) => `${x.kind} ${x.span_id}`)
    const want = new Set(f.labels.findings!.filter((x) => ofKind(x.kind)).map((x) => `${x.kind} ${x.span_id}`))
    labelled += want.size
    predicted += got.length
    for (const g of got) {
      if (want.has(g)) tp++
      else fps.push(`${f.file}: ${g}`)
    }
    for (const w of want) if (!got.includes(w)) misses.push(`${f.file}: ${w}`)
  }
  return { fixtures: scored.length, labelled, predicted, true_positives: tp, precision: ratio(tp, predicted), recall: ratio(tp, labelled), misses, false_positives: fps }
}
