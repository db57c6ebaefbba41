/**
 * The content-reliability tab's answer with its claims marked. The engine returns
 * claims as sentences cut from the final answer (Markdown removed, split at
 * clauses: docs/engines.md), not the answer itself, so the console finds the span
 * output those claims come from and each claim's place in it, comparing letters and
 * digits only. A claim it cannot place is still listed, just not marked.
 */
import { genAiContent } from '@svc/shared/domain/genai-content'
import type { Claim, TraceSpan } from '../api/types'
import { attributeStrings } from './span-tree'

export interface Segment {
  text: string
  /** Index into the claims list; null for text between claims. */
  claim: number | null
}

/** Lower-case letters and digits of `text`, words one space apart, with each kept character's index in `text`. */
function normalize(text: string): { norm: string; at: number[] } {
  let norm = ''
  const at: number[] = []
  let gap = false
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!
    if (/[\p{L}\p{N}]/u.test(ch)) {
      if (gap && norm.length) {
        norm += ' '
        at.push(i)
      }
      norm += ch.toLowerCase()
      at.push(i)
      gap = false
    } else gap = true
  }
  return { norm, at }
}

/** Where each claim is in the answer (original character ranges), or null. Claims usually come in answer order. */
export function locateClaims(answer: string, claims: string[]): Array<{ start: number; end: number } | null> {
  const a = normalize(answer)
  let from = 0
  return claims.map((claim) => {
    const c = normalize(claim).norm
    if (!c) return null
    let i = a.norm.indexOf(c, from)
    if (i < 0) i = a.norm.indexOf(c)
    if (i < 0) return null
    from = i + c.length
    return { start: a.at[i]!, end: a.at[i + c.length - 1]! + 1 }
  })
}

/** The answer cut into plain and claim segments; overlapping claims keep the first. */
export function segmentAnswer(answer: string, claims: string[]): Segment[] {
  const ranges = locateClaims(answer, claims)
    .map((r, claim) => (r ? { ...r, claim } : null))
    .filter((r): r is { start: number; end: number; claim: number } => r !== null)
    .sort((x, y) => x.start - y.start)
  const out: Segment[] = []
  let pos = 0
  for (const r of ranges) {
    if (r.start < pos) continue
    if (r.start > pos) out.push({ text: answer.slice(pos, r.start), claim: null })
    out.push({ text: answer.slice(r.start, r.end), claim: r.claim })
    pos = r.end
  }
  if (pos < answer.length) out.push({ text: answer.slice(pos), claim: null })
  return out
}

/** A span's output text as the engines read it: its completion, or an orchestrator's recorded output. */
export function spanOutput(span: TraceSpan): string {
  const attrs = attributeStrings(span.attributes)
  const text = genAiContent(attrs).completion || attrs['traceloop.entity.output'] || ''
  // Message lists read as "role: text" lines; a lone assistant message is just its text.
  return text.replace(/^assistant: /, '')
}

/**
 * The final answer: of the spans with output text, the one where the most claims are
 * found (ties: the one that ended last). Null when no span has text.
 */
export function findAnswer(spans: TraceSpan[], claims: Claim[]): { spanId: string; text: string } | null {
  let best: { spanId: string; text: string; found: number; end: number } | null = null
  for (const s of spans) {
    const text = spanOutput(s)
    if (!text) continue
    const found = locateClaims(text, claims.map((c) => c.claim)).filter(Boolean).length
    const end = Date.parse(s.start_time) + s.duration_ms
    if (!best || found > best.found || (found === best.found && end > best.end)) best = { spanId: s.span_id, text, found, end }
  }
  return best && { spanId: best.spanId, text: best.text }
}

/** The verdict of a claim: the engine's own, else from `supported`. */
export const verdictOf = (c: Claim): string => c.verdict ?? (c.supported ? 'supported' : 'unsupported')
