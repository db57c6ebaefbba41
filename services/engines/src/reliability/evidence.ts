/**
 * What a trace's answer can be checked against: the answer the user saw, and the
 * evidence the agent had before giving it: retrieved documents, tool results, the
 * errors of tools that failed (evidence of what did not happen), and the facts of
 * system prompts and earlier assistant turns. Requests are never evidence: not the
 * user's messages (a claim echoing the question is not backed by it) and not the
 * arguments of tool calls (what the agent asked for, not what it got). The final
 * answer is not its own evidence, and nor are side calls made after it.
 */
import type { TraceView, ViewSpan } from '../trace-view.js'
import { parseJson } from '@svc/shared/json-limits'
import { normalizeWs, urlsIn } from './text.js'

export interface Evidence {
  span_id: string
  text: string
  /** Document URL or id, web result URL, `tool:<name>`, or a URL heading a pasted context block. */
  source: string | null
  /** message: a system prompt's facts or an earlier assistant turn; tool_error: what a failed tool call reported. */
  kind: 'document' | 'tool_result' | 'tool_error' | 'message'
  /** A failed call's tool name and arguments: what the error is about (never evidence of anything else). */
  about?: string
}

const ROLE_LINE = /^(system|user|human|assistant|ai|model|tool|function|developer|ipython): ?(.*)$/i
const MODEL_ROLES = new Set(['assistant', 'ai', 'model'])

/** String leaves of a JSON value (for OpenLLMetry's {"outputs": {...}} wrappers). */
function leaves(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v)
  else if (Array.isArray(v)) v.forEach((x) => leaves(x, out))
  else if (v && typeof v === 'object') Object.values(v).forEach((x) => leaves(x, out))
  return out
}

/** Text of a free-form output attribute: itself, or its longest string when it is JSON. */
function outputText(raw: string | undefined): string {
  if (!raw) return ''
  const j = parseJson(raw)
  if (j === undefined || typeof j === 'string') return typeof j === 'string' ? j : raw
  return leaves(j).sort((a, b) => b.length - a.length)[0] ?? ''
}

const stripRole = (s: string) => s.replace(/^(assistant|ai|model): ?/i, '').trim()

