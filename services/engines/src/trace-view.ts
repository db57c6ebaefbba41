/**
 * The one input every engine reads: a finished trace's spans as the assembler stored
 * them (spans_v1), with the LLM facts and content already read out of the
 * attributes. Built the same way from a store query (the worker) and from a
 * fixture decoded through ingest and the assembler (tests), so engines never see
 * a shape the pipeline cannot produce.
 */
import { genAiContent, type GenAiContent } from '@svc/shared/domain/genai-content'
import { genAiFacts, type SpanType } from '@svc/shared/domain/genai'
import type { EngineInputSpan } from '@svc/shared/store/queries/engine-results'

/** The spans_v1 columns an engine needs, as the workers' query returns them. */
export type StoredSpan = Omit<EngineInputSpan, 'expires_at_s'>

export interface ViewSpan {
  span_id: string
  /** null for a root span. */
  parent_span_id: string | null
  name: string
  kind: string
  /** Milliseconds since the epoch (fractional). */
  start_ms: number
  end_ms: number
  duration_ms: number
  /** UNSET, OK or ERROR. */
  status_code: string
  status_message: string
  /** '' when not an LLM span. */
  model: string
  provider: string
  span_type: SpanType
  input_tokens: number
  output_tokens: number
  cost_usd: number
  attributes: Record<string, string>
  /** Prompt and completion text, tool calls and retrieved documents. */
  content: GenAiContent
}

export interface TraceView {
  workspace_id: string
  trace_id: string
  /** Ordered by start time, then span id. */
  spans: ViewSpan[]
}

const nsToMs = (ns: string) => Number(BigInt(ns) / 1000n) / 1000

export function traceViewFromRows(workspaceId: string, traceId: string, rows: StoredSpan[]): TraceView {
  const seen = new Set<string>()
  const spans: ViewSpan[] = []
  for (const r of rows) {
    // spans_v1 may hold a redelivered copy until its merge: one span, one view entry.
    if (seen.has(r.span_id)) continue
    seen.add(r.span_id)
    const facts = genAiFacts(r.attributes)
    const start = nsToMs(r.start_time)
    const end = nsToMs(r.end_time)
    spans.push({
      span_id: r.span_id,
      parent_span_id: r.parent_span_id || null,
      name: r.name,
      kind: r.kind,
      start_ms: start,
      end_ms: end,
      duration_ms: Math.max(0, end - start),
      status_code: r.status_code,
      status_message: r.status_message,
      model: r.model,
      provider: facts.provider,
      span_type: facts.spanType,
      input_tokens: Number(r.input_tokens),
      output_tokens: Number(r.output_tokens),
      cost_usd: Number(r.cost_usd),
      attributes: r.attributes,
      content: genAiContent(r.attributes),
    })
  }
  spans.sort((a, b) => a.start_ms - b.start_ms || (a.span_id < b.span_id ? -1 : a.span_id > b.span_id ? 1 : 0))
  return { workspace_id: workspaceId, trace_id: traceId, spans }
}
