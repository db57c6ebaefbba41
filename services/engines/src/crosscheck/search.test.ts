import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { refusedPort } from '../test-support/fake-openai.js'
import { startFakeSearch, type FakeSearch } from '../test-support/fake-search.js'
import { createHttpSearchClient, MAX_QUERY_CHARS, SearchError } from './search.js'

let fake: FakeSearch
beforeEach(async () => {
  fake = await startFakeSearch()
})
afterEach(async () => {
  await fake.close()
})

describe('createHttpSearchClient', () => {
  it('posts the query with the Bearer key and returns url, title and snippet', async () => {
    fake.setHandler(() => ({
      results: [
        { url: 'https://example.org/a', title: 'A', content: 'alpha' },
        { url: '', title: 'no url', content: 'dropped' },
        { url: 'https://example.org/b', title: 'B', content: 'beta' },
      ],
    }))
    const client = createHttpSearchClient({ apiKey: 'tvly-key', baseUrl: fake.url + '/' })
    const results = await client.search('x'.repeat(1000), { maxResults: 5 })
    expect(results).toEqual([
      { url: 'https://example.org/a', title: 'A', content: 'alpha' },
      { url: 'https://example.org/b', title: 'B', content: 'beta' },
    ])
    const r = fake.requests[0]!
    expect(r.path).toBe('/search')
    expect(r.headers.authorization).toBe('Bearer tvly-key')
    expect(r.body).toEqual({ query: 'x'.repeat(MAX_QUERY_CHARS), max_results: 5 })
  })

  it('throws with the status on an HTTP error and with null status when unreachable', async () => {
    fake.setHandler(() => ({ status: 401, message: 'invalid api key' }))
    const client = createHttpSearchClient({ apiKey: 'bad', baseUrl: fake.url })
    await expect(client.search('q', { maxResults: 3 })).rejects.toMatchObject({ name: 'SearchError', status: 401 })

    const port = await refusedPort()
    const down = createHttpSearchClient({ apiKey: 'k', baseUrl: `http://127.0.0.1:${port}` })
    const e = await down.search('q', { maxResults: 3 }).catch((x) => x)
    expect(e).toBeInstanceOf(SearchError)
    expect(e.status).toBeNull()
  })

  it('gives up at its deadline', async () => {
    fake.setHandler(() => ({ results: [], delayMs: 2000 }))
    const client = createHttpSearchClient({ apiKey: 'k', baseUrl: fake.url, timeoutMs: 100 })
    await expect(client.search('q', { maxResults: 3 })).rejects.toThrow(/within 100 ms/)
  })
})