/** A completion that only asks for tools (OpenInference writes them as JSON text) says nothing to the user. */
const toolRequestOnly = (t: string) => /^\s*\{\s*"(?:tool_calls|function_call)"/.test(t)

/** What a span returned as text: its completion, or an OpenLLMetry entity output. */
function spanOutput(s: ViewSpan): string {
  const text = stripRole(s.content.completion) || outputText(s.attributes['traceloop.entity.output']).trim()
  return toolRequestOnly(text) ? '' : text
}

const words = (t: string) => new Set(t.toLowerCase().match(/[a-z0-9]+/g) ?? [])
/** Each span's prompt and output words, read once (every later call is compared with every earlier one). */
const promptWords = new WeakMap<ViewSpan, Set<string>>()
const outputWords = new WeakMap<ViewSpan, string[]>()

/**
 * A call made about the reply rather than to produce it (a title, tags, a guard or
 * summary check): it starts after another completion ended and its prompt carries
 * most of that completion's words.
 */
function isSideCall(s: ViewSpan, earlier: ViewSpan[]): boolean {
  // Earlier replies in the history (assistant turns) are the conversation going on, not a side call.
  let prompt = promptWords.get(s)
  if (!prompt) promptWords.set(s, (prompt = words(promptMessages(s.content.prompt).filter((m) => !MODEL_ROLES.has(m.role)).map((m) => m.text).join('\n'))))
  return earlier.some((e) => {
    if (e.end_ms > s.start_ms + 1) return false
    if (e === s) return false
    let w = outputWords.get(e)
    if (!w) outputWords.set(e, (w = [...words(spanOutput(e))]))
    return w.length >= 5 && w.filter((x) => prompt!.has(x)).length >= 0.8 * w.length
  })
}

/**
 * The answer the user saw: the root's output (an agent, workflow or chain returns
 * the reply), else the latest agent/chain output, else the main thread's last
 * completion. Side calls after the reply (titles, tags, guard checks) are never it.
 */
export function finalOutput(view: TraceView): { text: string; span_id: string } | null {
  const ids = new Set(view.spans.map((s) => s.span_id))
  const roots = view.spans.filter((s) => !s.parent_span_id || !ids.has(s.parent_span_id))
  for (const r of roots) {
    const text = spanOutput(r)
    if (text && r.span_type !== 'llm') return { text, span_id: r.span_id }
  }
  const byEnd = [...view.spans].sort((a, b) => b.end_ms - a.end_ms)
  const agent = byEnd.find((s) => (s.span_type === 'agent' || s.span_type === 'chain') && spanOutput(s))
  if (agent) return { text: spanOutput(agent), span_id: agent.span_id }
  const llms = view.spans.filter((s) => s.span_type === 'llm' && spanOutput(s))
  const main = llms.sort((a, b) => b.end_ms - a.end_ms).find((s) => !isSideCall(s, llms))
  if (main) return { text: spanOutput(main), span_id: main.span_id }
  const root = roots.find((r) => spanOutput(r))
  return root ? { text: spanOutput(root), span_id: root.span_id } : null
}

/** Role-tagged messages of a prompt ("role: text" lines; untagged lines continue the message above). */
export function promptMessages(prompt: string): Array<{ role: string; text: string }> {
  const out: Array<{ role: string; text: string }> = []
  for (const line of prompt.split('\n')) {
    const m = ROLE_LINE.exec(line)
    if (m) out.push({ role: m[1]!.toLowerCase(), text: m[2]! })
    else if (out.length) out[out.length - 1]!.text += '\n' + line
    else out.push({ role: 'user', text: line })
  }
  return out.filter((m) => m.text.trim())
}

/** Web results arrive as lists of {url, title, snippet}: each item is its own piece of evidence. */
function webItems(result: unknown): Array<{ url: string; text: string }> | null {
  const list = Array.isArray(result)
    ? result
    : result && typeof result === 'object'
      ? ['results', 'items', 'organic', 'organic_results', 'documents', 'sources'].map((k) => (result as Record<string, unknown>)[k]).find(Array.isArray)
      : undefined
  if (!Array.isArray(list) || !list.length) return null
  const items = list
    .filter((i): i is Record<string, unknown> => i && typeof i === 'object' && typeof (i.url ?? i.link ?? i.href) === 'string')
    .map((i) => ({ url: String(i.url ?? i.link ?? i.href), text: leaves({ ...i, url: undefined, link: undefined, href: undefined }).join('. ') }))
  return items.length ? items : null
}

function toolEvidence(s: ViewSpan): Evidence[] {
  const call = s.content.toolCalls[0]
  const result = call?.result || (s.span_type === 'tool' ? s.content.completion : '')
  const name = call?.name || s.attributes['traceloop.entity.name'] || s.name
  const args = call?.arguments || s.attributes['input.value'] || ''
  if (s.status_code === 'ERROR') {
    // A failed call is evidence of what did not happen, and of nothing else.
    const error = [s.status_message, s.attributes['exception.message'], s.attributes['error.type'], result].filter(Boolean).join('. ')
    return [{ span_id: s.span_id, text: error || 'the call failed', source: `tool:${name}`, kind: 'tool_error', about: `${name.replace(/[_.-]+/g, ' ')} ${args}` }]
  }
  if (!result) return []
  const parsed = parseJson(result)
  const items = webItems(parsed)
  if (items) return items.map((i) => ({ span_id: s.span_id, text: i.text, source: i.url, kind: 'tool_result' as const }))
  // A fetch-style tool's source is the page it read; otherwise the tool itself. The
  // arguments are what the agent asked for, not what it got: they are no evidence.
  const url = urlsIn(args)[0] ?? null
  const out: Evidence[] = [{ span_id: s.span_id, text: result, source: url ?? `tool:${name}`, kind: 'tool_result' }]
  // An action the result turned down ("status": "rejected") did not happen, as if the call had failed. A lookup's
  // status is what it found ("get_claim": "denied" is the claim's state), not a refusal of the call.
  const refusal = LOOKUP.test(name) ? null : refused(parsed)
  if (refusal) out.push({ span_id: s.span_id, text: refusal, source: `tool:${name}`, kind: 'tool_error', about: `${name.replace(/[_.-]+/g, ' ')} ${args}` })
  return out
}

const REFUSED = /^(?:declined|rejected|refused|denied|failed|not_allowed|blocked)$/i
/** Tools that read rather than act. */
const LOOKUP = /^(?:get|list|search|fetch|find|read|query|lookup|look_up|check|scan|track|describe|show|view|compute|calc|calculate|tabulate|run_sql|retrieve)(?:[_.-]|$)/i

/** "declined: card_expired" for a result whose status says the action was turned down; null otherwise. */
function refused(result: unknown): string | null {
  if (!result || typeof result !== 'object' || Array.isArray(result)) return null
  const r = result as Record<string, unknown>
  const status = [r.status, r.state, r.result, r.outcome].find((v) => typeof v === 'string' && REFUSED.test(v)) as string | undefined
  if (!status) return null
  const why = [r.reason, r.message, r.error, r.detail].filter((v) => typeof v === 'string').join('. ')
  return `${status}${why ? `: ${why.replace(/_/g, ' ')}` : ''}`
}

/** Documents an OpenLLMetry retrieval task returned as its entity output ([{id, url, page_content}]). */
function taskDocuments(s: ViewSpan): Evidence[] {
  const out = parseJson(s.attributes['traceloop.entity.output'] ?? '')
  if (!Array.isArray(out)) return []
  return out
    .filter((d): d is Record<string, unknown> => Boolean(d) && typeof d === 'object')
    .map((d) => {
      const meta = (d.metadata && typeof d.metadata === 'object' ? d.metadata : {}) as Record<string, unknown>
      const text = [d.page_content, d.content, d.text].find((x) => typeof x === 'string') as string | undefined
      const source = [d.url, meta.url, meta.source, d.source, d.id].find((x) => typeof x === 'string' && x) as string | undefined
      return { span_id: s.span_id, text: text ?? '', source: source ?? null, kind: 'document' as const }
    })
    .filter((d) => d.text.trim())
}

/** A message's paragraphs; one headed by a URL is context pasted from that source. */
function messageEvidence(spanId: string, text: string): Evidence[] {
  return text
    .split(/\n\s*\n/)
    .filter((p) => p.trim())
    .map((p) => ({ span_id: spanId, text: p.trim(), source: urlsIn(p)[0] ?? null, kind: 'message' as const }))
}

/**
 * Context a RAG template pastes into the user's message ("Context: … Question: …",
 * <context>…</context>, a block headed by a URL) is retrieved material, not the
 * user's words: it is evidence; the rest of the message is the request.
 */
const CONTEXT_BLOCK = /(?:^|\n)\s*(?:#+\s*)?(?:context|documents?|sources?|retrieved (?:documents|passages|context)|knowledge base|reference(?: material)?|background(?: information)?)\s*:?[ \t]*\n([\s\S]*?)(?=\n\s*(?:#+\s*)?(?:question|query|user question|task|q)\s*:|$)|<(context|documents?)>([\s\S]*?)<\/\2>/gi

export function pastedContext(text: string): string[] {
  const out: string[] = []
  for (const m of text.matchAll(CONTEXT_BLOCK)) out.push((m[1] ?? m[3] ?? '').trim())
  for (const p of text.split(/\n\s*\n/)) if (/^\s*(?:\[[^\]]*\]\s*)?\(?https?:\/\//.test(p)) out.push(p.trim())
  return out.filter(Boolean)
}

/** Roles whose messages state facts the agent was given: system prompts, and tool messages without a tool span. */
const FACT_ROLES = new Set(['system', 'developer', 'tool', 'function', 'ipython'])

/** What makes two pieces of evidence the same: the same JSON value (however its numbers are written), or the same text. */
function evidenceKey(text: string): string {
  const t = text.trim()
  if (/^[[{]/.test(t)) {
    const j = parseJson(t)
    if (j !== undefined) return JSON.stringify(j)
  }
  return normalizeWs(text)
}

export function evidenceOf(view: TraceView): Evidence[] {
  const out: Evidence[] = []
  const seen = new Set<string>()
  const answer = finalOutput(view)
  const add = (e: Evidence) => {
    const key = evidenceKey(e.text)
    // A tool error echoed back to the model ("Error: …") is the same error.
    if (!key || seen.has(key) || (e.kind === 'message' && /^error:/.test(key) && seen.has(key.replace(/^error:\s*/, '')))) return
    // Context pasted into a prompt repeats a document already read: the document counts.
    if (e.kind === 'message' && out.some((d) => d.kind === 'document' && d.text.length > 40 && key.includes(normalizeWs(d.text)))) return
    seen.add(key)
    out.push(e)
  }
  for (const s of view.spans) {
    for (const d of s.content.documents)
      if (d.content.trim()) add({ span_id: s.span_id, text: d.content, source: d.url || d.id || null, kind: 'document' })
    if (s.span_type !== 'tool' && s.span_type !== 'llm' && !s.content.documents.length) taskDocuments(s).forEach(add)
    if (s.span_type === 'tool' || s.content.toolCalls.length) {
      const call = s.content.toolCalls[0]
      const raw = call?.result || (s.span_type === 'tool' ? s.content.completion : '')
      toolEvidence(s).forEach(add)
      // The same result fed back to the model as a tool message is not new evidence.
      if (raw) seen.add(evidenceKey(raw))
      if (s.status_code === 'ERROR') for (const e of toolEvidence(s)) seen.add(evidenceKey(e.text).split('. ')[0]!)
    }
  }
  const answerKey = answer ? normalizeWs(answer.text) : ''
  for (const s of view.spans) {
    if (s.span_type === 'tool' || s.span_type === 'retrieval') continue
    // Only calls that ran before the answer was given: a side call after it is no evidence.
    const answerSpan = answer ? view.spans.find((x) => x.span_id === answer.span_id) : undefined
    if (answerSpan && s.start_ms > answerSpan.end_ms) continue
    const prompt = s.content.prompt || outputText(s.attributes['traceloop.entity.input'])
    for (const m of promptMessages(prompt)) {
      // Earlier assistant turns state facts too; the answer itself does not back itself.
      const prior = MODEL_ROLES.has(m.role) && normalizeWs(m.text) !== answerKey && !answerKey.includes(normalizeWs(m.text))
      if (FACT_ROLES.has(m.role) || prior) messageEvidence(s.span_id, m.text).forEach(add)
      else if (m.role === 'user' || m.role === 'human') for (const block of pastedContext(m.text)) messageEvidence(s.span_id, block).forEach((e) => add({ ...e, kind: 'document' }))
    }
  }
  return out
}
