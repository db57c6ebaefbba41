/**
 * correlation: patterns across spans of one trace.
 * - prompt_cache: an LLM call whose model and full prompt equal an earlier call
 *   that succeeded; a response cache would have served it at no model cost.
 * - failing_retries: a tool (or an identical LLM call) attempted again after
 *   failing, and failing every time; each repeat, and the LLM call that asked for
 *   it, bought nothing.
 * - oversized_context: a large prompt of which the answer visibly used a small
 *   share; the unused share of the input tokens is the saving.
 * - redundant_tool_call: a tool called again with the same arguments and result (redundant.ts).
 */
import type { PriceTable } from '@svc/shared/domain/pricing'
import { groupBy } from '@svc/shared/group-by'
import type { OptimizationFinding } from '../outputs.js'
import type { TraceView, ViewSpan } from '../trace-view.js'
import { requestedTools, toolName } from '../decision-trace/signals.js'
import { completionText, overlap, wordSet } from '../decomposition/text.js'
import { priceSpan, usd } from './cost.js'
import { redundantToolCalls } from './redundant.js'

export const OVERSIZED_MIN_INPUT_TOKENS = 4000
/** At most this share of the prompt used for a finding. */
export const OVERSIZED_MAX_USED_SHARE = 0.25
const MIN_CHUNKS = 4

const cost = (prices: PriceTable, s: ViewSpan) => (s.span_type === 'llm' ? priceSpan(prices, s) ?? 0 : 0)

function promptCache(view: TraceView, prices: PriceTable): OptimizationFinding[] {
  const out: OptimizationFinding[] = []
  const served = new Map<string, ViewSpan>()
  for (const s of view.spans) {
    if (s.span_type !== 'llm' || !s.model || s.content.prompt.trim().length < 20) continue
    const key = `${s.model}\n${s.content.prompt.trim()}`
    const first = served.get(key)
    if (first && first.end_ms <= s.start_ms + 1) {
      out.push({
        kind: 'prompt_cache', span_id: s.span_id, current_model: s.model, suggested_model: '',
        rationale: `the same prompt (${s.input_tokens} input tokens) was already answered by ${first.span_id} with ${first.model}; a response cache would serve this call`,
        estimated_savings_usd: usd(cost(prices, s)), engine: 'correlation',
      })
    } else if (!first && s.status_code !== 'ERROR' && completionText(s)) served.set(key, s)
  }
  return out
}

function failingRetries(view: TraceView, prices: PriceTable): OptimizationFinding[] {
  const groups = groupBy(view.spans, (s) => (s.span_type === 'tool' ? `tool:${toolName(s)}` : s.span_type === 'llm' && s.content.prompt ? `llm:${s.model}\n${s.content.prompt}` : undefined))
  const out: OptimizationFinding[] = []
  for (const attempts of groups.values()) {
    if (attempts.length < 2 || attempts.some((a) => a.status_code !== 'ERROR')) continue
    const messages = new Set(attempts.map((a) => a.status_message))
    const why = messages.size === 1 ? `every attempt failed with "${[...messages][0] || 'ERROR'}"` : `all ${attempts.length} attempts failed`
    for (const a of attempts.slice(1)) {
      // The LLM call that asked for this attempt is part of its price.
      const asker = a.span_type === 'tool'
        ? view.spans.filter((l) => l.span_type === 'llm' && l.end_ms <= a.start_ms + 1 && requestedTools(l).some((c) => c.name === toolName(a))).pop()
        : undefined
      const askerCost = asker && asker.start_ms > attempts[0]!.start_ms ? cost(prices, asker) : 0
      const name = a.span_type === 'tool' ? toolName(a) : a.model
      out.push({
        kind: 'failing_retries', span_id: a.span_id, current_model: a.span_type === 'llm' ? a.model : asker?.model ?? '', suggested_model: '',
        rationale: `${name} was retried although ${why}; stop after a non-transient error${askerCost ? ` (saves this attempt and the ${asker!.model} call that requested it)` : ''}`,
        estimated_savings_usd: usd(cost(prices, a) + askerCost), engine: 'correlation',
      })
    }
  }
  return out
}

/** Prompt chunks: paragraphs, or lines when the prompt has few paragraphs. */
function chunks(prompt: string): string[] {
  const paras = prompt.split(/\n\s*\n/).map((p) => p.trim()).filter(Boolean)
  return paras.length >= MIN_CHUNKS ? paras : prompt.split('\n').map((p) => p.trim()).filter(Boolean)
}

function oversizedContext(view: TraceView, prices: PriceTable): OptimizationFinding[] {
  const out: OptimizationFinding[] = []
  for (const s of view.spans) {
    if (s.span_type !== 'llm' || s.status_code === 'ERROR' || s.input_tokens < OVERSIZED_MIN_INPUT_TOKENS) continue
    const answer = completionText(s)
    const parts = chunks(s.content.prompt)
    if (!answer || parts.length < MIN_CHUNKS) continue
    const sets = parts.map(wordSet)
    // Words most chunks share ("warranty", "grams") say nothing about which chunk was used.
    const df = new Map<string, number>()
    for (const ws of sets) for (const w of ws) df.set(w, (df.get(w) ?? 0) + 1)
    const answerWords = wordSet(answer)
    let used = 0
    let total = 0
    parts.forEach((p, i) => {
      total += p.length
      const own = [...sets[i]!].filter((w) => df.get(w)! <= parts.length / 2)
      // The instruction and the user's question are always needed.
      const needed = i === 0 || /^(user|human): /i.test(p) || overlap(own, answerWords) >= 0.3
      if (needed) used += p.length
    })
    const share = total ? used / total : 1
    if (share > OVERSIZED_MAX_USED_SHARE) continue
    const kept = Math.ceil(s.input_tokens * share)
    const now = priceSpan(prices, s)
    const trimmed = priceSpan(prices, s, s.model, kept)
    if (now === null || trimmed === null) continue
    out.push({
      kind: 'oversized_context', span_id: s.span_id, current_model: s.model, suggested_model: '',
      rationale: `${s.input_tokens} input tokens in ${parts.length} chunks, of which the answer used about ${Math.round(share * 100)}%; sending only what is needed (~${kept} tokens) would cost $${usd(trimmed)} instead of $${usd(now)}`,
      estimated_savings_usd: usd(now - trimmed), engine: 'correlation',
    })
  }
  return out
}

export function correlationFindings(view: TraceView, prices: PriceTable): OptimizationFinding[] {
  return [...promptCache(view, prices), ...failingRetries(view, prices), ...oversizedContext(view, prices), ...redundantToolCalls(view, prices)]
}
