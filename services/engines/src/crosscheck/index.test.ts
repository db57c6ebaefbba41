import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { splitClaims } from '../reliability/claims.js'
import { startFakeSearch, type FakeSearch } from '../test-support/fake-search.js'
import type { TraceView, ViewSpan } from '../trace-view.js'
import { createHttpSearchClient, externalCrosscheck } from './index.js'

const CLAIMS = [
  'The Eiffel Tower is 330 metres tall.',
  'The Moon orbits Earth at an average distance of 500,000 kilometres.',
  'Mount Everest rises 8,849 metres above sea level.',
  'The Amazon River flows through Brazil and Peru.',
  'Penguins live mainly in the Southern Hemisphere.',
  'The Great Wall of China stretches across northern China.',
  'Honey bees communicate through a waggle dance.',
  'Venus rotates in the opposite direction to most planets.',
  'The Pacific Ocean covers about a third of Earth surface.',
  'Lake Baikal holds about a fifth of the world fresh surface water.',
]

function span(id: string, over: Partial<ViewSpan>): ViewSpan {
  return {
    span_id: id,
    parent_span_id: id === 'root' ? null : 'root',
    name: id,
    kind: 'INTERNAL',
    start_ms: 0,
    end_ms: 1,
    duration_ms: 1,
    status_code: 'OK',
    status_message: '',
    model: '',
    provider: '',
    span_type: 'other',
    input_tokens: 0,
    output_tokens: 0,
    cost_usd: 0,
    attributes: {},
    content: { prompt: '', completion: '', toolCalls: [], documents: [] },
    ...over,
  }
}

const view = (answer: string): TraceView => ({
  workspace_id: 'w',
  trace_id: 't-cross',
  spans: [
    span('root', { span_type: 'agent' }),
    span('kb', {
      span_type: 'retrieval',
      start_ms: 1,
      end_ms: 2,
      content: { prompt: '', completion: '', toolCalls: [], documents: [{ id: 'd1', url: 'https://kb.example/tower', content: 'The Eiffel Tower is 330 metres tall.', score: 1 }] },
    }),
    span('llm', { span_type: 'llm', model: 'gpt-4o', start_ms: 3, end_ms: 4, content: { prompt: 'user: tell me facts', completion: answer, toolCalls: [], documents: [] } }),
  ],
})

let fake: FakeSearch
beforeEach(async () => {
  fake = await startFakeSearch()
})
afterEach(async () => {
  await fake.close()
})

describe('externalCrosscheck', () => {
  const answer = CLAIMS.join(' ')

  it('checks up to 8 claims on the open web, a few at a time, and judges the rest against the trace', async () => {
    expect(splitClaims(answer)).toHaveLength(CLAIMS.length)
    fake.setHandler((q) => {
      if (q.includes('Eiffel')) return { results: [{ url: 'https://web.example/eiffel', title: 'Eiffel', content: 'The Eiffel Tower is 330 metres tall.' }], delayMs: 20 }
      if (q.includes('Moon'))
        return { results: [{ url: 'https://web.example/moon', title: 'Moon', content: 'The Moon orbits Earth at an average distance of 384,400 kilometres.' }], delayMs: 20 }
      return { results: [], delayMs: 20 }
    })
    const search = createHttpSearchClient({ apiKey: 'tvly-org', baseUrl: fake.url })
    const r = await externalCrosscheck(view(answer), search)

    expect(r.mode).toBe('open_web')
    expect(r.trace_id).toBe('t-cross')
    expect(r.checked).toBe(8)
    expect(fake.requests).toHaveLength(8)
    expect(fake.maxConcurrent).toBeLessThanOrEqual(3)
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer tvly-org')
    expect(fake.requests.map((x) => x.body.query).sort()).toEqual(CLAIMS.slice(0, 8).sort())
    expect(fake.requests[0]!.body.max_results).toBe(5)

    expect(r.claims.map((c) => c.claim)).toEqual(CLAIMS)
    expect(r.claims[0]).toMatchObject({ verdict: 'supported', url: 'https://web.example/eiffel', basis: 'open_web' })
    expect(r.claims[1]).toMatchObject({ verdict: 'contradicted', url: 'https://web.example/moon', basis: 'open_web' })
    expect(r.claims[2]).toMatchObject({ verdict: 'unsupported', url: null, basis: 'open_web' })
    expect(r.claims.slice(8).every((c) => c.basis === 'trace_evidence')).toBe(true)
    expect(r.note).toMatch(/Checked 8 of 10 claims against the open web/)
    expect(r.note).toMatch(/other 2/)
  })

  it('stays in closed-knowledge-base mode without a search client, and says so', async () => {
    const r = await externalCrosscheck(view(answer), null)
    expect(r.mode).toBe('closed_knowledge_base')
    expect(r.checked).toBe(0)
    expect(r.claims).toHaveLength(CLAIMS.length)
    expect(r.claims.every((c) => c.basis === 'trace_evidence')).toBe(true)
    // The trace's own document backs the first claim.
    expect(r.claims[0]).toMatchObject({ verdict: 'supported', url: 'https://kb.example/tower' })
    expect(r.note).toMatch(/no search credential/)
    expect(r.note).toMatch(/nothing was checked on the open web/)
  })

  it('has nothing to check without a final output, and searches nothing', async () => {
    const search = createHttpSearchClient({ apiKey: 'k', baseUrl: fake.url })
    const r = await externalCrosscheck({ workspace_id: 'w', trace_id: 'empty', spans: [] }, search)
    expect(r).toMatchObject({ trace_id: 'empty', mode: 'open_web', claims: [], checked: 0 })
    expect(r.note).toMatch(/no final output/)
    expect(fake.requests).toHaveLength(0)
  })

  it('fails when the search service rejects the key', async () => {
    fake.setHandler(() => ({ status: 401, message: 'bad key' }))
    const search = createHttpSearchClient({ apiKey: 'bad', baseUrl: fake.url })
    await expect(externalCrosscheck(view(answer), search)).rejects.toMatchObject({ name: 'SearchError', status: 401 })
  })

  it('honours smaller bounds', async () => {
    const search = createHttpSearchClient({ apiKey: 'k', baseUrl: fake.url })
    const r = await externalCrosscheck(view(answer), search, { maxSearches: 2, concurrency: 1, maxClaims: 5 })
    expect(fake.requests).toHaveLength(2)
    expect(fake.maxConcurrent).toBe(1)
    expect(r.checked).toBe(2)
    expect(r.claims).toHaveLength(5)
    expect(r.note).toMatch(/5 further claims were not reported/)
  })
})
