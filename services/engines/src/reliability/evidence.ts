/**
 * What a trace's answer can be checked against: the final answer itself, and the
 * evidence the agent had before giving it (retrieved documents, tool results, and
 * the non-assistant messages it was prompted with). The model's own earlier
 * completions are not evidence: a claim does not back itself.
 */
import type { TraceView, ViewSpan } from '../trace-view.js'
import { normalizeWs, urlsIn } from './text.js'

export interface Evidence {
  span_id: string
  text: string
  /** Document URL or id, web result URL, `tool:<name>`, or a URL heading a pasted context block. */
  source: string | null
  kind: 'document' | 'tool_result' | 'message'
}

const ROLE_LINE = /^(system|user|human|assistant|ai|model|tool|function|developer|ipython): ?(.*)$/i
const MODEL_ROLES = new Set(['assistant', 'ai', 'model'])

const parseJson = (s: string): unknown => {
  try {
    return JSON.parse(s)
  } catch {
    return undefined
  }
}

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

export function finalOutput(view: TraceView): { text: string; span_id: string } | null {
  let best: ViewSpan | null = null
  for (const s of view.spans)
    if (s.span_type === 'llm' && stripRole(s.content.completion) && (!best || s.end_ms >= best.end_ms)) best = s
  if (best) return { text: stripRole(best.content.completion), span_id: best.span_id }
  // No LLM span produced text: the root (agent, workflow, chain) may still record the answer.
  const ids = new Set(view.spans.map((s) => s.span_id))
  const roots = view.spans.filter((s) => !s.parent_span_id || !ids.has(s.parent_span_id))
  const latest = [...view.spans].sort((a, b) => b.end_ms - a.end_ms)
  for (const s of [...roots, ...latest.filter((s) => s.span_type === 'agent' || s.span_type === 'chain')]) {
    const text = stripRole(s.content.completion) || outputText(s.attributes['traceloop.entity.output']).trim()
    if (text) return { text, span_id: s.span_id }
  }
  return null
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
  if (!result) return []
  const parsed = parseJson(result)
  const items = webItems(parsed)
  if (items) return items.map((i) => ({ span_id: s.span_id, text: i.text, source: i.url, kind: 'tool_result' as const }))
  const name = call?.name || s.attributes['traceloop.entity.name'] || s.name
  const args = call?.arguments ?? ''
  // A fetch-style tool's source is the page it read; otherwise the tool itself.
  const url = urlsIn(args)[0] ?? null
  // The arguments say what the result is about (which customer, which dates).
  return [{ span_id: s.span_id, text: `${name} ${args}\n${result}`, source: url ?? `tool:${name}`, kind: 'tool_result' }]
}

/** A message's paragraphs; one headed by a URL is context pasted from that source. */
function messageEvidence(spanId: string, text: string): Evidence[] {
  return text
    .split(/\n\s*\n/)
    .filter((p) => p.trim())
    .map((p) => ({ span_id: spanId, text: p.trim(), source: urlsIn(p)[0] ?? null, kind: 'message' as const }))
}

export function evidenceOf(view: TraceView): Evidence[] {
  const out: Evidence[] = []
  const seen = new Set<string>()
  const add = (e: Evidence) => {
    const key = normalizeWs(e.text)
    if (!key || seen.has(key)) return
    seen.add(key)
    out.push(e)
  }
  for (const s of view.spans) {
    for (const d of s.content.documents)
      if (d.content.trim()) add({ span_id: s.span_id, text: d.content, source: d.url || d.id || null, kind: 'document' })
    if (s.span_type === 'tool' || s.content.toolCalls.length) {
      const call = s.content.toolCalls[0]
      const raw = call?.result || (s.span_type === 'tool' ? s.content.completion : '')
      // The same result fed back to the model as a tool message is not new evidence.
      if (raw) seen.add(normalizeWs(raw))
      toolEvidence(s).forEach(add)
    }
  }
  for (const s of view.spans) {
    if (s.span_type === 'tool' || s.span_type === 'retrieval') continue
    const prompt = s.content.prompt || outputText(s.attributes['traceloop.entity.input'])
    for (const m of promptMessages(prompt)) if (!MODEL_ROLES.has(m.role)) messageEvidence(s.span_id, m.text).forEach(add)
  }
  return out
}
