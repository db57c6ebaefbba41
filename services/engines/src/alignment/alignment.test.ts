import { describe, expect, it } from 'vitest'
import { chunkText } from './chunk.js'
import { cosine, LEXICAL_DIMENSIONS, lexicalEmbedding } from './embed.js'
import { judgeSentence, UNCLEAR_BELOW } from './judge.js'
import { alignOutput } from './index.js'
import { memorySearch } from './memory-search.js'
import { durationsInDays, extractRules } from './rules.js'

describe('lexical embedding', () => {
  it('is deterministic, L2-normalised and lexical', () => {
    const a = lexicalEmbedding('Refunds are only available within 30 days of purchase.')
    expect(a).toHaveLength(LEXICAL_DIMENSIONS)
    expect(lexicalEmbedding('Refunds are only available within 30 days of purchase.')).toEqual(a)
    expect(Math.sqrt(a.reduce((s, x) => s + x * x, 0))).toBeCloseTo(1, 6)
    const near = cosine(a, lexicalEmbedding('Can I get a refund 30 days after my purchase?'))
    const far = cosine(a, lexicalEmbedding('Our stores open at nine in the morning.'))
    expect(near).toBeGreaterThan(far)
    expect(Array.from(lexicalEmbedding(''))).toEqual(new Array(LEXICAL_DIMENSIONS).fill(0))
  })
})

describe('chunking', () => {
  it('keeps headings as context, cuts long sections at sentence ends, merges short neighbours', () => {
    const long = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} says something about refunds and receipts.`).join(' ')
    const chunks = chunkText(`# Refunds\n\nShort one.\n\nShort two.\n\n## Long\n\n${long}`)
    expect(chunks[0]!.text).toBe('Refunds: Short one.\nShort two.')
    expect(chunks.length).toBeGreaterThan(2)
    for (const c of chunks.slice(1)) {
      expect(c.text.startsWith('Long: ')).toBe(true)
      expect(c.text.length).toBeLessThanOrEqual(1200 + 6)
    }
    expect(chunks.map((c) => c.index)).toEqual(chunks.map((_, i) => i))
  })
})

describe('rules', () => {
  it('reads modality, severity, object and time limits', () => {
    const rules = extractRules('The assistant must never recommend a dose. You should not promise delivery dates. Refunds are only available within 30 days. Always be polite. Our stores open at 9.', 'doc-1', 2)
    expect(rules.map((r) => [r.modality, r.severity])).toEqual([
      ['prohibition', 'high'],
      ['prohibition', 'medium'],
      ['restriction', 'medium'],
      ['obligation', 'low'],
    ])
    expect(rules[0]!.object).not.toContain('assistant')
    expect(rules[0]!.head).toBe('recommend')
    expect(rules[2]!.limitDays).toBe(30)
    expect(rules[0]).toMatchObject({ source: 'doc-1', chunk_index: 2 })
    expect(extractRules('No competitor pricing.', 'description')[0]).toMatchObject({ modality: 'prohibition', severity: 'high' })
  })

  it('reads durations in days', () => {
    expect(durationsInDays('45 days ago, two months later, a 30-day window, 1 year')).toEqual([45, 60, 30, 365])
  })
})

describe('judge', () => {
  const [dose] = extractRules('The assistant must never recommend a specific dose or dosage of any medication.', 'd')
  it('flags an output doing what a prohibition forbids, through a concept', () => {
    const m = judgeSentence('Take 400 mg of ibuprofen every six hours.', dose!, '')
    expect(m).toMatchObject({ severity: 'high', unclear: false, concepts: ['dose'] })
  })
  it('does not flag a refusal or a negated act', () => {
    expect(judgeSentence("I can't recommend a dose; please ask a pharmacist.", dose!, '')).toBeNull()
    expect(judgeSentence('Our pharmacy opens at nine.', dose!, '')).toBeNull()
  })
  it('respects time limits: within is fine, beyond is a violation', () => {
    const [refund] = extractRules('The assistant must not issue a refund for purchases older than 30 days.', 'd')
    expect(judgeSentence('I have issued the refund for your purchase from 12 days ago.', refund!, '')).toBeNull()
    expect(judgeSentence("I've issued a refund for the purchase from 45 days ago.", refund!, '')!.unclear).toBe(false)
    expect(judgeSentence('It was 45 days ago, outside the 30-day window, so no refund.', refund!, '')).toBeNull()
  })
  it('treats contact details the policy itself quotes as public', () => {
    const [rule] = extractRules('Do not reveal the email address of an employee. Refer customers to help@shop.example instead.', 'd')
    const quoted = 'Refer customers to help@shop.example instead.'
    expect(judgeSentence('Write to help@shop.example for help.', rule!, quoted)).toBeNull()
    expect(judgeSentence("Tom's email is tom@gmail.com.", rule!, quoted)).not.toBeNull()
  })
  it('caps shared topic words without an act at unclear', () => {
    const [rule] = extractRules('The assistant must not disclose personal data of another account holder.', 'd')
    const m = judgeSentence('You can download your data from your account page.', rule!, '')
    expect(m === null || m.confidence < UNCLEAR_BELOW).toBe(true)
  })
})

describe('alignOutput', () => {
  const search = memorySearch([{ doc_id: 'doc-1', text: '# Medicines\n\nThe assistant must never recommend a dose of any medication.\n\n# Hours\n\nStores open at nine.' }])
  it('checks nothing when the policy is off', async () => {
    const r = await alignOutput('t1', 'Take 400 mg of ibuprofen.', { enabled: false, description: '' }, search)
    expect(r).toMatchObject({ policy_enabled: false, flags: [] })
  })
  it('flags the violating sentence with its excerpt, document and a stable id', async () => {
    const r = await alignOutput('t1', 'Hello! Take 400 mg of ibuprofen twice a day. Stores open at nine.', { enabled: true, description: 'Pharmacy assistant.' }, search, 'alice')
    expect(r.flags).toHaveLength(1)
    expect(r.flags[0]).toMatchObject({ trace_id: 't1', agent_output: 'Take 400 mg of ibuprofen twice a day.', doc_id: 'doc-1', severity: 'high', end_user: 'alice', unclear: false })
    expect(r.flags[0]!.policy_excerpt).toContain('must never recommend a dose')
    const again = await alignOutput('t1', 'Hello! Take 400 mg of ibuprofen twice a day. Stores open at nine.', { enabled: true, description: 'Pharmacy assistant.' }, search, 'alice')
    expect(again.flags[0]!.flag_id).toBe(r.flags[0]!.flag_id)
  })
  it('uses the description as a rule source too', async () => {
    const none = memorySearch([])
    const r = await alignOutput('t2', 'Asana charges 11 dollars per user per month.', { enabled: true, description: 'Never quote competitor pricing.' }, none)
    expect(r.flags[0]).toMatchObject({ doc_id: 'description', severity: 'high' })
  })
})
