/**
 * The text and structure of a span's LLM work, for the engines (not the hot path):
 * prompt and completion text, tool calls and retrieved documents, read from the
 * same three conventions as genai.ts. Message lists become "role: text" lines.
 */
import { parseJson } from '../json-limits.js'

export interface RetrievedDocument {
  id: string
  url: string
  content: string
  score: number | null
}

export interface GenAiContent {
  prompt: string
  completion: string
  /** result: what the tool returned, present only when the span records it. */
  toolCalls: Array<{ name: string; arguments: string; result?: string }>
  documents: RetrievedDocument[]
}

const parse = (s: string | undefined): unknown => parseJson(s, s)

/** A message part's text; a tool call's response counts, so tool results fed back to the model stay visible. */
function partText(part: unknown): string {
  const p = part as { content?: unknown; text?: unknown; type?: unknown; response?: unknown } | null | undefined
  if (typeof p?.content === 'string') return p.content
  if (typeof p?.text === 'string') return p.text
  if (p?.type === 'tool_call_response' && p.response !== undefined) return typeof p.response === 'string' ? p.response : JSON.stringify(p.response)
  return ''
}

/** Text of an OTel GenAI message list ([{role, parts:[{type:'text', content}]}] or [{role, content}]), or of a plain string. */
function messagesText(v: unknown): string {
  if (typeof v === 'string') return v
  if (!Array.isArray(v)) return ''
  return v
    .map((message: unknown) => {
      const m = message as { role?: unknown; parts?: unknown; content?: unknown } | null | undefined
      const role = typeof m?.role === 'string' ? m.role : ''
      const text = Array.isArray(m?.parts)
        ? m.parts.map(partText).filter(Boolean).join('\n')
        : typeof m?.content === 'string'
          ? m.content
          : ''
      return text ? (role ? `${role}: ${text}` : text) : ''
    })
    .filter(Boolean)
    .join('\n')
}

const numberedPatterns = new Map<string, RegExp>()

/**
 * Numbered attributes prefix.N.suffix, in N order. Called up to four times per
 * span for every span of every trace an engine reads, so the pattern is built once
 * and a key that does not start with the prefix is passed over without it.
 */
function numbered(attrs: Record<string, string>, prefix: string, suffix: string, roleSuffix?: string): string {
  const out: Array<[number, string]> = []
  const head = `${prefix}.`
  const key = `${prefix} ${suffix}`
  let re = numberedPatterns.get(key)
  if (!re) numberedPatterns.set(key, (re = new RegExp(`^${prefix.replace(/\./g, '\\.')}\\.(\\d+)\\.${suffix.replace(/\./g, '\\.')}$`)))
  for (const k of Object.keys(attrs)) {
    if (!k.startsWith(head)) continue
    const v = attrs[k]
    const m = re.exec(k)
    if (!m || !v) continue
    const role = roleSuffix ? attrs[`${prefix}.${m[1]}.${roleSuffix}`] : undefined
    out.push([Number(m[1]), role ? `${role}: ${v}` : v])
  }
  return out.sort((a, b) => a[0] - b[0]).map(([, t]) => t).join('\n')
}

function documents(attrs: Record<string, string>): RetrievedDocument[] {
  const otel = parse(attrs['gen_ai.retrieval.documents'])
  if (Array.isArray(otel))
    return otel.map((doc: unknown, i) => {
      const d = doc as { id?: unknown; document_id?: unknown; url?: unknown; source?: unknown; metadata?: { url?: unknown }; content?: unknown; text?: unknown; score?: unknown } | null | undefined
      return {
        id: String(d?.id ?? d?.document_id ?? i),
        url: String(d?.url ?? d?.source ?? d?.metadata?.url ?? ''),
        content: String(d?.content ?? d?.text ?? ''),
        score: typeof d?.score === 'number' ? d.score : null,
      }
    })
  const byIndex = new Map<number, RetrievedDocument>()
  for (const [k, v] of Object.entries(attrs)) {
    const m = /^retrieval\.documents\.(\d+)\.document\.(id|content|score|metadata)$/.exec(k)
    if (!m) continue
    const d = byIndex.get(Number(m[1])) ?? { id: m[1]!, url: '', content: '', score: null }
    if (m[2] === 'id') d.id = v
    else if (m[2] === 'content') d.content = v
    else if (m[2] === 'score') d.score = Number.isFinite(Number(v)) ? Number(v) : null
    else {
      const meta = parse(v) as { url?: unknown; source?: unknown } | null | undefined
      d.url = String(meta?.url ?? meta?.source ?? '')
    }
    byIndex.set(Number(m[1]), d)
  }
  return [...byIndex.entries()].sort((a, b) => a[0] - b[0]).map(([, d]) => d)
}

export function genAiContent(attrs: Record<string, string>): GenAiContent {
  const prompt =
    messagesText(parse(attrs['gen_ai.input.messages'])) ||
    numbered(attrs, 'gen_ai.prompt', 'content', 'role') ||
    attrs['gen_ai.prompt'] ||
    numbered(attrs, 'llm.input_messages', 'message.content', 'message.role') ||
    attrs['input.value'] ||
    ''
  const completion =
    messagesText(parse(attrs['gen_ai.output.messages'])) ||
    numbered(attrs, 'gen_ai.completion', 'content') ||
    attrs['gen_ai.completion'] ||
    numbered(attrs, 'llm.output_messages', 'message.content') ||
    attrs['output.value'] ||
    ''
  // OpenLLMetry names a tool span only through its entity name.
  const traceloopTool = attrs['traceloop.span.kind'] === 'tool'
  const toolName = attrs['gen_ai.tool.name'] || attrs['tool.name'] || (traceloopTool ? attrs['traceloop.entity.name'] : '') || ''
  const isToolSpan = toolName !== '' || traceloopTool || (attrs['openinference.span.kind'] ?? '').toUpperCase() === 'TOOL'
  const result = isToolSpan
    ? attrs['gen_ai.tool.call.result'] || attrs['tool.output'] || attrs['traceloop.entity.output'] || attrs['output.value'] || ''
    : ''
  const args = attrs['gen_ai.tool.call.arguments'] || attrs['tool.parameters'] || (traceloopTool ? attrs['traceloop.entity.input'] : '') || ''
  const toolCalls = toolName ? [{ name: toolName, arguments: args, ...(result ? { result } : {}) }] : []
  return { prompt, completion, toolCalls, documents: documents(attrs) }
}
