/**
 * pnpm eval:combiner [--head] [--thresholds 0.5,0.6,0.7] [--blind v8,v9] — would a model fit on the labelled
 * claims decide better than the judge's rules? An experiment, not an engine (issue 14, round 10;
 * docs/engines.md, "A learned combiner of the local signals").
 *
 * Each claim of the development sets is described by what the default mode has locally: the
 * rule that decided it and its verdict and confidence, the best word coverage by one evidence
 * statement, the sentence model's best cosine to the statements that cover it best, how many of
 * its figures the evidence (or only the user's request) states verbatim, the dimensions of its
 * figures, denial, length, the trace's evidence (statements, tool errors) and the share of the
 * trace's other claims the rules support; with `--head`, also |u − v| and u ⊙ v of the sentence
 * vectors of the claim and its nearest statement (the usual classifier head over a bi-encoder).
 * An L2 logistic regression on these predicts "supported"; a claim is supported when the
 * prediction reaches the threshold, else it keeps the rule's contradicted or is unsupported.
 *
 * Leave one set out: each development set is scored by a model fit on all the others, so every
 * figure is out of sample, and beside it the rules alone, through the same evaluation as
 * `pnpm eval:engines` (tests/eval/sets.ts). With `--blind`, a model fit on every development set
 * is also scored on the named held-out sets, in aggregate only, beside the rules.
 */
import { parseArgs } from 'node:util'
import type { Claim, ContentReliability } from '@svc/engines/outputs'
import { evaluateReliability, figures, matching, norm, type ReliabilityEvaluation } from '@svc/engines/test-support/eval-reliability'
import { reliabilityRunner } from '@svc/engines/test-support/eval-runner'
import { fixtureView, type Fixture } from '@svc/engines/test-support/fixtures'
import { judgeTrace, type TraceJudgement } from '@svc/engines/reliability/judgement'
import { coverage, readClaim } from '@svc/engines/reliability/match'
import type { Quantity } from '@svc/engines/reliability/quantity'
import { scoreClaims } from '@svc/engines/reliability/index'
import { sourcesMatrix } from '@svc/engines/sources/index'
import { semanticLayer } from '@svc/engines/semantic/layer'
import { modelDir } from '@svc/engines/semantic/model-files'
import { dot, type Embedder } from '@svc/engines/semantic/types'
import type { TraceView } from '@svc/engines/trace-view'
import { fmt, table } from '../bench/stats.js'
import { TRACE_SETS } from './sets.js'

const { values: args } = parseArgs({ options: { head: { type: 'boolean', default: false }, thresholds: { type: 'string', default: '0.5,0.6,0.7' }, blind: { type: 'string', default: '' } } })
const thresholds = args.thresholds!.split(',').map(Number)

const model = await semanticLayer(modelDir(process.env.SVC_MODEL_DIR)).embedder()
if (!model) throw new Error('the sentence model is unavailable: the combiner compares the default mode, which needs it (pnpm install fetches it)')
const embedder: Embedder = model

const RULES = ['unsupported', 'quantity', 'derived', 'text', 'boolean-supported', 'boolean-contradicted', 'conflict', 'relation', 'consequence', 'failure-report', 'denied', 'failed-action', 'relation-false', 'relation-unread', 'action-unbacked', 'action-refused', 'conversion']
const DIMS = ['money', 'date', 'time', 'duration', 'percent', 'count', 'length', 'mass', 'volume', 'temperature', 'speed', 'data']
const KINDS = ['document', 'tool_result', 'tool_error', 'message']
/** Statements whose cosine to the claim is read: those that cover most of its words. */
const NEAREST = 6

const sameFigure = (q: Quantity, pool: Quantity[]) => pool.some((e) => e.dim === q.dim && Math.abs(e.value - q.value) <= Math.max(q.tol, e.tol, 1e-9))

