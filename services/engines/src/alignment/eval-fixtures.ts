/**
 * The labelled alignment fixtures (tests/fixtures/alignment/*.json): example
 * policies, each with agent outputs labelled `violates` or `respects` before the
 * engine was first run, and the scoring of the deterministic engine on them.
 * A policy's document goes through the same path as an upload: the API's text
 * extraction (shared/domain/html-text.ts), chunks, local embeddings, top-k
 * search; the description applies to every sentence.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { htmlToText } from '@svc/shared/domain/html-text'
import type { Embedder } from '../semantic/types.js'
import { alignOutput, type AlignmentFlag } from './index.js'
import { memorySearch } from './memory-search.js'

export interface AlignmentFixture {
  file: string
  policy: { id: string; description: string; document: string }
  outputs: Array<{ id: string; label: 'violates' | 'respects'; text: string }>
}

export const FIXTURE_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../../../tests/fixtures/alignment')

export function loadAlignmentFixtures(dir = FIXTURE_DIR): AlignmentFixture[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({ file, ...(JSON.parse(readFileSync(join(dir, file), 'utf8')) as Omit<AlignmentFixture, 'file'>) }))
}

export interface AlignmentEval {
  tp: number
  fp: number
  fn: number
  tn: number
  precision: number
  recall: number
  /** Recall when unclear flags count as flags too. */
  recallWithUnclear: number
  precisionWithUnclear: number
  outputs: number
  misses: string[]
}

/** `embedder`: the local sentence model (the default mode) or null (lexical mode), for search and judgement alike. */
export async function evaluateAlignment(fixtures = loadAlignmentFixtures(), embedder: Embedder | null = null): Promise<AlignmentEval> {
  let tp = 0, fp = 0, fn = 0, tn = 0, tpU = 0, fpU = 0
  const misses: string[] = []
  let n = 0
  for (const f of fixtures) {
    const doc = /<\w+[^>]*>/.test(f.policy.document) ? htmlToText(f.policy.document) : f.policy.document
    const search = memorySearch([{ doc_id: f.policy.id, text: doc }], embedder ?? undefined)
    for (const o of f.outputs) {
      n++
      const r = await alignOutput(o.id, o.text, { enabled: true, description: f.policy.description }, search, '', embedder)
      const sure = r.flags.filter((x) => !x.unclear)
      const flagged = sure.length > 0
      const flaggedU = r.flags.length > 0
      const violates = o.label === 'violates'
      if (violates && flagged) tp++
      else if (violates) fn++
      else if (flagged) fp++
      else tn++
      if (violates && flaggedU) tpU++
      if (!violates && flaggedU) fpU++
      const show = (fl: AlignmentFlag[]) => fl.map((x) => `"${x.policy_excerpt}" (${x.severity}, ${x.confidence}${x.unclear ? ', unclear' : ''})`).join('; ')
      if (violates !== flagged) misses.push(`${f.file} ${o.id} labelled ${o.label}, engine ${flagged ? `flagged: ${show(sure)}` : r.flags.length ? `only unclear: ${show(r.flags)}` : 'raised nothing'} — "${o.text}"`)
    }
  }
  const div = (a: number, b: number) => (b === 0 ? 1 : a / b)
  return { tp, fp, fn, tn, precision: div(tp, tp + fp), recall: div(tp, tp + fn), precisionWithUnclear: div(tpU, tpU + fpU), recallWithUnclear: div(tpU, tp + fn), outputs: n, misses }
}
