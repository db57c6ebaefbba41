import { describe, expect, it } from 'vitest'
import type { TraceSpan } from '../api/types'
import { findAnswer, locateClaims, segmentAnswer } from './claims'

const answer = '**Refunds** take 5-7 business days.\n\n- Orders over $50 ship free; returns are free for 30 days.\n- Is that all?'

describe('claims in the answer', () => {
  it('finds claims the engine stripped of Markdown and split at clauses', () => {
    const claims = ['Refunds take 5-7 business days.', 'Orders over $50 ship free', 'returns are free for 30 days.', 'Nothing like this']
    const at = locateClaims(answer, claims)
    expect(answer.slice(at[0]!.start, at[0]!.end)).toBe('Refunds** take 5-7 business days')
    expect(answer.slice(at[1]!.start, at[1]!.end)).toBe('Orders over $50 ship free')
    expect(answer.slice(at[2]!.start, at[2]!.end)).toBe('returns are free for 30 days')
    expect(at[3]).toBeNull()
  })

  it('cuts the answer into plain and claim segments that join back to it', () => {
    const segs = segmentAnswer(answer, ['Orders over $50 ship free', 'returns are free for 30 days'])
    expect(segs.map((s) => s.text).join('')).toBe(answer)
    expect(segs.filter((s) => s.claim !== null).map((s) => [s.claim, s.text])).toEqual([
      [0, 'Orders over $50 ship free'],
      [1, 'returns are free for 30 days'],
    ])
  })

  it('takes the span whose output holds the claims as the answer', () => {
    const mk = (id: string, end: number, attributes: Record<string, unknown>): TraceSpan => ({
      span_id: id, parent_span_id: null, name: id, kind: 'INTERNAL', start_time: '2026-01-01T00:00:00.000Z', duration_ms: end, status_code: 'OK', attributes,
    })
    const spans = [
      mk('planner', 900, { 'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'I will look up the order.' }] }]) }),
      mk('answer', 500, { 'gen_ai.completion.0.content': 'Your order shipped on Monday.' }),
      mk('tool', 950, { 'gen_ai.tool.name': 'lookup' }),
    ]
    expect(findAnswer(spans, [{ claim: 'Your order shipped on Monday.', supported: true, confidence: 0.9, evidence_span_id: 'tool' }])).toEqual({ spanId: 'answer', text: 'Your order shipped on Monday.' })
    // No claim found anywhere: the output that ended last.
    expect(findAnswer(spans, [])?.spanId).toBe('planner')
    expect(findAnswer([spans[2]!], [])).toBeNull()
  })
})
