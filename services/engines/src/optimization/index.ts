/**
 * optimization: the findings of correlation (patterns across spans) and savings
 * (per-span model right-sizing), merged into one list with a total.
 */
import type { Optimization, OptimizationFinding } from '../outputs.js'
import { usd } from './cost.js'

export { correlationFindings } from './correlation.js'
export { savingsFindings } from './savings.js'

/** Findings that remove the call altogether: any other saving on the same span would be counted twice. */
const ELIMINATING = new Set(['prompt_cache', 'failing_retries', 'redundant_tool_call'])

export function optimization(traceId: string, findings: OptimizationFinding[]): Optimization {
  const eliminated = new Set(findings.filter((f) => ELIMINATING.has(f.kind)).map((f) => f.span_id))
  const seen = new Set<string>()
  const kept = findings.filter((f) => {
    const key = `${f.kind}\n${f.span_id}`
    if (seen.has(key) || (eliminated.has(f.span_id) && !ELIMINATING.has(f.kind))) return false
    seen.add(key)
    return true
  })
  kept.sort((a, b) => b.estimated_savings_usd - a.estimated_savings_usd || a.kind.localeCompare(b.kind) || a.span_id.localeCompare(b.span_id))
  return { trace_id: traceId, findings: kept, total_estimated_savings_usd: usd(kept.reduce((t, f) => t + f.estimated_savings_usd, 0), 6) }
}
