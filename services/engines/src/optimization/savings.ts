/**
 * savings: per-span model right-sizing. A call is "short and simple" when it sends
 * a small prompt, gets a short answer and neither offers nor calls tools (tool
 * routing is where larger models earn their price). For such a call, the cheapest
 * chat model of the same provider is priced for the same tokens; when the current
 * model costs at least DOWNGRADE_RATIO times as much, the difference is the saving.
 */
import type { PriceTable } from '@svc/shared/domain/pricing'
import type { OptimizationFinding } from '../outputs.js'
import type { TraceView } from '../trace-view.js'
import { offeredTools, requestedTools } from '../decision-trace/signals.js'
import { chatModels, priceSpan, usd } from './cost.js'

export const SHORT_OUTPUT_TOKENS = 64
export const SMALL_INPUT_TOKENS = 2000
/** Below this ratio a switch is not worth the quality risk. */
export const DOWNGRADE_RATIO = 3

export function savingsFindings(view: TraceView, prices: PriceTable): OptimizationFinding[] {
  const out: OptimizationFinding[] = []
  for (const s of view.spans) {
    if (s.span_type !== 'llm' || s.status_code === 'ERROR' || !s.model) continue
    if (s.input_tokens <= 0 || s.input_tokens > SMALL_INPUT_TOKENS || s.output_tokens > SHORT_OUTPUT_TOKENS) continue
    if (offeredTools(s).length || requestedTools(s).length) continue
    const current = priceSpan(prices, s)
    if (current === null || current <= 0) continue
    let best: { model: string; cost: number } | null = null
    for (const m of chatModels(prices, s.provider, s.start_ms)) {
      const c = priceSpan(prices, s, m)
      if (c !== null && (best === null || c < best.cost)) best = { model: m, cost: c }
    }
    if (!best || best.cost * DOWNGRADE_RATIO > current) continue
    out.push({
      kind: 'model_downgrade',
      span_id: s.span_id,
      current_model: s.model,
      suggested_model: best.model,
      rationale:
        `${s.model} handled a short call (${s.input_tokens} input, ${s.output_tokens} output tokens, no tools); ` +
        `${best.model} of the same provider costs $${usd(best.cost)} instead of $${usd(current)} for the same tokens (price table ${prices.version})`,
      estimated_savings_usd: usd(current - best.cost),
      engine: 'savings',
    })
  }
  return out
}
