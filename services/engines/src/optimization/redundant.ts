/**
 * redundant_tool_call: the same tool called again in one trace with the same
 * arguments and the same result. The repeat told the agent nothing new, so it and
 * the model turn that asked for it could have been skipped (a per-trace memo of
 * tool results would serve it).
 *
 * Savings: the repeat's own recorded cost (tools usually carry none) plus the
 * share of the LLM call that requested it, when that call came after the first
 * result was in: its price × (redundant calls it asked for / all calls it asked
 * for). The rationale gives the latency the repeat and that share added.
 * Failed calls are failing_retries' business, not this rule's.
 */
import type { PriceTable } from '@svc/shared/domain/pricing'
import { parseJson } from '@svc/shared/json-limits'
import type { OptimizationFinding } from '../outputs.js'
import type { TraceView, ViewSpan } from '../trace-view.js'
import { requestedTools, toolName } from '../decision-trace/signals.js'
import { priceSpan, usd } from './cost.js'

/** JSON compared by value (key order and spacing aside); other text by its trimmed form. */
function canonical(raw: string): string {
  const t = raw.trim()
  const v = parseJson(t)
  return v === undefined ? t.replace(/\s+/g, ' ') : JSON.stringify(sortKeys(v))
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys)
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]))
  return v
}

/** What the tool was called with: the recorded arguments, or an OpenInference TOOL span's input. */
const argumentsOf = (s: ViewSpan) => s.content.toolCalls[0]?.arguments || s.attributes['input.value'] || ''
const resultOf = (s: ViewSpan) => s.content.toolCalls[0]?.result || s.attributes['output.value'] || ''

export function redundantToolCalls(view: TraceView, prices: PriceTable): OptimizationFinding[] {
  const first = new Map<string, ViewSpan>()
  const out: OptimizationFinding[] = []
  const llms = view.spans.filter((s) => s.span_type === 'llm')
  for (const s of view.spans) {
    if (s.span_type !== 'tool' || s.status_code === 'ERROR') continue
    const result = resultOf(s)
    if (!result.trim()) continue
    const name = toolName(s)
    const key = `${name}\n${canonical(argumentsOf(s))}\n${canonical(result)}`
    const earlier = first.get(key)
    if (!earlier) {
      first.set(key, s)
      continue
    }
    // The model turn that asked for this repeat, if it came after the first result.
    const asker = llms.filter((l) => l.end_ms <= s.start_ms + 1 && l.start_ms >= earlier.end_ms - 1 && requestedTools(l).some((c) => c.name === name)).pop()
    const asked = asker ? requestedTools(asker) : []
    const share = asker ? asked.filter((c) => c.name === name).length / asked.length : 0
    const askerCost = asker ? (priceSpan(prices, asker) ?? 0) * share : 0
    const latency = s.duration_ms + (asker ? asker.duration_ms * share : 0)
    out.push({
      kind: 'redundant_tool_call',
      span_id: s.span_id,
      current_model: asker?.model ?? '',
      suggested_model: '',
      rationale:
        `${name} was called again with the same arguments and returned the same result as ${earlier.span_id}; reuse the first result` +
        `${asker ? ` (saves this call and ${share < 1 ? 'its share of ' : ''}the ${asker.model} turn that requested it` : ' (saves this call'}, about ${Math.round(latency)} ms)`,
      estimated_savings_usd: usd(s.cost_usd + askerCost),
      engine: 'correlation',
    })
  }
  return out
}
