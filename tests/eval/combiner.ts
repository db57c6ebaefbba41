/**
 * pnpm eval:combiner [--thresholds 0.6,0.5,0.7] [--blind v10] [--write] — content_reliability's
 * combiner (services/engines/src/reliability/combiner.ts) scored out of sample, and fit.
 *
 * Leave one set out: each development set is scored by a fit on all the others, so every figure
 * is out of sample, beside the rules alone, through the same evaluation as `pnpm eval:engines`
 * (tests/eval/sets.ts). With `--blind`, a fit on every development set is also scored on the
 * named held-out sets, in aggregate only. With `--write`, that fit (at the first threshold) is
 * written to combiner-weights.ts: after any change of the rules (a new JUDGEMENT_VERSION), refit.
 */
import { writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { evaluateReliability, figures, matching, norm, type ReliabilityEvaluation } from '@svc/engines/test-support/eval-reliability'
import { reliabilityRunner } from '@svc/engines/test-support/eval-runner'
import { fixtureView, type Fixture } from '@svc/engines/test-support/fixtures'
import { JUDGEMENT_VERSION, judgeTrace } from '@svc/engines/reliability/judgement'
import { claimSignals, fitCombiner, type CombinerWeights, type Example } from '@svc/engines/reliability/combiner'
import { semanticLayer } from '@svc/engines/semantic/layer'
import { modelDir } from '@svc/engines/semantic/model-files'
import type { Embedder } from '@svc/engines/semantic/types'
import { fmt, table } from '../bench/stats.js'
import { BLIND_SETS, TRACE_SETS } from './sets.js'

const { values: args } = parseArgs({ options: { thresholds: { type: 'string', default: '0.6,0.5,0.7' }, blind: { type: 'string', default: '' }, write: { type: 'boolean', default: false } } })
const thresholds = args.thresholds!.split(',').map(Number)

const model = await semanticLayer(modelDir(process.env.SVC_MODEL_DIR)).embedder()
if (!model) throw new Error('the sentence model is unavailable: the combiner needs it (pnpm install fetches it)')
const embedder: Embedder = model

/** The labelled claims of a set as examples: each engine claim a label covers, with that label's verdict. */
async function examples(fixtures: Fixture[]): Promise<Example[]> {
  const out: Example[] = []
  for (const f of fixtures) {
    if (!f.labels.claims) continue
    const j = await judgeTrace(fixtureView(f), embedder, true)
    const { rows } = await claimSignals(j.claims, j.context, embedder)
    const answer = norm(j.answer?.text ?? '')
    const seen = new Set<number>()
    for (const label of f.labels.claims) {
      const supported = (label.verdict ?? (label.supported ? 'supported' : 'not_supported')) === 'supported'
      for (const c of matching(answer, label.text, j.claims)) {
        const i = j.claims.indexOf(c)
        if (seen.has(i)) continue
        seen.add(i)
        out.push({ x: rows[i]!, supported })
      }
    }
  }
  return out
}

const f3 = (x: number) => fmt(x, 3)
const figuresOf = (r: ReliabilityEvaluation) => {
  const x = figures(r.all)
  return [x.supportedPrecision, x.supportedRecall, x.notSupportedF1, x.falseContradictedShare, r.spearman]
}

/** The rules' figures on a set, then the combiner's at each threshold. */
async function compare(fixtures: Fixture[], fit: CombinerWeights): Promise<number[][]> {
  const results = [await evaluateReliability(fixtures, reliabilityRunner(embedder, { rulesOnly: true }))]
  for (const threshold of thresholds) results.push(await evaluateReliability(fixtures, reliabilityRunner(embedder, { weights: { ...fit, threshold } })))
  return results.map(figuresOf)
}
const cells = (figs: number[][]) => figs.map((f) => f.map(f3).join(' ').padEnd(38)).join('')

const development = TRACE_SETS.filter((s) => !BLIND_SETS.has(s.key))
process.stdout.write(`reading the signals of ${development.length} development sets…\n`)
const loaded = development.map((s) => ({ key: s.key, fixtures: s.load() }))
const byset = new Map<string, Example[]>()
for (const s of loaded) byset.set(s.key, await examples(s.fixtures))
const columns = [['rules', ''], ...thresholds.map((t) => ['combiner', `p ≥ ${t}`])]
const sums = columns.map(() => new Array<number>(5).fill(0))
const rows: Array<[string, string]> = [['set (out of sample)', columns.map(([a, b]) => `${a} ${b}`.trim().padEnd(38)).join('')]]
for (const s of loaded) {
  process.stdout.write(`  fitting without ${s.key}…\n`)
  const others = loaded.filter((o) => o.key !== s.key)
  const figs = await compare(s.fixtures, fitCombiner(others.flatMap((o) => byset.get(o.key)!), { judgement: JUDGEMENT_VERSION, threshold: thresholds[0]!, fitted_on: others.map((o) => o.key).join(',') }))
  figs.forEach((f, c) => f.forEach((x, k) => (sums[c]![k]! += x / loaded.length)))
  rows.push([s.key, cells(figs)])
}
rows.push(['mean over sets', cells(sums)])
const blind = TRACE_SETS.filter((s) => BLIND_SETS.has(s.key) && args.blind!.split(',').includes(s.key))
const all = fitCombiner([...byset.values()].flat(), { judgement: JUDGEMENT_VERSION, threshold: thresholds[0]!, fitted_on: loaded.map((o) => o.key).join(',') })
for (const s of blind) rows.push([`${s.key} (held out)`, cells(await compare(s.load(), all))])
process.stdout.write(`\neach cell: supported precision, recall, "not supported" F1, false contradicted share, Spearman\n`)
table(rows)

if (args.write) {
  writeFileSync(
    new URL('../../services/engines/src/reliability/combiner-weights.ts', import.meta.url),
    `/**\n * The combiner's fit (combiner.ts), over the rules of judgement ${JUDGEMENT_VERSION}.\n * Written by \`pnpm eval:combiner --write\` on the development sets it names; refit after any change of the rules.\n */\nimport type { CombinerWeights } from './combiner.js'\n\nexport const COMBINER_WEIGHTS: CombinerWeights = {\n${Object.entries(all).map(([k, v]) => `  ${k}: ${JSON.stringify(v)},`).join('\n')}\n}\n`,
  )
  process.stdout.write(`\nwrote the combiner's fit on ${all.claims} claims (${all.fitted_on}) at threshold ${all.threshold}\n`)
}
