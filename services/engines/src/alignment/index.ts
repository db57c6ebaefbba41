/**
 * The alignment engine: compares a trace's final output with the workspace's
 * policy (its description and the most relevant passages of its embedded
 * documents) and flags the sentences that do what a rule forbids.
 *
 * 1. The final output (reliability/evidence.ts finalOutput) is cut into sentences.
 * 2. Each sentence is embedded and the top-k policy passages by cosine similarity
 *    are fetched from ClickHouse (ctx.searchPolicy, only vectors of one model).
 * 3. Rules are read out of those passages and out of the description (rules.ts).
 * 4. Each sentence is judged against its candidate rules (judge.ts); the strongest
 *    match is the sentence's flag. Below UNCLEAR_BELOW it is "unclear". With the
 *    local sentence model, the judge also reads how close the sentence is to each
 *    rule's act (its subject, paraphrase included) and which act the sentence
 *    performs (acts.ts); without it, words only.
 */
import { createHash } from 'node:crypto'
import { finalOutput } from '../reliability/evidence.js'
import { sentences } from '../reliability/text.js'
import type { TraceView } from '../trace-view.js'
import type { Embedder } from '../semantic/types.js'
import { similarityMatrix } from '../semantic/similarity.js'
import { ACT_DESCRIPTIONS, ACT_KIND_FLOOR, actVerbs, ruleActs, type ActKind } from './acts.js'
import { judgeAgainst, UNCLEAR_BELOW } from './judge.js'
import { allowedStatements, extractRules, type Rule, type Severity } from './rules.js'

export { UNCLEAR_BELOW } from './judge.js'

export const ALIGNMENT_VERSION = '2'
/** Passages fetched per output sentence. */
export const TOP_K = 3
/** Sentences of one output judged at most (the rest are not read). */
export const MAX_SENTENCES = 60

export interface AlignmentPolicy {
  enabled: boolean
  description: string
}

export interface PolicyPassage {
  doc_id: string
  chunk_index: number
  text: string
  similarity: number
}

export interface AlignmentFlag {
  flag_id: string
  trace_id: string
  policy_excerpt: string
  agent_output: string
  severity: Severity
  confidence: number
  /** Confidence below UNCLEAR_BELOW: listed only with include_unclear=true. */
  unclear: boolean
  /** The document the excerpt comes from, or 'description'. */
  doc_id: string
  /** svc.end_user of the trace ('' when never set). */
  end_user: string
}

export interface AlignmentResult {
  trace_id: string
  policy_enabled: boolean
  sentences_checked: number
  passages_used: number
  flags: AlignmentFlag[]
  note: string
}

/** The end user a trace served: svc.end_user on any span, the root's first. */
export function endUserOf(view: TraceView): string {
  const ordered = [...view.spans].sort((a, b) => (a.parent_span_id === null ? -1 : 0) - (b.parent_span_id === null ? -1 : 0))
  for (const s of ordered) {
    const u = s.attributes['svc.end_user']
    if (u) return u.slice(0, 256)
  }
  return ''
}

