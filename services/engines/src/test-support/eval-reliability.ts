/**
 * How well content_reliability and sources_matrix agree with labelled traces (the
 * old set tests/fixtures/engines and the v2 sets tests/fixtures/engines-v2).
 *
 * Matching: labelled and engine claims are placed in the answer the engine judged
 * (whitespace, quotes and Markdown normalised); an engine claim matches a label
 * when they overlap by at least half of the shorter of the two, so an engine that
 * splits a labelled sentence in two, or keeps two labelled clauses in one
 * sentence, is still compared. Several engine claims on one label: contradicted
 * if any is, supported if all are, else unsupported. A label no engine claim
 * overlaps counts as predicted unsupported ("unmatched"); so does every label when
 * the engine judged another answer than the labelled one.
 *
 * Figures, per set and per claim kind: supported-claim precision/recall (positive
 * = supported), "not supported" detection (positive = not_supported or
 * contradicted, predicted unsupported or contradicted), false "contradicted" as
 * a share of the correct claims, Spearman between each trace's labelled supported
 * share and the engine's score (null score = 0), and the reliability diagram of
 * the confidences (a claim is right when its supported/not-supported side agrees
 * with the label).
 */
import type { ContentReliability, SourcesMatrix } from '../outputs.js'
import type { TraceView } from '../trace-view.js'
import { calibration, prf, ratio, spearman, type CalibrationBin, type Counts } from './eval-metrics.js'
import { fixtureView, type Fixture } from './fixtures.js'
import { scoreClaims } from '../reliability/index.js'

export interface ReliabilityRun {
  reliability: ContentReliability
  sources: SourcesMatrix
  /** The answer the engine judged: its text (to place claims in) and span. */
  answer: { text: string; span_id: string } | null
}
export type ReliabilityRunner = (view: TraceView) => Promise<ReliabilityRun>

type LabelVerdict = 'supported' | 'not_supported' | 'contradicted'

export interface ClaimMiss {
  file: string
  kind: string
  text: string
  expected: LabelVerdict
  /** The engine's verdict, or 'missing' when no engine claim overlaps the text. */
  got: string
  confidence: number | null
}

export interface Tally {
  claims: number
  /** Positive class: supported. */
  supported: Counts
  /** Positive class: not supported (not_supported or contradicted). */
  notSupported: Counts
  /** Labelled supported, predicted contradicted. */
  falseContradicted: number
  predictedContradicted: number
  /** Predicted contradicted and labelled contradicted. */
  rightContradicted: number
}

export interface ReliabilityEvaluation {
  all: Tally
  byKind: Map<string, Tally>
  unmatched: number
  /** Traces whose judged answer is the labelled one (v2 labels only). */
  answers: { labelled: number; right: number; misses: string[] }
  spearman: number
  /**
   * Spearman against the score the engine would give over the labelled claims
   * alone: the ranking its per-claim verdicts allow, before claims nobody labelled
   * dilute it.
   */
  spearmanLabelledOnly: number
  /** Share of the engine's claims that overlap no labelled claim. */
  unlabelledClaimShare: number
  /** Traces in the Spearman correlation (those with labelled claims). */
  ranked: number
  calibration: { bins: CalibrationBin[]; ece: number }
  sourcesLabelled: number
  sourcesCorrect: number
  sourceMisses: string[]
  misses: ClaimMiss[]
  results: Map<string, ReliabilityRun>
}

const emptyTally = (): Tally => ({
  claims: 0, supported: { tp: 0, fp: 0, fn: 0, tn: 0 }, notSupported: { tp: 0, fp: 0, fn: 0, tn: 0 },
  falseContradicted: 0, predictedContradicted: 0, rightContradicted: 0,
})

