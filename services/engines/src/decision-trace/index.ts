/**
 * decision_trace: the points where the agent chose something, read from the spans.
 * A tool span is a tool choice among the tools offered to the model just before it;
 * a repeat of a failed operation is a retry, a failed operation never repeated is a
 * decision to give up; a change of model is a model choice (a fallback when the
 * previous call failed); a short completion that picks one of the options its prompt
 * enumerates is a branch; a retrieval chooses, among its candidates, the documents
 * the next answer used. Edges are the transitive reduction of "happened before or
 * contains", so they follow causality without repeating implied links.
 */
import { groupBy } from '@svc/shared/group-by'
import type { DecisionNode, DecisionTrace } from '../outputs.js'
import type { TraceView, ViewSpan } from '../trace-view.js'
import { finalAnswer } from '../decomposition/index.js'
import { completionText, overlap, wordSet } from '../decomposition/text.js'
import { offeredTools, promptOptions, requestedTools, toolName } from './signals.js'

type Draft = Omit<DecisionNode, 'id'> & { span: ViewSpan; seq: number }

const round = (x: number) => Math.round(x * 100) / 100
const FAILURE = /\b(could ?n[o'’]?t|cannot|unable|not able|failed|sorry)\b/i

/** The latest of `byEnd` (sorted by end) that ended before `at` started, by binary search. */
function latestBefore(byEnd: ViewSpan[], at: ViewSpan): ViewSpan | null {
  let [lo, hi] = [0, byEnd.length]
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (byEnd[mid]!.end_ms <= at.start_ms + 1) lo = mid + 1
    else hi = mid
  }
  for (let i = lo - 1; i >= 0; i--) if (byEnd[i] !== at) return byEnd[i]!
  return null
}

/**
 * The LLM call that led to a span: the latest LLM span ending before it starts, preferring one that asked for
 * `tool`. Indexed once per trace (by end, ties in span order; and by the tools each call asked for), so a trace of
 * thousands of tool spans does not filter every completion for each.
 */
function decidingLlms(spans: ViewSpan[]): (at: ViewSpan, tool: string) => ViewSpan | null {
  const byEnd = spans.filter((s) => s.span_type === 'llm').sort((a, b) => a.end_ms - b.end_ms)
  const asked = groupBy(
    byEnd.flatMap((s) => [...new Set(requestedTools(s).map((c) => c.name))].map((name) => ({ name, s }))),
    (x) => x.name,
  )
  const byTool = new Map([...asked].map(([name, xs]) => [name, xs.map((x) => x.s)]))
  return (at, tool) => latestBefore(byTool.get(tool) ?? [], at) ?? latestBefore(byEnd, at)
}

/** Same operation: the same tool, or an LLM call with the same prompt (any model, so a fallback counts as a new attempt). */
const opKey = (s: ViewSpan) => (s.span_type === 'tool' ? `tool:${toolName(s)}` : s.span_type === 'llm' ? `llm:${s.content.prompt.trim()}` : '')

/**
 * Decisions a trace's graph holds, at most (the first by start time): edges are a transitive reduction over
 * every pair, cubic in the worst case, and a trace of thousands of tool calls must still finish in a second.
 */
const MAX_DECISIONS = 500

export function decisionTrace(view: TraceView): DecisionTrace {
  const spans = view.spans
  const drafts: Draft[] = []
  const add = (d: Omit<Draft, 'seq'>) => drafts.push({ ...d, seq: drafts.length })
  const toolsSeen = [...new Set(spans.filter((s) => s.span_type === 'tool').map(toolName))]
  // Failed attempts by operation, so a span is compared with its own operation's failures only.
  const failures = groupBy(spans, (p) => (p.status_code === 'ERROR' && opKey(p)) || undefined)
  const failedBefore = (s: ViewSpan) => (failures.get(opKey(s)) ?? []).filter((p) => p !== s && p.end_ms <= s.start_ms + 1)

  // Tools: a choice, or a retry of the same tool after it failed.
  const decidingLlm = decidingLlms(spans)
  for (const s of spans.filter((x) => x.span_type === 'tool')) {
    const name = toolName(s)
    const llm = decidingLlm(s, name)
    const offered = llm ? offeredTools(llm) : []
    const failed = failedBefore(s)
    if (failed.length) {
      const last = failed[failed.length - 1]!
      add({ span: s, span_id: s.span_id, decision: 'retry', chosen: `${name} (attempt ${failed.length + 1})`, alternatives: ['give up', ...offered.filter((t) => t !== name)],
        basis: `${name} failed before (${last.status_message || 'ERROR'}); it was called again${llm ? ` after ${llm.model} asked for it` : ''}`, confidence: 0.9 })
      continue
    }
    const alternatives = (offered.length ? offered : toolsSeen).filter((t) => t !== name)
    const asked = llm ? requestedTools(llm).find((c) => c.name === name) : undefined
    add({ span: s, span_id: s.span_id, decision: 'tool_choice', chosen: name, alternatives,
      basis: offered.length
        ? `${llm!.model || 'the model'} was offered ${offered.length} tools and ${asked ? `asked for ${name}${asked.arguments ? ` with ${asked.arguments.slice(0, 120)}` : ''}` : `${name} ran next`}`
        : `${name} ran; no offered tool list was recorded, so the alternatives are the other tools this trace used`,
      confidence: offered.length ? (asked ? 0.9 : offered.includes(name) ? 0.75 : 0.6) : 0.5 })
  }

  const llms = spans.filter((s) => s.span_type === 'llm')
  const models = [...new Set(llms.map((s) => s.model).filter(Boolean))]
  let prev: ViewSpan | null = null
  for (const s of llms) {
    // Tool calls the model asked for that never ran as a span of their own.
    const ranAfter = spans.filter((t) => t.span_type === 'tool' && t.start_ms >= s.start_ms).map(toolName)
    for (const c of requestedTools(s))
      if (!ranAfter.includes(c.name))
        add({ span: s, span_id: s.span_id, decision: 'tool_choice', chosen: c.name, alternatives: offeredTools(s).filter((t) => t !== c.name),
          basis: `${s.model} asked for ${c.name}; no execution span was recorded`, confidence: 0.7 })

    if (prev && s.model && prev.model && s.model !== prev.model) {
      const fallback = prev.status_code === 'ERROR'
      add({ span: s, span_id: s.span_id, decision: 'model_choice', chosen: s.model, alternatives: models.filter((m) => m !== s.model),
        basis: fallback ? `fallback: the previous call to ${prev.model} failed (${prev.status_message || 'ERROR'})` : `switched from ${prev.model} to ${s.model} for this step`,
        confidence: fallback ? 0.9 : 0.6 })
    } else {
      const failed = failedBefore(s).filter((p) => p.model === s.model)
      if (failed.length)
        add({ span: s, span_id: s.span_id, decision: 'retry', chosen: `${s.model} (attempt ${failed.length + 1})`, alternatives: ['give up', ...models.filter((m) => m !== s.model)],
          basis: `the same prompt to ${s.model} failed before (${failed[failed.length - 1]!.status_message || 'ERROR'})`, confidence: 0.85 })
    }
    prev = s

    // A short completion naming one of the options its prompt lists picks a branch.
    const label = completionText(s).toLowerCase().replace(/[."'`]/g, '')
    if (label && label.split(/\s+/).length <= 3 && !requestedTools(s).length) {
      const opts = promptOptions(s.content.prompt).find((o) => o.includes(label))
      if (opts)
        add({ span: s, span_id: s.span_id, decision: 'branch', chosen: label, alternatives: opts.filter((o) => o !== label),
          basis: `${s.model || 'the model'} classified the input as "${label}" among ${opts.length} options its prompt listed`, confidence: 0.8 })
    }
  }

  // Failed operations never attempted again: the agent chose to stop.
  for (const s of spans) {
    if (s.status_code !== 'ERROR' || !opKey(s)) continue
    const retried = spans.some((p) => p !== s && p.start_ms >= s.end_ms - 1 && (opKey(p) === opKey(s) || (s.span_type === 'llm' && p.span_type === 'llm' && firstUser(p) === firstUser(s))))
    if (!retried) {
      const name = s.span_type === 'tool' ? toolName(s) : s.model
      add({ span: s, span_id: s.span_id, decision: 'retry', chosen: 'give up', alternatives: [`retry ${name}`],
        basis: `${name} failed (${s.status_message || 'ERROR'}) and was not attempted again`, confidence: 0.8 })
    }
  }

  // Retrieval: which candidates the next answer actually used.
  for (const s of spans.filter((x) => x.span_type === 'retrieval' && x.content.documents.length)) {
    const next = llms.find((l) => l.start_ms >= s.end_ms - 1 && l.content.completion)
    const answer = wordSet(next ? completionText(next) : '')
    const docs = s.content.documents.map((d) => ({ d, used: overlap(wordSet(d.content), answer) }))
    const best = Math.max(...docs.map((x) => x.used))
    const used = best >= 0.25 ? docs.filter((x) => x.used >= Math.max(0.25, best * 0.75)) : []
    const chosen = used.length ? used : [...docs].sort((a, b) => (b.d.score ?? 0) - (a.d.score ?? 0)).slice(0, 1)
    const ids = chosen.map((x) => x.d.id || x.d.url)
    add({ span: s, span_id: s.span_id, decision: 'retrieval', chosen: ids.join(', '), alternatives: docs.filter((x) => !chosen.includes(x)).map((x) => x.d.id || x.d.url),
      basis: used.length ? `the answer${next ? ` (${next.span_id})` : ''} draws on ${ids.join(', ')} out of ${docs.length} retrieved documents` : `no document is visibly used by an answer; the top-scored one is shown`,
      confidence: round(used.length ? 0.5 + best / 2 : 0.3) })
  }

  const fa = finalAnswer(view)
  const faSpan = fa && spans.find((s) => s.span_id === fa.span_id)
  if (fa && faSpan)
    add({ span: faSpan, span_id: faSpan.span_id, decision: 'final_answer', chosen: fa.text.replace(/\s+/g, ' ').slice(0, 120), alternatives: [],
      basis: FAILURE.test(fa.text) ? 'the final answer reports that part of the request failed' : 'the last completion returned to the user', confidence: FAILURE.test(fa.text) ? 0.5 : 0.8 })

  return assemble(view, drafts)
}

const firstUser = (s: ViewSpan) => /^(?:user|human): ?(.*)$/im.exec(s.content.prompt)?.[1] ?? ''

function isAncestor(byId: Map<string, ViewSpan>, a: ViewSpan, b: ViewSpan): boolean {
  for (let p = b.parent_span_id, hops = 0; p && hops < 1000; hops++) {
    if (p === a.span_id) return true
    p = byId.get(p)?.parent_span_id ?? null
  }
  return false
}

/** A's decision could have caused B's: A's span contains B's, ended before it began, or is the same span and came first. */
export function precedes(byId: Map<string, ViewSpan>, a: { span: ViewSpan; seq: number }, b: { span: ViewSpan; seq: number }): boolean {
  if (a.span === b.span) return a.seq < b.seq
  return isAncestor(byId, a.span, b.span) || (a.span.end_ms <= b.span.start_ms + 1 && !isAncestor(byId, b.span, a.span))
}

function assemble(view: TraceView, drafts: Draft[]): DecisionTrace {
  const byId = new Map(view.spans.map((s) => [s.span_id, s]))
  const sorted = [...drafts]
    .sort((a, b) => a.span.start_ms - b.span.start_ms || a.seq - b.seq)
    .slice(0, MAX_DECISIONS)
    .map((d, i) => ({ ...d, seq: i }))
  const nodes: DecisionNode[] = sorted.map((d, i) => ({ id: `d${i + 1}`, span_id: d.span_id, decision: d.decision, chosen: d.chosen, alternatives: d.alternatives, basis: d.basis, confidence: round(d.confidence) }))
  const n = sorted.length
  const before = sorted.map((a) => sorted.map((b) => a !== b && precedes(byId, a, b)))
  const edges: Array<{ from: string; to: string }> = []
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      if (!before[i]![j]) continue
      // Transitive reduction: keep i->j only when no k sits between them.
      let implied = false
      for (let k = 0; k < n && !implied; k++) implied = k !== i && k !== j && before[i]![k]! && before[k]![j]!
      if (!implied) edges.push({ from: nodes[i]!.id, to: nodes[j]!.id })
    }
  return { trace_id: view.trace_id, nodes, edges }
}