export const outputSentences = (text: string) => sentences(text.replace(/[*_`#>]+/g, ' ')).filter((s) => /[a-z]{2}/i.test(s)).slice(0, MAX_SENTENCES)

/**
 * What both judges (this one and the LLM's, llm/alignment.ts) do first: nothing to
 * check without an enabled policy or an output; else the output's sentences.
 */
export function beginAlignment(traceId: string, output: string, policy: AlignmentPolicy): { done: AlignmentResult } | { base: Omit<AlignmentResult, 'note'>; sents: string[] } {
  const base = { trace_id: traceId, policy_enabled: policy.enabled, sentences_checked: 0, passages_used: 0, flags: [] as AlignmentFlag[] }
  if (!policy.enabled) return { done: { ...base, note: 'The alignment policy is not enabled for this workspace: nothing was checked.' } }
  const sents = outputSentences(output)
  if (sents.length === 0) return { done: { ...base, note: 'The trace has no final output to check.' } }
  return { base, sents }
}

const flagId = (traceId: string, sentence: string, rule: Rule) =>
  createHash('sha256').update(`${traceId}\n${sentence}\n${rule.source}\n${rule.text}`).digest('hex').slice(0, 24)

/**
 * Judges one output against a policy. `search` returns the top passages for each
 * sentence (same order); the description's rules apply to every sentence.
 * `embedder`: the local sentence model (semantic judgement), or null (lexical).
 */
export async function alignOutput(
  traceId: string,
  output: string,
  policy: AlignmentPolicy,
  search: (texts: string[], k: number) => Promise<PolicyPassage[][]>,
  endUser = '',
  embedder: Embedder | null = null,
): Promise<AlignmentResult> {
  const start = beginAlignment(traceId, output, policy)
  if ('done' in start) return start.done
  const { base, sents } = start
  const described = extractRules(policy.description, 'description')
  const hits = await search(sents, TOP_K)
  const rulesOf = new Map<string, { rules: Rule[]; allowed: string[] }>()
  const used = new Set<string>()
  const flags: AlignmentFlag[] = []
  const candidates = sents.map((_, i) => {
    const rules = [...described]
    const allowed: string[] = []
    let quoted = policy.description
    for (const p of hits[i] ?? []) {
      const key = `${p.doc_id}#${p.chunk_index}`
      used.add(key)
      if (!rulesOf.has(key)) rulesOf.set(key, { rules: extractRules(p.text, p.doc_id, p.chunk_index), allowed: allowedStatements(p.text) })
      rules.push(...rulesOf.get(key)!.rules)
      allowed.push(...rulesOf.get(key)!.allowed)
      quoted += '\n' + p.text
    }
    return { rules, quoted, allowed }
  })
  // Semantic mode: every sentence against every distinct piece of its candidate rules' acts, in one embedding call.
  const parts = [...new Set(candidates.flatMap((c) => [...c.allowed, ...c.rules.flatMap((r) => (r.modality === 'prohibition' || r.modality === 'restriction' ? [...r.parts, ...r.propositions] : []))]))]
  const sims = embedder ? await similarityMatrix(embedder, sents, parts) : null
  const kinds = embedder ? await forbiddenKinds(embedder, candidates.flatMap((c) => c.rules)) : null
  const partIndex = new Map(parts.map((a, i) => [a, i]))
  sents.forEach((sentence, i) => {
    const { rules, quoted } = candidates[i]!
    const allowed = Math.max(0, ...candidates[i]!.allowed.map((a) => sims?.[i]![partIndex.get(a)!] ?? 0))
    const views = sims && kinds ? rules.map((r) => ({ allowed, propositions: r.propositions.map((p) => ({ text: p, topic: sims[i]![partIndex.get(p)!]! })), parts: r.parts.map((p) => ({ part: p, topic: sims[i]![partIndex.get(p)!]!, kinds: kinds.get(p) ?? new Set<ActKind>() })) })) : undefined
    const m = judgeAgainst(sentence, rules, quoted, views)
    if (!m) return
    flags.push({
      flag_id: flagId(traceId, sentence, m.rule),
      trace_id: traceId,
      policy_excerpt: m.rule.text,
      agent_output: sentence,
      severity: m.severity,
      confidence: m.confidence,
      unclear: m.unclear,
      doc_id: m.rule.source,
      end_user: endUser,
    })
  })
  const sure = flags.filter((f) => !f.unclear).length
  return {
    ...base,
    sentences_checked: sents.length,
    passages_used: used.size,
    flags,
    note: `${sents.length} sentence(s) checked against the policy description and ${used.size} policy passage(s): ${sure} flag(s), ${flags.length - sure} unclear (confidence below ${UNCLEAR_BELOW}).`,
  }
}

/**
 * The kinds of act each rule forbids (acts.ts), by act. A rule whose verbs the lists
 * do not know takes the kind whose canonical description (ACT_DESCRIPTIONS) its act's
 * first words are nearest to, at ACT_KIND_FLOOR or more.
 */
async function forbiddenKinds(embedder: Embedder, rules: Rule[]): Promise<Map<string, ReadonlySet<ActKind>>> {
  const out = new Map<string, ReadonlySet<ActKind>>()
  const unknown: Array<[string, string]> = []
  for (const r of rules.filter((x) => x.modality === 'prohibition' || x.modality === 'restriction'))
    for (const p of r.parts) {
      if (out.has(p)) continue
      const k = ruleActs(p, r.modality === 'restriction')
      out.set(p, k)
      if (k.size === 0) unknown.push([p, actVerbs(p).join(', ')])
    }
  if (unknown.length === 0) return out
  const sims = await similarityMatrix(embedder, unknown.map(([, verbs]) => verbs), ACT_DESCRIPTIONS.map(([, d]) => d))
  unknown.forEach(([part], i) => {
    const best = sims[i]!.reduce((b, c, j) => (c > sims[i]![b]! ? j : b), 0)
    if (sims[i]![best]! >= ACT_KIND_FLOOR) out.set(part, new Set([ACT_DESCRIPTIONS[best]![0]]))
  })
  return out
}

/** The engine over a finished trace; `embedder` as for alignOutput. */
export async function alignment(view: TraceView, policy: AlignmentPolicy, search: (texts: string[], k: number) => Promise<PolicyPassage[][]>, embedder: Embedder | null = null): Promise<AlignmentResult> {
  const out = finalOutput(view)
  return alignOutput(view.trace_id, out?.text ?? '', policy, search, endUserOf(view), embedder)
}