/** One row of signals per claim of a judged trace. */
async function signals(j: TraceJudgement): Promise<number[][]> {
  const pool = j.context.statements.filter((s) => !s.request && s.text.length <= 600)
  const evidenceFigures = j.context.statements.flatMap((s) => s.quantities)
  const requestFigures = j.context.request.flatMap((s) => s.quantities)
  const toolErrors = pool.some((s) => s.evidence.kind === 'tool_error') ? 1 : 0
  const supported = j.claims.filter((c) => c.judgement.verdict === 'supported').length
  const rows: number[][] = []
  for (const { claim, judgement } of j.claims) {
    const c = readClaim(claim)
    const near = pool.map((s) => ({ s, cov: coverage(c, s) })).sort((a, b) => b.cov - a.cov).slice(0, NEAREST)
    const vectors = await embedder.embed([claim, ...near.map((n) => n.s.text)])
    const cosines = vectors.slice(1).map((v) => dot(vectors[0]!, v))
    const best = cosines.length ? cosines.indexOf(Math.max(...cosines)) : -1
    const qs = c.quantities
    const share = (n: number) => (qs.length ? n / qs.length : 0)
    const row = [
      ...RULES.map((r) => (judgement.rule === r ? 1 : 0)),
      judgement.confidence,
      near[0]?.cov ?? 0,
      best < 0 ? 0 : cosines[best]!,
      Math.min(qs.length, 5) / 5,
      qs.length ? 0 : 1,
      share(qs.filter((q) => sameFigure(q, evidenceFigures)).length),
      share(qs.filter((q) => sameFigure(q, requestFigures)).length),
      ...DIMS.map((d) => (qs.some((q) => q.dim === d) ? 1 : 0)),
      [...c.pol.values()].some(Boolean) ? 1 : 0,
      Math.log1p(claim.split(/\s+/).length),
      Math.log1p(pool.length),
      pool.length ? 0 : 1,
      toolErrors,
      ...KINDS.map((k) => (judgement.evidence?.kind === k ? 1 : 0)),
      (supported - (judgement.verdict === 'supported' ? 1 : 0)) / Math.max(1, j.claims.length - 1),
    ]
    if (args.head) {
      const u = vectors[0]!
      const v = best < 0 ? new Float32Array(u.length) : vectors[1 + best]!
      for (let i = 0; i < u.length; i++) row.push(Math.abs(u[i]! - v[i]!))
      for (let i = 0; i < u.length; i++) row.push(u[i]! * v[i]!)
    }
    rows.push(row)
  }
  return rows
}

interface Example { x: number[]; supported: number }

/** The labelled claims of a set as examples: each engine claim a label covers, with that label's verdict. */
async function examples(fixtures: Fixture[]): Promise<Example[]> {
  const out: Example[] = []
  for (const f of fixtures) {
    if (!f.labels.claims) continue
    const j = await judgeTrace(fixtureView(f), embedder)
    const rows = await signals(j)
    const answer = norm(j.answer?.text ?? '')
    const engine = j.claims.map((c) => ({ claim: c.claim }) as Claim)
    const seen = new Set<number>()
    for (const label of f.labels.claims) {
      const supported = (label.verdict ?? (label.supported ? 'supported' : 'not_supported')) === 'supported' ? 1 : 0
      for (const c of matching(answer, label.text, engine)) {
        const i = engine.indexOf(c)
        if (seen.has(i)) continue
        seen.add(i)
        out.push({ x: rows[i]!, supported })
      }
    }
  }
  return out
}

/** L2-regularised logistic regression on standardised signals (full-batch Adam): p(supported | signals). */
function fit(data: Example[], l2 = 1e-3, epochs = 400): (x: number[]) => number {
  const d = data[0]!.x.length
  const mean = new Array<number>(d).fill(0)
  const sd = new Array<number>(d).fill(0)
  for (const e of data) for (let k = 0; k < d; k++) mean[k]! += e.x[k]! / data.length
  for (const e of data) for (let k = 0; k < d; k++) sd[k]! += (e.x[k]! - mean[k]!) ** 2 / data.length
  for (let k = 0; k < d; k++) sd[k] = Math.sqrt(sd[k]!) || 1
  const xs = data.map((e) => e.x.map((v, k) => (v - mean[k]!) / sd[k]!))
  const w = new Array<number>(d + 1).fill(0)
  const m = new Array<number>(d + 1).fill(0)
  const v = new Array<number>(d + 1).fill(0)
  const predict = (z: number[]) => 1 / (1 + Math.exp(-(w[d]! + z.reduce((a, x, k) => a + w[k]! * x, 0))))
  for (let t = 1; t <= epochs; t++) {
    const g = new Array<number>(d + 1).fill(0)
    xs.forEach((z, i) => {
      const err = predict(z) - data[i]!.supported
      for (let k = 0; k < d; k++) g[k]! += (err * z[k]!) / xs.length
      g[d]! += err / xs.length
    })
    for (let k = 0; k <= d; k++) {
      const gk = g[k]! + (k < d ? l2 * w[k]! : 0)
      m[k] = 0.9 * m[k]! + 0.1 * gk
      v[k] = 0.999 * v[k]! + 0.001 * gk * gk
      w[k]! -= (0.05 * (m[k]! / (1 - 0.9 ** t))) / (Math.sqrt(v[k]! / (1 - 0.999 ** t)) + 1e-8)
    }
  }
  return (x) => predict(x.map((val, k) => (val - mean[k]!) / sd[k]!))
}

