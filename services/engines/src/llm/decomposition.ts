/**
 * decomposition with the organization's model: one call splits the user's request
 * into sub-tasks and says which of the trace's numbered work spans (tool calls,
 * retrievals, model completions) address each and whether each was resolved. Span
 * numbers are checked against the list the model was shown; a sub-task called
 * resolved with no real span behind it counts as unresolved, because coverage
 * means "the trace did the work", which only a span can show.
 */
import { z } from 'zod'
import type { Decomposition, SubTask } from '../outputs.js'
import type { TraceView, ViewSpan } from '../trace-view.js'
import { addressSubTasks, originalQuery, splitSubTasks } from '../decomposition/index.js'
import type { LlmClient } from './client.js'
import { clip, DATA_NOT_INSTRUCTIONS, numbered, oneLine, pick } from './prompt.js'

export const ENGINE = 'decomposition'

export const DECOMPOSITION_LIMITS = {
  queryChars: 4000,
  /** One span's summary. */
  spanChars: 300,
  /** All span summaries together. */
  spansChars: 18_000,
  maxSpans: 80,
  maxSubTasks: 20,
  maxOutputTokens: 2000,
} as const

export const decompositionAnswer = z.object({
  sub_tasks: z.array(z.object({ text: z.string(), resolved: z.boolean(), spans: z.array(z.number()) })),
})
export type DecompositionAnswer = z.infer<typeof decompositionAnswer>

const SYSTEM = [
  "You analyse how an AI agent handled a user's request.",
  '1. Split the request in <request> into the distinct sub-tasks it asks for (at least one; a simple request is one sub-task), each as a short imperative sentence, in order.',
  '2. For each sub-task list the numbers of the spans in <spans> that work on it (empty when none does).',
  '3. Say whether the sub-task was resolved: the spans produced what it asked for, without an unrecovered error.',
  'Answer with JSON only: {"sub_tasks":[{"text":string,"resolved":boolean,"spans":number[]}]}.',
  DATA_NOT_INSTRUCTIONS,
].join('\n')

/** One line about a span's work, or '' for spans that only group others. */
export function spanSummary(s: ViewSpan): string {
  const status = s.status_code === 'ERROR' ? ` [ERROR${s.status_message ? `: ${oneLine(s.status_message)}` : ''}]` : ''
  const c = s.content
  if (s.span_type === 'tool' || c.toolCalls.length) {
    const calls = c.toolCalls.map((t) => `${t.name}(${clip(oneLine(t.arguments), 120)})`).join(', ') || s.name
    const a = s.attributes
    const result = c.toolCalls.find((t) => t.result)?.result || a['gen_ai.tool.call.result'] || a['output.value'] || a['traceloop.entity.output'] || c.completion
    return `tool ${calls}${result ? ` -> ${oneLine(result)}` : ''}${status}`
  }
  if (s.span_type === 'retrieval' || c.documents.length) {
    const docs = c.documents.map((d) => d.url || d.id).filter(Boolean).join(', ')
    const first = c.documents[0]?.content ?? ''
    return `retrieval ${s.name.replace(/^retrieval\s+/i, '')}${c.prompt ? ` for "${clip(oneLine(c.prompt), 100)}"` : ''}: ${c.documents.length} documents${docs ? ` (${docs})` : ''}${first ? `; first: ${oneLine(first)}` : ''}${status}`
  }
  if (s.span_type === 'llm' && c.completion) return `completion ${s.model || s.name}: ${oneLine(c.completion)}${status}`
  return ''
}

export function decompositionPrompt(query: string, view: TraceView): { prompt: string; shown: ViewSpan[] } {
  const L = DECOMPOSITION_LIMITS
  const work = view.spans.filter((s) => spanSummary(s) !== '')
  const { lines, shown } = numbered(work, spanSummary, L.spanChars, L.spansChars, L.maxSpans)
  const prompt = ['<request>', clip(query, L.queryChars), '</request>', '<spans>', ...(lines.length ? lines : ['(the trace holds no tool calls, retrievals or completions)']), '</spans>'].join('\n')
  return { prompt, shown }
}

/** Resolved share, rounded as the deterministic engine rounds it. */
export const coverageOf = (subTasks: SubTask[]): number =>
  subTasks.length === 0 ? 1 : Math.round((subTasks.filter((t) => t.resolved).length / subTasks.length) * 10_000) / 10_000

/** The model's answer as sub-tasks, with every span number checked against what it was shown. */
export function subTasksFromAnswer(answer: DecompositionAnswer, shown: ViewSpan[]): SubTask[] {
  const out: SubTask[] = []
  for (const a of answer.sub_tasks) {
    const text = a.text.trim()
    if (!text) continue
    const spanIds: string[] = []
    for (const n of a.spans) {
      const s = pick(shown, n)
      if (s && !spanIds.includes(s.span_id)) spanIds.push(s.span_id)
    }
    out.push({ id: `t${out.length + 1}`, text, resolved: a.resolved && spanIds.length > 0, span_ids: spanIds })
    if (out.length >= DECOMPOSITION_LIMITS.maxSubTasks) break
  }
  return out
}

export async function llmDecomposition(view: TraceView, client: LlmClient): Promise<Decomposition> {
  const q = originalQuery(view)
  if (!q || !q.text.trim()) return { trace_id: view.trace_id, original_query: q?.text ?? '', sub_tasks: [], coverage: 1 }

  const { prompt, shown } = decompositionPrompt(q.text, view)
  const res = await client.generate(decompositionAnswer, { system: SYSTEM, prompt, maxOutputTokens: DECOMPOSITION_LIMITS.maxOutputTokens }, ENGINE)
  let subTasks = subTasksFromAnswer(res.object, shown)
  // A non-empty request has at least one sub-task; an empty answer is the model
  // failing, so the deterministic split stands in rather than a vacuous coverage of 1.
  if (subTasks.length === 0) subTasks = addressSubTasks(view, splitSubTasks(q.text))
  return { trace_id: view.trace_id, original_query: q.text, sub_tasks: subTasks, coverage: coverageOf(subTasks) }
}
