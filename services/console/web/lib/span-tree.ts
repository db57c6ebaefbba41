/**
 * The waterfall's rows: a trace's spans as a tree in start order, flattened
 * depth-first with collapsed subtrees left out, each with its offset and length on
 * the trace's time axis and its kind (LLM, tool, retrieval, ...), read with the
 * same attribute conventions the service normalizes (shared/src/domain/genai.ts).
 */
import { genAiFacts, type SpanType } from '@svc/shared/domain/genai'
import type { TraceSpan } from '../api/types'

export interface SpanNode {
  span: TraceSpan
  depth: number
  /** Start, relative to the trace's start, and duration, in ms. */
  offsetMs: number
  durationMs: number
  type: SpanType
  error: boolean
  children: SpanNode[]
  /** Spans in this subtree below this one. */
  descendants: number
}

export interface SpanTree {
  roots: SpanNode[]
  byId: Map<string, SpanNode>
  parentOf: Map<string, string>
  startMs: number
  /** From the earliest start to the latest end. */
  totalMs: number
}

/** Attribute values as the normalizer reads them: strings, anything else as JSON text. */
export function attributeStrings(attrs: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(attrs)) out[k] = typeof v === 'string' ? v : JSON.stringify(v)
  return out
}

export const isErrorSpan = (s: TraceSpan) => s.status_code.toUpperCase() === 'ERROR' || s.status_code === '2'

export function buildSpanTree(spans: TraceSpan[]): SpanTree {
  const startOf = (s: TraceSpan) => Date.parse(s.start_time)
  const sorted = [...spans].sort((a, b) => startOf(a) - startOf(b) || (a.span_id < b.span_id ? -1 : 1))
  const startMs = sorted.length ? startOf(sorted[0]!) : 0
  let endMs = startMs
  const byId = new Map<string, SpanNode>()
  for (const span of sorted) {
    // start_time is whole milliseconds in ISO form; the duration keeps the sub-millisecond part.
    const offsetMs = startOf(span) - startMs
    endMs = Math.max(endMs, startMs + offsetMs + span.duration_ms)
    byId.set(span.span_id, { span, depth: 0, offsetMs, durationMs: span.duration_ms, type: genAiFacts(attributeStrings(span.attributes)).spanType, error: isErrorSpan(span), children: [], descendants: 0 })
  }
  const roots: SpanNode[] = []
  const parentOf = new Map<string, string>()
  for (const node of byId.values()) {
    const parentId = node.span.parent_span_id
    const parent = parentId && parentId !== node.span.span_id ? byId.get(parentId) : undefined
    // A span whose parent never arrived is shown as a root rather than lost.
    if (parent) {
      parent.children.push(node)
      parentOf.set(node.span.span_id, parentId!)
    } else roots.push(node)
  }
  // Depths and subtree sizes without recursion: a 5,000-deep chain must not overflow the stack.
  const order: SpanNode[] = []
  const stack = roots.map((r) => ({ node: r, depth: 0 }))
  const seen = new Set<SpanNode>()
  while (stack.length) {
    const { node, depth } = stack.pop()!
    if (seen.has(node)) continue
    seen.add(node)
    node.depth = depth
    order.push(node)
    for (const c of node.children) stack.push({ node: c, depth: depth + 1 })
  }
  for (let i = order.length - 1; i >= 0; i--) {
    const n = order[i]!
    n.descendants = n.children.reduce((s, c) => s + 1 + c.descendants, 0)
  }
  // Parent cycles (a span naming its own descendant) leave spans unreached: show each as a root of its own.
  for (const node of byId.values())
    if (!seen.has(node)) {
      roots.push(node)
      node.children = []
      parentOf.delete(node.span.span_id)
    }
  return { roots, byId, parentOf, startMs, totalMs: Math.max(0, endMs - startMs) }
}

/** The rows to draw: depth first, children in start order, collapsed subtrees left out. */
export function visibleRows(tree: SpanTree, collapsed: ReadonlySet<string>): SpanNode[] {
  const out: SpanNode[] = []
  const stack = [...tree.roots].reverse()
  const emitted = new Set<SpanNode>()
  while (stack.length) {
    const node = stack.pop()!
    if (emitted.has(node)) continue
    emitted.add(node)
    out.push(node)
    if (!collapsed.has(node.span.span_id)) for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!)
  }
  return out
}

/** The span's ancestors, nearest first: what must be expanded for it to show. */
export function ancestorsOf(tree: SpanTree, spanId: string): string[] {
  const out: string[] = []
  const seen = new Set<string>([spanId])
  for (let p = tree.parentOf.get(spanId); p && !seen.has(p); p = tree.parentOf.get(p)) {
    out.push(p)
    seen.add(p)
  }
  return out
}

/** Short labels of the span kinds, as the waterfall's badges and legend show them. */
export const SPAN_TYPE_LABEL: Record<SpanType, string> = { llm: 'LLM', embedding: 'Embed', tool: 'Tool', retrieval: 'Retrieval', agent: 'Agent', chain: 'Chain', other: 'Span' }