/** content_reliability with the combiner deciding each claim: supported at p ≥ threshold, else the rule's contradicted, else unsupported. */
function combinedRunner(p: (x: number[]) => number, threshold: number) {
  return async (view: TraceView) => {
    const j = await judgeTrace(view, embedder)
    const rows = await signals(j)
    const claims: Claim[] = j.claims.map(({ claim, judgement }, i) => {
      const q = p(rows[i]!)
      const verdict = q >= threshold ? 'supported' : judgement.verdict === 'contradicted' ? 'contradicted' : 'unsupported'
      return { claim, supported: verdict === 'supported', confidence: verdict === 'supported' ? q : 1 - q, evidence_span_id: judgement.evidence?.span_id || null, verdict, source: judgement.evidence?.source ?? null }
    })
    const reliability: ContentReliability = { trace_id: view.trace_id, ...scoreClaims(claims), claims, scorer_version: 'combiner' }
    return { reliability, sources: sourcesMatrix(view, reliability, () => 0.5), answer: j.answer }
  }
}

const f3 = (x: number) => fmt(x, 3)
const FIGURES = ['P', 'R', 'F1', 'FC', 'Spearman'] as const
const figuresOf = (r: ReliabilityEvaluation) => {
  const x = figures(r.all)
  return [x.supportedPrecision, x.supportedRecall, x.notSupportedF1, x.falseContradictedShare, r.spearman]
}

/** The rules' figures on a set, then the combiner's at each threshold. */
async function compare(fixtures: Fixture[], p: (x: number[]) => number): Promise<number[][]> {
  const results = [await evaluateReliability(fixtures, reliabilityRunner(embedder))]
  for (const t of thresholds) results.push(await evaluateReliability(fixtures, combinedRunner(p, t)))
  return results.map(figuresOf)
}
const cells = (figs: number[][]) => figs.map((f) => f.map(f3).join(' ').padEnd(38)).join('')

const development = TRACE_SETS.filter((s) => s.key !== 'v8' && s.key !== 'v9')
process.stdout.write(`reading signals of ${development.length} development sets${args.head ? ' (with the sentence-vector head)' : ''}…\n`)
const loaded = development.map((s) => ({ key: s.key, fixtures: s.load() }))
const byset = new Map<string, Example[]>()
for (const s of loaded) byset.set(s.key, await examples(s.fixtures))
const columns = [['rules', ''], ...thresholds.map((t) => ['combiner', `p ≥ ${t}`])]
const sums = columns.map(() => new Array<number>(FIGURES.length).fill(0))
const rows: Array<[string, string]> = [['set (out of sample)', columns.map(([a, b]) => `${a} ${b}`.trim().padEnd(38)).join('')]]
for (const s of loaded) {
  process.stdout.write(`  fitting without ${s.key}…\n`)
  const figs = await compare(s.fixtures, fit(loaded.filter((o) => o.key !== s.key).flatMap((o) => byset.get(o.key)!)))
  figs.forEach((f, c) => f.forEach((x, k) => (sums[c]![k]! += x / loaded.length)))
  rows.push([s.key, cells(figs)])
}
rows.push(['mean over sets', cells(sums)])
const blind = TRACE_SETS.filter((s) => args.blind!.split(',').includes(s.key))
if (blind.length) {
  process.stdout.write('  fitting on every development set…\n')
  const p = fit([...byset.values()].flat())
  for (const s of blind) rows.push([`${s.key} (held out)`, cells(await compare(s.load(), p))])
}
process.stdout.write(`\neach cell: supported precision, recall, "not supported" F1, false contradicted share, Spearman\n`)
table(rows)
