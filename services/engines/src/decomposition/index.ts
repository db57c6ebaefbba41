/**
 * decomposition: the original request, the parts it asks for, which spans worked on
 * each part, and whether the trace resolved it. A part is matched to spans through
 * its distinctive content words (words the other parts do not share), so "book a
 * hotel" is credited to book_hotel and not to search_flights; with the local sentence
 * model also by meaning (`semanticDecomposition`): a span or an answer sentence that
 * is close to a part, and closer to it than to any other part, addresses it, so
 * "how much it costs" meets a tool result about pricing.
 */
import type { Embedder } from '../semantic/types.js'
import { similarityMatrix } from '../semantic/similarity.js'
import type { Decomposition, SubTask } from '../outputs.js'
import type { TraceView, ViewSpan } from '../trace-view.js'
import { attrText, completionText, contentWords, overlap, sentences, wordSet } from './text.js'
import { splitSubTasks } from './split.js'
import { parseJson } from '@svc/shared/json-limits'

export { splitSubTasks } from './split.js'

const ROLE_LINE = /^(system|user|human|assistant|ai|model|tool|function|developer): ?(.*)$/i

/** The first user message in a "role: text" prompt; a message runs until the next role line. */
function firstUserMessage(prompt: string): string {
  const lines = prompt.split('\n')
  let out: string[] | null = null
  for (const line of lines) {
    const m = ROLE_LINE.exec(line)
    if (m) {
      if (out) break
      if (/^(user|human)$/i.test(m[1]!)) out = [m[2]!]
    } else if (out) out.push(line)
  }
  return out ? out.join('\n').trim() : ''
}

/** The input a root/agent span carries: plain text, or the longest string in its JSON input. */
function spanInput(s: ViewSpan): string {
  for (const key of ['input.value', 'traceloop.entity.input', 'gen_ai.agent.input']) {
    const raw = s.attributes[key]
    if (!raw) continue
    const j = parseJson(raw)
    if (j === undefined || typeof j === 'string') return String(j ?? raw).trim()
    const strings: string[] = []
    const walk = (v: unknown) => {
      if (typeof v === 'string') strings.push(v)
      else if (v && typeof v === 'object') Object.values(v).forEach(walk)
    }
    walk(j)
    const longest = strings.sort((a, b) => b.length - a.length)[0]
    if (longest) return longest.trim()
  }
  return firstUserMessage(s.content.prompt) || ''
}

/** The first user message of the trace: in the earliest LLM prompt, else the root or agent span's input. */
export function originalQuery(view: TraceView): { text: string; span_id: string } | null {
  for (const s of view.spans) {
    if (s.span_type !== 'llm' || !s.content.prompt) continue
    const text = firstUserMessage(s.content.prompt)
    if (text) return { text, span_id: s.span_id }
  }
  const roots = view.spans.filter((s) => s.parent_span_id === null || s.span_type === 'agent' || s.span_type === 'chain')
  for (const s of roots) {
    const text = spanInput(s)
    if (text) return { text, span_id: s.span_id }
  }
  return null
}

