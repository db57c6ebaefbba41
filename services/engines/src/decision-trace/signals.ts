/**
 * What a span says about the choices around it, read from the three conventions'
 * attributes: the tools offered to a model, the tool calls it asked for, the name
 * of an executed tool. genai-content.ts exposes executed tool calls only, so the
 * offered lists and requested calls are read here from the raw attributes.
 */
import type { ViewSpan } from '../trace-view.js'
import { parseJson } from '@svc/shared/json-limits'

const nameOf = (t: unknown): string => {
  if (typeof t === 'string') return t
  if (!t || typeof t !== 'object') return ''
  const o = t as { name?: unknown; function?: { name?: unknown }; tool?: { name?: unknown } }
  return String(o.name ?? o.function?.name ?? o.tool?.name ?? '')
}

/** Tools offered to the model in this request (OTel gen_ai.request.tools, OpenInference llm.tools, OpenLLMetry llm.request.functions). */
export function offeredTools(s: ViewSpan): string[] {
  const a = s.attributes
  const out: string[] = []
  for (const key of ['gen_ai.request.tools', 'gen_ai.tool.definitions', 'llm.tools', 'llm.request.functions']) {
    const v = parseJson(a[key])
    if (Array.isArray(v)) out.push(...v.map(nameOf))
  }
  const indexed: Array<[number, string]> = []
  for (const [k, v] of Object.entries(a)) {
    let m = /^llm\.tools\.(\d+)\.tool\.(json_schema|name)$/.exec(k)
    if (m) indexed.push([Number(m[1]), m[2] === 'name' ? v : nameOf(parseJson(v))])
    m = /^llm\.request\.functions\.(\d+)\.name$/.exec(k)
    if (m) indexed.push([Number(m[1]), v])
  }
  out.push(...indexed.sort((x, y) => x[0] - y[0]).map(([, n]) => n))
  return [...new Set(out.filter(Boolean))]
}

const requested = new WeakMap<ViewSpan, Array<{ name: string; arguments: string }>>()
/** Tool calls the model asked for in its response (read once per span: the engines ask it of every earlier call for every tool span). */
export function requestedTools(s: ViewSpan): Array<{ name: string; arguments: string }> {
  let hit = requested.get(s)
  if (!hit) requested.set(s, (hit = readRequestedTools(s)))
  return hit
}

function readRequestedTools(s: ViewSpan): Array<{ name: string; arguments: string }> {
  const a = s.attributes
  const out: Array<{ name: string; arguments: string }> = []
  const msgs = parseJson(a['gen_ai.output.messages'])
  if (Array.isArray(msgs))
    for (const m of msgs)
      for (const p of Array.isArray(m?.parts) ? m.parts : [])
        if (p?.type === 'tool_call' || p?.type === 'function_call') {
          const name = nameOf(p)
          const args = p.arguments ?? p.function?.arguments ?? ''
          if (name) out.push({ name, arguments: typeof args === 'string' ? args : JSON.stringify(args) })
        }
  const indexed: Array<[string, { name: string; arguments: string }]> = []
  for (const [k, v] of Object.entries(a)) {
    let m = /^gen_ai\.completion\.(\d+)\.tool_calls\.(\d+)\.name$/.exec(k)
    if (m) indexed.push([`${m[1]}.${m[2]}`, { name: v, arguments: a[`gen_ai.completion.${m[1]}.tool_calls.${m[2]}.arguments`] ?? '' }])
    m = /^llm\.output_messages\.(\d+)\.message\.tool_calls\.(\d+)\.tool_call\.function\.name$/.exec(k)
    if (m) indexed.push([`${m[1]}.${m[2]}`, { name: v, arguments: a[`llm.output_messages.${m[1]}.message.tool_calls.${m[2]}.tool_call.function.arguments`] ?? '' }])
  }
  out.push(...indexed.sort((x, y) => (x[0] < y[0] ? -1 : 1)).map(([, c]) => c))
  return out
}

/** The executed tool's name: OTel/OpenInference tool name, OpenLLMetry entity name, else the span name. */
export function toolName(s: ViewSpan): string {
  return s.content.toolCalls[0]?.name || s.attributes['traceloop.entity.name'] || s.name.replace(/\.tool$/, '').replace(/^execute_tool\s+/, '')
}

/** The options a classification prompt enumerates ("one of: a, b, c", "answer yes or no", "as x, y or z"). */
export function promptOptions(prompt: string): string[][] {
  const lists: string[][] = []
  const patterns = [
    /\bone of[:\s]+([^.\n]+)/gi,
    /\b(?:answer|reply|respond|return|output)(?: with)?(?: only)?(?: either)?[:\s]+([\w\s,/'-]+?\bor\b[\w\s/'-]+?)(?=[.\n]|$)/gi,
    /\bas (?:either )?([\w-]+(?:, [\w-]+)*,? or [\w-]+)/gi,
  ]
  for (const re of patterns)
    for (let m; (m = re.exec(prompt)); ) {
      const opts = m[1]!.split(/\s*(?:,|\/|\bor\b)\s*/i).map((o) => o.trim().toLowerCase().replace(/^(?:either|and)\s+/, '').replace(/[."']/g, '')).filter((o) => o && o.split(/\s+/).length <= 3)
      if (opts.length >= 2) lists.push(opts)
    }
  return lists
}
