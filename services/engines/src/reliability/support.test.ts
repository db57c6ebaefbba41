import { describe, expect, it } from 'vitest'
import type { Evidence } from './evidence.js'
import { judgeClaim } from './support.js'
import { analyze, stem } from './text.js'

const doc = (text: string, span_id = 'd1', source: string | null = 'kb/policy.md'): Evidence => ({ span_id, text, source, kind: 'document' })

describe('stem', () => {
  it('meets inflected forms', () => {
    expect(new Set(['refund', 'refunds', 'refunded', 'refunding'].map(stem)).size).toBe(1)
    expect(stem('monthly')).toBe(stem('month'))
    expect(stem('shipping')).toBe(stem('ship'))
    expect(stem('upgradeable')).toBe(stem('upgraded'))
  })
})

describe('analyze', () => {
  it('reads numbers with scale, currency and percent', () => {
    const a = analyze('Revenue was $4.82 billion, up 12% from 1,200 units and two stores.')
    expect(a.numbers.map((n) => n.value)).toEqual([4.82e9, 12, 1200, 2])
    expect(a.numbers[0]!.context.has('cur')).toBe(true)
    expect(a.numbers[1]!.context.has('pct')).toBe(true)
  })
})

describe('judgeClaim', () => {
  const policy = doc('Unworn items can be returned within 30 days of delivery. Refunds are issued within 5 business days. Final-sale items cannot be returned.')

  it('supports a claim the evidence states, across inflections', () => {
    const j = judgeClaim('Items that are unworn can be returned within 30 days of delivery.', [policy])
    expect(j.verdict).toBe('supported')
    expect(j.evidence?.span_id).toBe('d1')
    expect(j.confidence).toBeGreaterThanOrEqual(0.6)
    expect(judgeClaim('The refund is issued within 5 business days.', [policy]).verdict).toBe('supported')
  })

  it('contradicts a claim whose number disagrees with the matching sentence', () => {
    const j = judgeClaim('Unworn items can be returned within 60 days of delivery.', [policy])
    expect(j.verdict).toBe('contradicted')
    expect(j.evidence?.span_id).toBe('d1')
  })

  it('matches numbers written as words', () => {
    const e = doc('Secondary caregivers receive six weeks of paid leave.')
    expect(judgeClaim('Secondary caregivers receive 6 weeks of paid leave.', [e]).verdict).toBe('supported')
    expect(judgeClaim('Secondary caregivers receive 8 weeks of paid leave.', [e]).verdict).toBe('contradicted')
  })

  it('contradicts a negation mismatch, in either direction', () => {
    const e = doc('PTO is not paid out when an employee leaves the company.', 'd2')
    expect(judgeClaim('Unused PTO is paid out when you leave the company.', [e])).toMatchObject({ verdict: 'contradicted', evidence: { span_id: 'd2' } })
    const f = doc('Final-sale items can be exchanged for store credit.')
    expect(judgeClaim('Final-sale items cannot be exchanged for store credit.', [f]).verdict).toBe('contradicted')
    // Same polarity on both sides is agreement.
    expect(judgeClaim("Final-sale items can't be returned.", [policy]).verdict).toBe('supported')
  })

  it('leaves a claim with an unconfirmed number unsupported, not contradicted', () => {
    const e = doc('The board declared a quarterly dividend of $0.42 per share.')
    const j = judgeClaim('The quarterly dividend of $0.42 per share gives a yield of 2.1%.', [e])
    expect(j).toMatchObject({ verdict: 'unsupported', evidence: null })
  })

  it('is unsupported with null evidence when nothing matches', () => {
    const j = judgeClaim('The headphones come with a 2-year warranty.', [policy])
    expect(j).toMatchObject({ verdict: 'unsupported', evidence: null })
    expect(j.confidence).toBeGreaterThan(0.5)
    expect(judgeClaim('The headphones come with a 2-year warranty.', []).evidence).toBeNull()
  })

  it('does not treat a question in a message as support', () => {
    const q: Evidence = { span_id: 'u1', text: 'Does the Pro plan include single sign-on?', source: null, kind: 'message' }
    expect(judgeClaim('The Pro plan includes single sign-on.', [q]).verdict).toBe('unsupported')
    const stated: Evidence = { span_id: 'u1', text: 'My booking reference is QX7Z2P.', source: null, kind: 'message' }
    expect(judgeClaim('Your booking reference is QX7Z2P.', [stated]).verdict).toBe('supported')
  })

  it('prefers a document over a message that says the same', () => {
    const m: Evidence = { span_id: 'm1', text: 'Refunds are issued within 5 business days.', source: null, kind: 'message' }
    const d = doc('Refunds are issued within 5 business days.', 'd9')
    expect(judgeClaim('Refunds are issued within 5 business days.', [m, d]).evidence?.span_id).toBe('d9')
  })
})

describe('structured evidence', () => {
  it('reads ISO dates of tool results as the month names an answer uses', () => {
    const tool: Evidence = { span_id: 't1', text: 'get_invoice_summary {"totals_usd":{"2026-08":4102.55,"2026-09":6870.12}}', source: 'tool:get_invoice_summary', kind: 'tool_result' }
    expect(judgeClaim('Your September bill came to $6,870.12.', [tool]).verdict).toBe('supported')
    expect(judgeClaim('Your September bill came to $7,100.00.', [tool]).verdict).not.toBe('supported')
  })
})