export const norm = (s: string) =>
  s.replace(/[’‘]/g, "'").replace(/[“”]/g, '"').replace(/\*\*|__|`/g, '').replace(/\s+/g, ' ').trim().toLowerCase()

function count(t: Tally, expected: LabelVerdict, got: 'supported' | 'unsupported' | 'contradicted') {
  t.claims++
  const want = expected === 'supported'
  const have = got === 'supported'
  const c = t.supported
  if (want && have) c.tp++
  else if (!want && have) c.fp++
  else if (want && !have) c.fn++
  else c.tn++
  t.notSupported.tp = c.tn
  t.notSupported.fp = c.fn
  t.notSupported.fn = c.fp
  t.notSupported.tn = c.tp
  if (got === 'contradicted') {
    t.predictedContradicted++
    if (expected === 'contradicted') t.rightContradicted++
    if (want) t.falseContradicted++
  }
}

/** Where a text sits in the normalised answer; null when it is not there verbatim. */
function rangeIn(answer: string, text: string): [number, number] | null {
  const t = norm(text)
  const i = t ? answer.indexOf(t) : -1
  return i < 0 ? null : [i, i + t.length]
}

/** The engine claims that say (part of) a labelled claim (`answer` normalised by norm). */
export function matching<C extends { claim: string }>(answer: string, label: string, claims: C[]): C[] {
  const l = rangeIn(answer, label)
  const ln = norm(label)
  return claims.filter((c) => {
    const r = rangeIn(answer, c.claim)
    if (!l || !r) return norm(c.claim).includes(ln) || (ln.includes(norm(c.claim)) && norm(c.claim).length > 0)
    const overlap = Math.min(l[1], r[1]) - Math.max(l[0], r[0])
    return overlap > 0 && overlap >= 0.5 * Math.min(l[1] - l[0], r[1] - r[0])
  })
}

export async function evaluateReliability(fixtures: Fixture[], run: ReliabilityRunner): Promise<ReliabilityEvaluation> {
  const ev: ReliabilityEvaluation = {
    all: emptyTally(), byKind: new Map(), unmatched: 0, answers: { labelled: 0, right: 0, misses: [] }, spearman: NaN, spearmanLabelledOnly: NaN, unlabelledClaimShare: 0, ranked: 0,
    calibration: { bins: [], ece: 0 }, sourcesLabelled: 0, sourcesCorrect: 0, sourceMisses: [], misses: [], results: new Map(),
  }
  const shares: number[] = []
  const scores: number[] = []
  const labelledOnlyScores: number[] = []
  let engineClaims = 0
  let unlabelledClaims = 0
  const points: Array<{ confidence: number; correct: boolean }> = []
  for (const f of fixtures) {
    const labels = f.labels.claims
    if (!labels) continue
    const view = fixtureView(f)
    const r = await run(view)
    ev.results.set(f.file, r)
    const l = f.labels
    if (l.final_answer_span_id) {
      ev.answers.labelled++
      const want = [l.final_answer_span_id, ...(l.final_answer_alt_span_ids ?? [])]
      if (r.answer && want.includes(r.answer.span_id)) ev.answers.right++
      else ev.answers.misses.push(`${f.file}: judged the output of ${r.answer?.span_id ?? 'nothing'}, labelled ${want.join(' or ')}`)
    }
    const answer = norm(r.answer?.text ?? '')
    const labelled = new Set<ContentReliability['claims'][number]>()
    for (const label of labels) {
      const expected: LabelVerdict = label.verdict ?? (label.supported ? 'supported' : 'not_supported')
      const kind = label.kind ?? 'unlabelled'
      const found = matching(answer, label.text, r.reliability.claims)
      for (const c of found) labelled.add(c)
      if (!found.length) ev.unmatched++
      const got = found.some((c) => c.verdict === 'contradicted') ? 'contradicted' : found.length && found.every((c) => c.verdict === 'supported') ? 'supported' : 'unsupported'
      count(ev.all, expected, got)
      if (!ev.byKind.has(kind)) ev.byKind.set(kind, emptyTally())
      count(ev.byKind.get(kind)!, expected, got)
      for (const c of found) points.push({ confidence: c.confidence, correct: (c.verdict === 'supported') === (expected === 'supported') })
      const gotLabel = got === 'unsupported' ? 'not_supported' : got
      // Old labels know only supported or not: there, unsupported and contradicted are both right for a false claim.
      const right = label.verdict ? gotLabel === expected : (got === 'supported') === label.supported
      if (!right)
        ev.misses.push({ file: f.file, kind, text: label.text, expected, got: found.length ? gotLabel : 'missing', confidence: found.length ? Math.min(...found.map((c) => c.confidence)) : null })
    }
    if (labels.length) {
      shares.push(labels.filter((c) => c.supported).length / labels.length)
      scores.push(r.reliability.score ?? 0)
      labelledOnlyScores.push(scoreClaims([...labelled]).score ?? 0)
    }
    engineClaims += r.reliability.claims.length
    unlabelledClaims += r.reliability.claims.filter((c) => !labelled.has(c)).length
    for (const label of l.sources ?? []) {
      ev.sourcesLabelled++
      const entry = r.sources.sources.find((s) => s.url === label.url)
      if (entry?.verification_level === label.verification_level) ev.sourcesCorrect++
      else ev.sourceMisses.push(`${f.file}: source ${label.url} expected ${label.verification_level}, got ${entry?.verification_level ?? 'missing'}`)
    }
  }
  ev.spearman = spearman(shares, scores)
  ev.spearmanLabelledOnly = spearman(shares, labelledOnlyScores)
  ev.unlabelledClaimShare = ratio(unlabelledClaims, engineClaims, 0)
  ev.ranked = shares.length
  ev.calibration = calibration(points)
  return ev
}

/** The headline figures of a tally, as the report and the eval tests read them. */
export function figures(t: Tally) {
  const s = prf(t.supported)
  const n = prf(t.notSupported)
  const correct = t.supported.tp + t.supported.fn
  return {
    supportedPrecision: s.precision,
    supportedRecall: s.recall,
    notSupportedPrecision: n.precision,
    notSupportedRecall: n.recall,
    notSupportedF1: n.f1,
    falseContradictedShare: ratio(t.falseContradicted, correct, 0),
    contradictedPrecision: ratio(t.rightContradicted, t.predictedContradicted),
    accuracy: ratio(t.supported.tp + t.supported.tn, t.claims),
  }
}