const FAILURE = /\b(could ?n[o'’]?t|can ?n[o'’]?t|cannot|unable|not able|was ?n[o'’]?t able|failed|did ?n[o'’]?t (?:find|manage|work)|no (?:information|data|results?)|do ?n[o'’]?t have|not available|sorry)\b/i

/** What a span did, as text: tool name, arguments and result; documents; a completion (never the prompt, which repeats the request). */
function workText(s: ViewSpan): string {
  const a = s.attributes
  const parts: string[] = []
  if (s.span_type === 'llm') parts.push(completionText(s))
  else if (s.span_type === 'tool') {
    parts.push(s.content.toolCalls.map((t) => `${t.name} ${attrText(t.arguments)}`).join(' '), a['traceloop.entity.name'] ?? '')
    for (const k of ['gen_ai.tool.call.result', 'output.value', 'traceloop.entity.input', 'traceloop.entity.output']) parts.push(attrText(a[k]))
  } else if (s.span_type === 'retrieval') {
    parts.push(attrText(a['input.value']), a['gen_ai.retrieval.query.text'] ?? '')
    for (const d of s.content.documents) parts.push(d.content, d.url.replace(/[/:.\-_]+/g, ' '))
  }
  return parts.filter(Boolean).join('\n')
}

function toolName(s: ViewSpan): string {
  return s.content.toolCalls[0]?.name || s.attributes['traceloop.entity.name'] || (s.span_type === 'tool' ? s.name : '')
}

/** The answer the user saw: the root span's output, else the last LLM completion. */
export function finalAnswer(view: TraceView): { text: string; span_id: string } | null {
  const root = view.spans.find((s) => s.parent_span_id === null)
  const rootOut = root ? attrText(root.attributes['output.value'] ?? root.attributes['traceloop.entity.output']) : ''
  if (root && rootOut.trim()) return { text: rootOut, span_id: root.span_id }
  const llm = view.spans.filter((s) => s.span_type === 'llm' && completionText(s) && s.status_code !== 'ERROR')
  const last = llm.sort((a, b) => a.end_ms - b.end_ms)[llm.length - 1]
  return last ? { text: completionText(last), span_id: last.span_id } : null
}

/** Words of each part that the other parts do not share (the part's own words when it has none). */
function distinctive(subTasks: string[]): string[][] {
  const sets = subTasks.map((t) => {
    const all = contentWords(t)
    // Request verbs ("explain", "tell") are rarely echoed by the work; the objects are.
    const objects = all.filter((w) => !REQUEST_VERB.has(w))
    return [...new Set(objects.length ? objects : all)]
  })
  return sets.map((ws, i) => {
    const others = new Set(sets.flatMap((o, j) => (j === i ? [] : o)))
    const own = ws.filter((w) => !others.has(w))
    return own.length ? own : ws
  })
}
const REQUEST_VERB = new Set(['explain', 'describ', 'summariz', 'summaris', 'list', 'find', 'tell', 'show', 'give', 'provid', 'draft', 'writ', 'compar', 'check', 'recommend', 'look', 'search'])

const ADDRESS = 0.5
/** With the sentence model: cosine at which a work span, or an answer sentence, is about a part (when no other part is closer). */
const MEANING_SPAN = 0.6
const MEANING_ANSWER = 0.6

/** The work spans (tool, retrieval, LLM) with what they did as text. */
function workSpans(view: TraceView) {
  return view.spans
    .filter((s) => s.span_type === 'llm' || s.span_type === 'tool' || s.span_type === 'retrieval')
    .map((s) => ({ s, text: workText(s) }))
}

/** Sentence-model cosines: part × work span and part × answer sentence (same orders as addressSubTasks builds them). */
export interface Meaning {
  spans: number[][]
  answer: number[][]
}

/** True when row `i` of `m` is at least `floor` in column `j` and no other row is higher there. */
const closest = (m: number[][], i: number, j: number, floor: number) => m[i]![j]! >= floor && m.every((row, r) => r === i || row[j]! <= m[i]![j]!)

export function addressSubTasks(view: TraceView, subTasks: string[], meaning?: Meaning): SubTask[] {
  const keys = distinctive(subTasks)
  const answer = finalAnswer(view)
  const answerSentences = answer ? sentences(answer.text).map((s) => ({ words: wordSet(s), failed: FAILURE.test(s) })) : []
  const work = workSpans(view).map((w) => ({ s: w.s, words: wordSet(w.text), tool: new Set(contentWords(toolName(w.s))) }))
  return subTasks.map((text, i) => {
    const k = keys[i]!
    const spanIds: string[] = []
    let resolvedBySpan = false
    let failedWork = false
    let doneWork = false
    for (const [j, w] of work.entries()) {
      const score = overlap(k, w.words)
      const namedFor = w.s.span_type === 'tool' && k.some((x) => w.tool.has(x))
      const meant = meaning !== undefined && closest(meaning.spans, i, j, MEANING_SPAN)
      if (score < ADDRESS && !namedFor && !meant) continue
      spanIds.push(w.s.span_id)
      if (w.s.span_type !== 'llm') {
        if (w.s.status_code === 'ERROR') failedWork = true
        else doneWork = true
      }
      // A successful tool or retrieval whose own content covers the part resolves it; an LLM span only through the final answer.
      if (w.s.span_type !== 'llm' && w.s.status_code !== 'ERROR' && (score >= ADDRESS || meant)) resolvedBySpan = true
    }
    const said = new Set<string>()
    const refused = new Set<string>()
    for (const s of answerSentences) for (const x of k) if (s.words.has(x)) (s.failed ? refused : said).add(x)
    const meantIn = (failed: boolean) => meaning !== undefined && answerSentences.some((s, j) => s.failed === failed && closest(meaning.answer, i, j, MEANING_ANSWER))
    const answered = overlap(k, said) >= ADDRESS || meantIn(false)
    // The answer says it could not do this part: no tool success outweighs that.
    const admittedFailure = (overlap(k, refused) >= ADDRESS || meantIn(true)) && !answered
    let resolved = !admittedFailure && (answered || resolvedBySpan)
    // One request and a substantive answer that does not report a failure: the answer is to that request, worded or not.
    if (subTasks.length === 1 && answer && answer.text.trim() && !FAILURE.test(answer.text)) resolved = true
    // Every tool or retrieval that worked on this part failed: an answer to it is not the work done.
    if (failedWork && !doneWork) resolved = false
    if (answered && answer && !spanIds.includes(answer.span_id)) spanIds.push(answer.span_id)
    return { id: `t${i + 1}`, text, resolved, span_ids: spanIds }
  })
}

function result(view: TraceView, query: string, subTasks: SubTask[]): Decomposition {
  const resolved = subTasks.filter((t) => t.resolved).length
  return {
    trace_id: view.trace_id,
    original_query: query,
    sub_tasks: subTasks,
    coverage: subTasks.length ? Math.round((resolved / subTasks.length) * 10000) / 10000 : 1,
  }
}

/** The lexical decomposition (the fallback without the sentence model). */
export function decomposition(view: TraceView): Decomposition {
  const q = originalQuery(view)
  return result(view, q?.text ?? '', q ? addressSubTasks(view, splitSubTasks(q.text)) : [])
}

/** Characters of a span's work the sentence model reads: its opening says what it is about, and the model's cost grows with length. */
const MEANING_CHARS = 600
/**
 * Work spans and answer sentences the sentence model reads, at most (the first ones; the rest are matched by
 * their words only): what one trace costs to embed stays bounded however many spans or sentences it has.
 */
const MEANING_SPANS = 200
const MEANING_SENTENCES = 200

/**
 * The decomposition with the sentence model: words first, meaning only when the
 * words left a part without any span or unresolved (the model is the costly part of
 * the engine, and most parts are matched by their words), in one embedding call
 * per trace, cached by text.
 */
export async function semanticDecomposition(view: TraceView, embedder: Embedder): Promise<Decomposition> {
  const q = originalQuery(view)
  if (!q) return result(view, '', [])
  const parts = splitSubTasks(q.text)
  const lexical = addressSubTasks(view, parts)
  if (lexical.every((t) => t.resolved && t.span_ids.length > 0)) return result(view, q.text, lexical)
  const answer = finalAnswer(view)
  const answerSentences = answer ? sentences(answer.text).slice(0, MEANING_SENTENCES) : []
  const work = workSpans(view)
    .slice(0, MEANING_SPANS)
    .map((w) => w.text.slice(0, MEANING_CHARS))
  const m = await similarityMatrix(embedder, parts, [...work, ...answerSentences])
  // (spans and sentences past the bounds have no cosine: 0, as an unrelated text's)
  const meaning = { spans: m.map((row) => row.slice(0, work.length)), answer: m.map((row) => row.slice(work.length)) }
  return result(view, q.text, addressSubTasks(view, parts, meaning))
}
