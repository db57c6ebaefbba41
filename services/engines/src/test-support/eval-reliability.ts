/**
 * How well content_reliability and sources_matrix agree with the labelled fixtures.
 * Claim level: a labelled claim matches the engine claim containing its text
 * (case-insensitive, whitespace-normalised); a labelled claim the engine did not
 * produce counts as predicted unsupported. Positive class: supported.
 */
import type { ContentReliability, SourcesMatrix } from '../outputs.js'
import { contentReliability } from '../reliability/index.js'
import { sourcesMatrix } from '../sources/index.js'
import { fixtureView, type Fixture } from './fixtures.js'

const norm = (s: string) => s.replace(/[’‘]/g, "'").replace(/\s+/g, ' ').trim().toLowerCase()

export interface ClaimMiss {
  text: string
  expected: boolean
  /** The engine's verdict, or 'missing' when no engine claim contains the text. */
  got: string
  claim: string | null
}

export interface FixtureScore {
  file: string
  grade: string
  score: number | null
  misses: ClaimMiss[]
  /** Labelled sources absent from the matrix or with another verification level. */
  sourceMisses: Array<{ url: string; expected: string; got: string }>
}

export interface ReliabilityEvaluation {
  tp: number
  fp: number
  fn: number
  tn: number
  precision: number
  recall: number
  accuracy: number
  /** Labelled claims no engine claim contained. */
  unmatched: number
  sourcesLabelled: number
  sourcesCorrect: number
  fixtures: FixtureScore[]
  results: Map<string, { reliability: ContentReliability; sources: SourcesMatrix }>
}

export function evaluateReliability(fixtures: Fixture[]): ReliabilityEvaluation {
  const ev: ReliabilityEvaluation = {
    tp: 0, fp: 0, fn: 0, tn: 0, precision: 0, recall: 0, accuracy: 0, unmatched: 0,
    sourcesLabelled: 0, sourcesCorrect: 0, fixtures: [], results: new Map(),
  }
  for (const f of fixtures) {
    if (!f.labels.claims) continue
    const view = fixtureView(f)
    const reliability = contentReliability(view)
    // A neutral prior: the evaluation judges the matrix, not a workspace's history.
    const sources = sourcesMatrix(view, reliability, () => 0.5)
    ev.results.set(f.file, { reliability, sources })
    const score: FixtureScore = { file: f.file, grade: reliability.grade, score: reliability.score, misses: [], sourceMisses: [] }
    for (const label of f.labels.claims) {
      const claim = reliability.claims.find((c) => norm(c.claim).includes(norm(label.text))) ?? null
      if (!claim) ev.unmatched++
      const predicted = claim?.supported ?? false
      if (label.supported && predicted) ev.tp++
      else if (!label.supported && predicted) ev.fp++
      else if (label.supported && !predicted) ev.fn++
      else ev.tn++
      if (predicted !== label.supported) score.misses.push({ text: label.text, expected: label.supported, got: claim?.verdict ?? 'missing', claim: claim?.claim ?? null })
    }
    for (const label of f.labels.sources ?? []) {
      ev.sourcesLabelled++
      const entry = sources.sources.find((s) => s.url === label.url)
      if (entry?.verification_level === label.verification_level) ev.sourcesCorrect++
      else score.sourceMisses.push({ url: label.url, expected: label.verification_level, got: entry?.verification_level ?? 'missing' })
    }
    ev.fixtures.push(score)
  }
  const { tp, fp, fn, tn } = ev
  ev.precision = tp + fp ? tp / (tp + fp) : 1
  ev.recall = tp + fn ? tp / (tp + fn) : 1
  ev.accuracy = tp + fp + fn + tn ? (tp + tn) / (tp + fp + fn + tn) : 1
  return ev
}
