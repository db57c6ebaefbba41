/**
 * Does the trace's evidence back a claim? Every piece of evidence is cut into
 * windows of one and two consecutive sentences (a claim often fuses two adjacent
 * sentences of a document), and each window is compared with the claim:
 *
 * - coverage: the weighted share of the claim's content terms the window holds
 *   (stems; numbers and named entities weigh 2);
 * - numbers: every number of the claim must appear in the window; a claim number
 *   that is absent while the window states a different number of the same kind
 *   (same currency/percent sign or a shared neighbouring word: "20 weeks" vs
 *   "16 weeks") is a numeric contradiction;
 * - negation: the claim and the window disagree in negation parity, and a cue's
 *   scope covers a term both share ("is paid out" vs "is not paid out").
 *
 * supported: some window covers >= SUPPORT_COVERAGE with all numbers and no
 * contradiction, and no single sentence contradicts the claim while aligning with
 * it (word coverage) at least as well as that window does. contradicted: a single
 * sentence aligned with the claim (word coverage >= ALIGN_COVERAGE) contradicts
 * it and nothing outweighs it. unsupported: neither.
 */
import type { Evidence } from './evidence.js'
import { analyze, joinAnalyses, numberKey, sentences, type Analysis } from './text.js'

export type Verdict = 'supported' | 'unsupported' | 'contradicted'

export interface Judgement {
  verdict: Verdict
  /** supported: the window's coverage; contradicted: how well the contradicting sentence aligns; unsupported: 1 - best coverage. */
  confidence: number
  evidence: Evidence | null
}

export const SUPPORT_COVERAGE = 0.6
export const ALIGN_COVERAGE = 0.5
const MIN_CONFIDENCE = 0.05

interface Window {
  evidence: Evidence
  analysis: Analysis
  /** The window's sentences: negation is judged per sentence, so two cues in two sentences never cancel out. */
  parts: Analysis[]
}

interface Comparison {
  coverage: number
  wordCoverage: number
  matched: number
  numbersFound: boolean
  numberConflict: boolean
  negationConflict: boolean
}

// Questions and requests in a prompt state nothing; a claim echoing them is not backed.
const asks = (s: string) => /\?\s*$/.test(s) || /^(?:please|can you|could you|would you|tell me|explain|write|show me|give me|list|find)\b/i.test(s)

// Every claim of an answer is judged against the same evidence list: cut and analyse it once.
const windowCache = new WeakMap<Evidence[], Window[]>()

function windowsOf(evidence: Evidence[]): Window[] {
  const hit = windowCache.get(evidence)
  if (hit) return hit
  const out: Window[] = []
  for (const e of evidence) {
    const sents = sentences(e.text).filter((s) => !(e.kind === 'message' && asks(s)))
    const parts = sents.map(analyze)
    parts.forEach((p, i) => {
      out.push({ evidence: e, analysis: p, parts: [p] })
      const next = parts[i + 1]
      if (next) out.push({ evidence: e, analysis: joinAnalyses(p, next), parts: [p, next] })
    })
  }
  windowCache.set(evidence, out)
  return out
}

function negationConflict(claim: Analysis, s: Analysis): boolean {
  const shared = (t: string) => claim.terms.has(t) && s.terms.has(t)
  return claim.negations % 2 !== s.negations % 2 && ([...claim.negated].some(shared) || [...s.negated].some(shared))
}

function compare(claim: Analysis, win: Window): Comparison {
  const w = win.analysis
  let total = 0
  let hit = 0
  let words = 0
  let wordHits = 0
  let matched = 0
  for (const [term, weight] of claim.terms) {
    total += weight
    const found = w.terms.has(term)
    if (found) {
      hit += weight
      matched++
    }
    if (!term.startsWith('#')) {
      words += weight
      if (found) wordHits += weight
    }
  }
  const missing = claim.numbers.filter((n) => !w.terms.has(numberKey(n.value)))
  const numberConflict = missing.some((n) => w.numbers.some((q) => !claim.terms.has(numberKey(q.value)) && [...n.context].some((c) => q.context.has(c))))
  return {
    coverage: total ? hit / total : 0,
    wordCoverage: words ? wordHits / words : 0,
    matched,
    numbersFound: missing.length === 0,
    numberConflict,
    negationConflict: win.parts.some((p) => negationConflict(claim, p)),
  }
}

const round = (x: number) => Math.round(x * 1000) / 1000

/** Evidence kinds in order of preference when two windows back a claim equally well. */
const KIND_RANK: Record<Evidence['kind'], number> = { document: 0, tool_result: 1, message: 2 }

export function judgeClaim(claim: string, evidence: Evidence[]): Judgement {
  const c = analyze(claim)
  if (c.terms.size === 0) return { verdict: 'unsupported', confidence: 1, evidence: null }
  let support: { w: Window; cov: number; words: number } | null = null
  let contra: { w: Window; align: number } | null = null
  let best = 0
  for (const w of windowsOf(evidence)) {
    const r = compare(c, w)
    best = Math.max(best, r.coverage)
    const conflict = r.numberConflict || r.negationConflict
    if (r.coverage >= SUPPORT_COVERAGE && r.numbersFound && !conflict && r.matched >= 2) {
      const better =
        !support || r.coverage > support.cov + 1e-9 || (Math.abs(r.coverage - support.cov) < 1e-9 && KIND_RANK[w.evidence.kind] < KIND_RANK[support.w.evidence.kind])
      if (better) support = { w, cov: r.coverage, words: r.wordCoverage }
    }
    if (w.parts.length === 1 && conflict && r.wordCoverage >= ALIGN_COVERAGE && (!contra || r.wordCoverage > contra.align)) contra = { w, align: r.wordCoverage }
  }
  // A sentence saying the opposite at least as specifically as the best support outweighs it.
  if (support && !(contra && contra.align >= support.words)) return { verdict: 'supported', confidence: round(support.cov), evidence: support.w.evidence }
  if (contra) return { verdict: 'contradicted', confidence: round(contra.align), evidence: contra.w.evidence }
  return { verdict: 'unsupported', confidence: round(Math.max(MIN_CONFIDENCE, 1 - best)), evidence: null }
}
