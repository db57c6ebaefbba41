/**
 * The egress guard on a running stack without SVC_EGRESS_ALLOW_PRIVATE (the
 * production default): an LLM credential whose api_base is a private IP literal is
 * refused on PUT; one whose name resolves to 127.0.0.1 is stored, but the engines
 * refuse it when they connect, so the model server never receives a request (nor
 * the key) and the engine shows stalled in ingestion health, as an unreachable
 * provider does; the organization's web search is refused the same way. One bus
 * mode is enough: the guard sits in the engines' HTTP clients, below the bus.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadFixtures } from '@svc/engines/test-support/fixtures'
import { startFakeOpenAi, type FakeOpenAi } from '@svc/engines/test-support/fake-openai'
import { startFakeSearch, type FakeSearch } from '@svc/engines/test-support/fake-search'
import type { TestJson } from '@svc/shared/test-support/json'
import { eventually, startTestStack, TEST_KEY } from '../support/stack.js'
import { hex } from '../support/traces.js'

const WS_PATH = '/v1/observ/orgs/acme/workspaces/agents'
const ORG_PATH = '/v1/observ/orgs/acme'
const SECRET = 'sk-e2e-never-leaves-0777'

describe('egress to private addresses is refused (embedded bus, SVC_EGRESS_ALLOW_PRIVATE unset)', () => {
  let s: Awaited<ReturnType<typeof startTestStack>>
  let model: FakeOpenAi
  let web: FakeSearch
  const api = (path: string, init: RequestInit = {}) => fetch(s.apiUrl + path, { ...init, headers: { 'x-svc-api-key': TEST_KEY, 'content-type': 'application/json' } })
  const getJson = async (path: string): Promise<TestJson> => {
    const res = await api(path)
    expect(res.status, path).toBe(200)
    return (await res.json()) as TestJson
  }

  beforeAll(async () => {
    model = await startFakeOpenAi(() => ({ object: { claims: [] } }))
    web = await startFakeSearch((query) => ({ results: [{ url: 'https://facts.example.org/page', title: 'facts', content: query }] }))
    s = await startTestStack('embedded', {
      SVC_EGRESS_ALLOW_PRIVATE: 'false',
      SVC_ENGINE_RETRY_BASE_MS: '20',
      SVC_ENGINE_STALL_MS: '60000',
      // An operator-chosen search base on this machine: the organization's search key would go there.
      SVC_SEARCH_API_BASE: web.url.replace('127.0.0.1', 'localhost'),
    })
    expect((await api(`${WS_PATH}/settings/capture-text`, { method: 'PATCH', body: JSON.stringify({ capture_text: true }) })).status).toBe(200)
  })
  afterAll(async () => {
    await s?.close()
    await model?.close()
    await web?.close()
  })

  it('refuses a private IP literal as api_base on PUT', async () => {
    for (const api_base of [model.url, 'http://169.254.169.254/latest', 'http://[::1]:11434/v1']) {
      const put = await api(`${ORG_PATH}/llm-credentials`, { method: 'PUT', body: JSON.stringify({ provider: 'openai', model_id: 'gpt-4o-mini', api_key: SECRET, api_base }) })
      expect(put.status, api_base).toBe(422)
    }
    expect(await getJson(`${ORG_PATH}/llm-credentials`)).toMatchObject({ configured: false })
  })

  it('a name resolving to 127.0.0.1 is refused when the engines connect: nothing reaches the model or the search service, and the engines stall', async () => {
    const viaName = model.url.replace('127.0.0.1', 'localhost')
    expect((await api(`${ORG_PATH}/llm-credentials`, { method: 'PUT', body: JSON.stringify({ provider: 'openai', model_id: 'gpt-4o-mini', api_key: SECRET, api_base: viaName }) })).status).toBe(200)
    expect((await api(`${ORG_PATH}/search-credentials`, { method: 'PUT', body: JSON.stringify({ api_key: 'tvly-e2e-never-leaves' }) })).status).toBe(200)
    expect((await api(`${WS_PATH}/engine-settings`, { method: 'PUT', body: JSON.stringify({ engines: { external_crosscheck: true } }) })).status).toBe(200)
    expect((await api(`${WS_PATH}/settings/broaden-sources`, { method: 'PATCH', body: JSON.stringify({ broaden_sources: true }) })).status).toBe(200)

    const fixture = loadFixtures().find((f) => f.file.startsWith('rag-') && (f.labels.claims ?? []).length > 0)!
    const traceId = hex(16)
    const spans = fixture.spans as Array<Record<string, unknown>>
    const first = spans.reduce((m, x) => (BigInt(String(x.start_time_unix_ns)) < m ? BigInt(String(x.start_time_unix_ns)) : m), BigInt(String(spans[0]!.start_time_unix_ns)))
    const shift = BigInt(Date.now() - 60_000) * 1_000_000n - first
    const body = spans.map((x) => ({
      ...x,
      trace_id: traceId,
      start_time_unix_ns: (BigInt(String(x.start_time_unix_ns)) + shift).toString(),
      end_time_unix_ns: (BigInt(String(x.end_time_unix_ns)) + shift).toString(),
    }))
    const sent = await fetch(s.ingestUrl + '/v1/traces', { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', 'x-svc-api-key': TEST_KEY } })
    expect(sent.status).toBe(202)

    const health = await eventually(async () => {
      const h = await getJson(`${WS_PATH}/health/ingestion`)
      return h.engines.content_reliability?.status === 'stalled' && h.engines.external_crosscheck?.status === 'stalled' ? h : undefined
    }, 60_000, 200)
    expect(health.engines.decision_trace.status).toBe('ok')
    expect((await getJson(`${WS_PATH}/traces/${traceId}/content-reliability`)).computed_at).toBeNull()
    expect(model.requests).toEqual([])
    expect(web.requests).toEqual([])
  })
})
