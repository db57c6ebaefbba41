import { authorityPrior } from '@svc/shared/store/queries/sources'
import { describe, expect, it } from 'vitest'
import { contentReliability } from '../reliability/index.js'
import { chat, retrieval, tool, viewOf } from '../reliability/test-view.js'
import { sourceSignals, sourcesMatrix } from './index.js'

const answer = [
  'Refunds are issued within 5 business days.',
  'Return shipping is free for customers in the US.',
  'The Webb telescope launched on December 25, 2021 [1].',
  'Unworn items can be returned within 60 days of delivery.',
  'Its primary mirror is 6.5 metres across [2].',
  '',
  '[1] https://www.nasa.gov/mission/webb/',
  '[2] https://webb.nasa.gov/mirrors',
].join('\n')

const view = viewOf([
  { id: 'a'.repeat(16), attrs: { 'gen_ai.operation.name': 'invoke_agent' } },
  {
    id: 'b'.repeat(16),
    parent: 'a'.repeat(16),
    attrs: retrieval([
      { id: 'kb/refunds.md', content: 'Unworn items can be returned within 30 days of delivery. Refunds are issued within 5 business days.' },
      { id: 'kb/shipping.md', content: 'Return shipping is free for customers in the US.' },
      { id: 'kb/careers.md', content: 'We are hiring engineers in Lisbon.' },
    ]),
  },
  {
    id: 'c'.repeat(16),
    parent: 'a'.repeat(16),
    attrs: tool('web_search', { q: 'webb launch' }, [{ url: 'https://www.nasa.gov/mission/webb/', snippet: 'The Webb telescope launched on December 25, 2021.' }]),
  },
  { id: 'd'.repeat(16), parent: 'a'.repeat(16), attrs: tool('get_weather', { city: 'Oslo' }, { temp_c: 3 }) },
  { id: 'e'.repeat(16), parent: 'a'.repeat(16), attrs: chat([['user', 'Tell me about refunds and Webb.']], answer) },
])
const reliability = await contentReliability(view)
const priors: Record<string, number> = { kb: 0.8, 'nasa.gov': 0.9 }
const matrix = sourcesMatrix(view, reliability, (domain) => priors[domain] ?? 0.5)
const entry = (url: string) => matrix.sources.find((s) => s.url === url)!

describe('sourcesMatrix', () => {
  it('judges the claims the test relies on', () => {
    expect(reliability.claims.map((c) => c.verdict)).toEqual(['supported', 'supported', 'supported', 'contradicted', 'unsupported'])
  })

  it('lists every source with its kind', () => {
    expect(matrix.sources.map((s) => [s.url, s.kind])).toEqual([
      ['kb/refunds.md', 'internal_kb'],
      ['kb/shipping.md', 'internal_kb'],
      ['kb/careers.md', 'internal_kb'],
      ['https://www.nasa.gov/mission/webb/', 'web'],
      ['tool:get_weather', 'tool'],
      ['https://webb.nasa.gov/mirrors', 'citation'],
    ])
  })

  it('shares influence over the supported claims', () => {
    expect(entry('kb/refunds.md').influence_score).toBeCloseTo(1 / 3, 3)
    expect(entry('kb/shipping.md').influence_score).toBeCloseTo(1 / 3, 3)
    expect(entry('https://www.nasa.gov/mission/webb/').influence_score).toBeCloseTo(1 / 3, 3)
    expect(matrix.sources.reduce((a, s) => a + s.influence_score, 0)).toBeCloseTo(1, 2)
  })

  it('sets verification levels, authority and an explainer', () => {
    // kb/refunds.md backs the refund claim and contradicts the 60-day one: a source the answer contradicts is flagged.
    expect(matrix.sources.map((s) => s.verification_level)).toEqual(['contradicted', 'verified', 'unverified', 'verified', 'unverified', 'cited_only'])
    expect(entry('kb/refunds.md').explainer).toContain('backs 1 of 3 supported claims and contradicts 1 claim')
    expect(entry('kb/refunds.md')).toMatchObject({ domain: 'kb', authority_score: 0.8 })
    expect(entry('https://www.nasa.gov/mission/webb/')).toMatchObject({ domain: 'nasa.gov', authority_score: 0.9 })
    expect(entry('https://webb.nasa.gov/mirrors').authority_score).toBe(0.5)
    for (const s of matrix.sources) expect(s.explainer).toMatch(/^[^\n]+\.$/)
    expect(entry('https://www.nasa.gov/mission/webb/').explainer).toContain('cited in the answer')
  })

  it('marks a source the answer only contradicts', async () => {
    const v = viewOf([
      { id: '1'.repeat(16), attrs: retrieval([{ id: 'kb/leave.md', content: 'Primary caregivers receive 16 weeks of paid leave.' }]) },
      { id: '2'.repeat(16), attrs: chat([['user', 'Leave?']], 'Primary caregivers receive 20 weeks of paid leave.') },
    ])
    const m = sourcesMatrix(v, await contentReliability(v), () => 0.5)
    expect(m.sources).toMatchObject([{ url: 'kb/leave.md', verification_level: 'contradicted', influence_score: 0 }])
  })
})

describe('sourceSignals', () => {
  const { citations, feedback } = sourceSignals(view, reliability, 1_700_000_000_000)

  it('cites each distinct domain and kind once', () => {
    expect(citations.map((c) => [c.domain, c.kind])).toEqual([
      ['kb', 'internal_kb'],
      ['nasa.gov', 'web'],
      ['tool:get_weather', 'tool'],
      ['webb.nasa.gov', 'citation'],
    ])
    expect(citations.every((c) => c.seen_at_ms === 1_700_000_000_000 && c.workspace_id === view.workspace_id)).toBe(true)
  })

  it('counts the claims each domain backed or was blamed for', () => {
    const f = (domain: string) => feedback.find((x) => x.domain === domain)
    // kb backed two supported claims and is the evidence the contradicted claim disagrees with.
    expect(f('kb')).toMatchObject({ kind: 'internal_kb', supported: 2, unsupported: 1 })
    expect(f('nasa.gov')).toMatchObject({ kind: 'web', supported: 1, unsupported: 0 })
    // Cited for a claim nothing in the trace backs.
    expect(f('webb.nasa.gov')).toMatchObject({ kind: 'citation', supported: 0, unsupported: 1 })
    expect(f('tool:get_weather')).toBeUndefined()
  })

  it('feeds the Beta prior the list serves', () => {
    const kb = feedback.find((x) => x.domain === 'kb')!
    expect(authorityPrior(kb.supported, kb.unsupported)).toBeCloseTo(0.6, 6)
  })
})
