/**
 * The reconstruction engines end to end on a running stack, in either bus mode:
 * labelled fixture traces ingested as a producer would send them, analysed by the
 * engine workers, served by the five trace sub-resources, graded in the trace list;
 * an engine switched off stops producing while the others go on; an organization
 * LLM credential routes reliability and decomposition through the model (a
 * loopback OpenAI-compatible server); a provider that cannot be reached makes the
 * engines that need it fail, and ingestion health shows them stalled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadFixtures, type Fixture } from '@svc/engines/test-support/fixtures'
import { refusedPort, startFakeOpenAi, type FakeOpenAi } from '@svc/engines/test-support/fake-openai'
import { startFakeSearch, type FakeSearch } from '@svc/engines/test-support/fake-search'
import { eventually, startTestStack, TEST_KEY, type BusMode } from '../support/stack.js'
import { hex } from '../support/traces.js'
import type { TestJson } from '@svc/shared/test-support/json'

type Stack = Awaited<ReturnType<typeof startTestStack>>
const WS_PATH = '/v1/observ/orgs/acme/workspaces/agents'
const ORG_PATH = '/v1/observ/orgs/acme'

/** A fixture as a fresh trace: new trace id, times moved to a minute ago (inside retention). */
function freshCopy(f: Fixture): { traceId: string; spans: Array<Record<string, unknown>> } {
  const traceId = hex(16)
  const spans = f.spans as Array<Record<string, unknown>>
  const start = spans.reduce((m, s) => (BigInt(String(s.start_time_unix_ns)) < m ? BigInt(String(s.start_time_unix_ns)) : m), BigInt(String(spans[0]!.start_time_unix_ns)))
  const shift = BigInt(Date.now() - 60_000) * 1_000_000n - start
  return {
    traceId,
    spans: spans.map((s) => ({
      ...s,
      trace_id: traceId,
      start_time_unix_ns: (BigInt(String(s.start_time_unix_ns)) + shift).toString(),
      end_time_unix_ns: (BigInt(String(s.end_time_unix_ns)) + shift).toString(),
    })),
  }
}

export function enginesSuite(mode: BusMode) {
  describe(`reconstruction engines (${mode} bus)`, () => {
    let s: Stack
    let fake: FakeOpenAi
    let web: FakeSearch
    const fixtures = loadFixtures()
    const api = (path: string, init: RequestInit = {}) =>
      fetch(s.apiUrl + path, { ...init, headers: { 'x-svc-api-key': TEST_KEY, 'content-type': 'application/json', ...(init.headers ?? {}) } })
    const getJson = async (path: string) => {
      const res = await api(path)
      expect(res.status, path).toBe(200)
      return (await res.json()) as Record<string, TestJson>
    }
    const send = async (f: Fixture) => {
      const copy = freshCopy(f)
      const res = await fetch(s.ingestUrl + '/v1/traces', { method: 'POST', body: JSON.stringify(copy.spans), headers: { 'content-type': 'application/json', 'x-svc-api-key': TEST_KEY } })
      expect(res.status).toBe(202)
      return copy.traceId
    }
    /** Waits until the sub-resource says computed. */
    const computed = (traceId: string, sub: string, timeoutMs = 30_000) =>
      eventually(async () => {
        const b = await getJson(`${WS_PATH}/traces/${traceId}/${sub}`)
        return b.computed_at ? b : undefined
      }, timeoutMs, 200)
    /**
     * The loopback model's answers to the engines' prompts. Reliability lists numbered
     * claims, each with the numbers of the passages it may be judged against: the
     * first claim that has passages is called supported by its first one, every other
     * claim supported by a passage it was never shown (the engine must not believe it).
     * Decomposition gets two parts, one addressed by span 1.
     */
    const modelAnswers = (body: TestJson) => {
      const system = String(body.messages?.find((m: TestJson) => m.role === 'system')?.content ?? '')
      const user = String(body.messages?.find((m: TestJson) => m.role === 'user')?.content ?? '')
      if (user.includes('<claims>')) {
        const claims = [...user.matchAll(/^\[(\d+)\] .*\(passages: ([^)]*)\)$/gm)].map((m) => ({ n: Number(m[1]), passages: m[2] === 'none' ? [] : m[2]!.split(',').map(Number) }))
        const backed = claims.find((c) => c.passages.length)?.n
        return {
          object: { claims: claims.map((c) => ({ claim: c.n, verdict: 'supported', confidence: 0.9, evidence: c.n === backed ? c.passages[0]! : 999 })) },
          usage: { prompt_tokens: 321, completion_tokens: 54 },
        }
      }
      if (system.length) return { object: { sub_tasks: [{ text: 'the part the model found', resolved: true, spans: [1] }, { text: 'a part never addressed', resolved: false, spans: [] }] } }
      return { status: 400, message: 'unexpected request' }
    }
    const byName = (prefix: string, pick: (f: Fixture) => boolean) => {
      const f = fixtures.find((x) => x.file.startsWith(prefix) && pick(x))
      if (!f) throw new Error(`no ${prefix} fixture matching the test's needs`)
      return f
    }

    beforeAll(async () => {
      web = await startFakeSearch()
      fake = await startFakeOpenAi()
      s = await startTestStack(mode, {
        SVC_ENGINE_RETRY_BASE_MS: '20',
        SVC_ENGINE_STALL_MS: '60000',
        SVC_SEARCH_API_BASE: web.url,
        // The platform default model (fallback only) lives on the same loopback server, under its own name and key.
        SVC_PLATFORM_LLM_PROVIDER: 'openai',
        SVC_PLATFORM_LLM_MODEL: 'platform-default-1',
        SVC_PLATFORM_LLM_API_KEY: 'sk-platform-0009',
        SVC_PLATFORM_LLM_API_BASE: fake.url,
      })
      // Engines need the text: capture it (the default is off).
      expect((await api(`${WS_PATH}/settings/capture-text`, { method: 'PATCH', body: JSON.stringify({ capture_text: true }) })).status).toBe(200)
    })
    afterAll(async () => {
      await fake?.close()
      await web?.close()
      await s?.close()
    })

    it('analyses an ingested trace with every engine; the grade reaches the trace list and grade_min', async () => {
      const rag = byName('rag-', (f) => (f.labels.claims ?? []).some((c) => c.supported) && (f.labels.sources ?? []).length > 0)
      const traceId = await send(rag)
      const reliability = await computed(traceId, 'content-reliability')
      expect(reliability).toMatchObject({ trace_id: traceId, analysis_mode: 'deterministic' })
      expect(reliability.claims.length).toBeGreaterThan(0)
      expect(reliability.score).toBeGreaterThanOrEqual(0)
      expect(reliability.score).toBeLessThanOrEqual(1)
      expect(reliability.grade).not.toBe('')
      for (const c of reliability.claims) expect(Object.keys(c)).toEqual(expect.arrayContaining(['claim', 'supported', 'confidence', 'evidence_span_id']))

      const decisions = await computed(traceId, 'decision-trace')
      const ids = new Set(decisions.nodes.map((n: TestJson) => n.id))
      for (const e of decisions.edges) expect(ids.has(e.from) && ids.has(e.to)).toBe(true)
      const decomposition = await computed(traceId, 'decomposition')
      expect(typeof decomposition.original_query).toBe('string')
      const sources = await computed(traceId, 'sources-matrix')
      expect(sources.sources.length).toBeGreaterThan(0)
      const optimization = await computed(traceId, 'optimization')
      expect(optimization.total_estimated_savings_usd).toBeCloseTo(optimization.findings.reduce((a: number, f: TestJson) => a + f.estimated_savings_usd, 0), 6)

      // The list shows the grade the engine gave (0-100 score), and grade_min filters on it.
      const row = await eventually(async () => {
        const list = await getJson(`${WS_PATH}/traces?include_empty=true&page_size=500`)
        const r = list.data.find((x: TestJson) => x.trace_id === traceId)
        return r?.grade ? r : undefined
      })
      expect(row.grade).toBe(reliability.grade)
      expect(row.score).toBeCloseTo(reliability.score * 100, 1)
      expect(row.scorer_version).toBe(reliability.scorer_version)
      const atGrade = await getJson(`${WS_PATH}/traces?include_empty=true&page_size=500&grade_min=${encodeURIComponent(reliability.grade)}`)
      expect(atGrade.data.map((x: TestJson) => x.trace_id)).toContain(traceId)
      if (reliability.grade !== 'A+') {
        const above = await getJson(`${WS_PATH}/traces?include_empty=true&page_size=500&grade_min=A%2B`)
        expect(above.data.map((x: TestJson) => x.trace_id)).not.toContain(traceId)
      }
      // The sources the trace used are now in the workspace's source list.
      const list = await getJson(`${WS_PATH}/sources`)
      expect(list.sources.length).toBeGreaterThan(0)
      // Health: every engine ran and none is stalled.
      const health = await getJson(`${WS_PATH}/health/ingestion`)
      expect(health.engines.content_reliability).toMatchObject({ status: 'ok' })
      expect(health.engines.content_reliability.last_run_at).not.toBeNull()
    })

    it('an engine switched off stops producing for new traces while the others go on', async () => {
      expect((await api(`${WS_PATH}/engine-settings`, { method: 'PUT', body: JSON.stringify({ engines: { decision_trace: false } }) })).status).toBe(200)
      const traceId = await send(byName('rag-', () => true))
      await computed(traceId, 'content-reliability')
      await computed(traceId, 'sources-matrix')
      // The results of the same batch have landed; nothing comes for the switched-off engine.
      await new Promise((r) => setTimeout(r, 1500))
      const off = await getJson(`${WS_PATH}/traces/${traceId}/decision-trace`)
      expect(off).toMatchObject({ trace_id: traceId, nodes: [], edges: [], computed_at: null })
      expect((await api(`${WS_PATH}/engine-settings`, { method: 'PUT', body: JSON.stringify({ engines: {} }) })).status).toBe(200)
    })

    it('answers 404 for an unknown trace on every engine sub-resource', async () => {
      for (const sub of ['content-reliability', 'decision-trace', 'decomposition', 'sources-matrix', 'optimization'])
        expect((await api(`${WS_PATH}/traces/${hex(16)}/${sub}`)).status).toBe(404)
    })

    it('with a search credential, external_crosscheck checks claims on the open web and broaden_sources adds what it finds; without, both stay closed', async () => {
      // The search service answers every query with a page stating exactly the claim searched for.
      web.setHandler((query) => ({ results: [{ url: 'https://facts.example.org/page', title: 'facts', content: query }] }))
      expect((await api(`${ORG_PATH}/search-credentials`, { method: 'PUT', body: JSON.stringify({ api_key: 'tvly-e2e-secret-7' }) })).status).toBe(200)
      expect((await api(`${WS_PATH}/engine-settings`, { method: 'PUT', body: JSON.stringify({ engines: { external_crosscheck: true } }) })).status).toBe(200)
      expect((await api(`${WS_PATH}/settings/broaden-sources`, { method: 'PATCH', body: JSON.stringify({ broaden_sources: true }) })).status).toBe(200)
      const hallucinated = byName('rag-', (f) => (f.labels.claims ?? []).length > 0 && (f.labels.claims ?? []).every((c) => !c.supported))
      const traceId = await send(hallucinated)
      const checked = await eventually(async () => {
        const b = await getJson(`${WS_PATH}/traces/${traceId}/content-reliability`)
        return b.computed_at && b.external_crosscheck ? b : undefined
      }, 30_000, 200)
      expect(checked.external_crosscheck.mode).toBe('open_web')
      expect(checked.external_crosscheck.checked).toBeGreaterThan(0)
      expect(checked.external_crosscheck.claims.some((c: TestJson) => c.verdict === 'supported' && c.url === 'https://facts.example.org/page')).toBe(true)
      const sources = await computed(traceId, 'sources-matrix')
      expect(sources.mode).toBe('open_web')
      expect(sources.sources).toContainEqual(expect.objectContaining({ url: 'https://facts.example.org/page', kind: 'web', verification_level: 'web_corroborated', influence_score: 0 }))
      expect(web.requests.length).toBeGreaterThan(0)
      for (const r of web.requests) expect(r.headers.authorization).toBe('Bearer tvly-e2e-secret-7')

      expect((await api(`${ORG_PATH}/search-credentials`, { method: 'DELETE' })).status).toBe(204)
      const seen = web.requests.length
      const closedId = await send(hallucinated)
      const closed = await eventually(async () => {
        const b = await getJson(`${WS_PATH}/traces/${closedId}/content-reliability`)
        return b.external_crosscheck ? b : undefined
      }, 30_000, 200)
      expect(closed.external_crosscheck).toMatchObject({ mode: 'closed_knowledge_base', checked: 0 })
      expect((await computed(closedId, 'sources-matrix')).mode).toBe('closed_knowledge_base')
      expect(web.requests.length).toBe(seen)
      expect((await api(`${WS_PATH}/engine-settings`, { method: 'PUT', body: JSON.stringify({ engines: {} }) })).status).toBe(200)
      expect((await api(`${WS_PATH}/settings/broaden-sources`, { method: 'PATCH', body: JSON.stringify({ broaden_sources: false }) })).status).toBe(200)
    })

    it("with the organization's LLM credential, reliability and decomposition ask the model and use its answers", async () => {
      const secret = 'sk-e2e-llm-key-4242'
      fake.setHandler(modelAnswers)
      const put = await api(`${ORG_PATH}/llm-credentials`, { method: 'PUT', body: JSON.stringify({ provider: 'openai', model_id: 'gpt-4o-mini', api_key: secret, api_base: fake.url }) })
      expect(put.status).toBe(200)
      const rag = byName('rag-', (f) => (f.labels.sources ?? []).length > 0)
      const traceId = await send(rag)
      const reliability = await computed(traceId, 'content-reliability')
      expect(reliability.analysis_mode).toBe('llm')
      expect(reliability.scorer_version).toMatch(/\+llm$/)
      // The model's verdicts are used, every passage number checked: the claim it backed with one of its own
      // passages is supported with that passage's span; those it backed with a passage it was never shown are not.
      const supported = reliability.claims.filter((c: TestJson) => c.supported)
      expect(supported).toHaveLength(1)
      expect(supported[0].evidence_span_id).toMatch(/^[0-9a-f]{16}$/)
      expect(reliability.claims.length).toBeGreaterThan(1)
      for (const c of reliability.claims.filter((x: TestJson) => !x.supported)) expect(c.evidence_span_id).toBeNull()
      const decomposition = await computed(traceId, 'decomposition')
      expect(decomposition.analysis_mode).toBe('llm')
      expect(decomposition.sub_tasks.map((t: TestJson) => t.text)).toEqual(['the part the model found', 'a part never addressed'])
      expect(decomposition.coverage).toBe(0.5)

      // What the engines sent: the configured model and key, the trace's answer and evidence.
      const calls = fake.requests.filter((r) => r.path.endsWith('/chat/completions'))
      expect(calls.length).toBeGreaterThanOrEqual(2)
      for (const c of calls) {
        expect(c.headers.authorization).toBe(`Bearer ${secret}`)
        expect(c.body.model).toBe('gpt-4o-mini')
      }
      const asked = calls.map((c) => JSON.stringify(c.body.messages)).join('\n')
      expect(asked).toContain('<claims>')
      expect(asked).toContain('<passages>')
      // Deterministic engines are unaffected by the credential.
      expect((await computed(traceId, 'decision-trace')).analysis_mode).toBe('deterministic')
      expect((await api(`${ORG_PATH}/llm-credentials`, { method: 'DELETE' })).status).toBe(204)
    })

    it('an unreachable LLM provider (no fallback) makes the LLM engines fail and ingestion health shows them stalled; with fallback the platform model answers', async () => {
      const port = await refusedPort()
      const put = await api(`${ORG_PATH}/llm-credentials`, { method: 'PUT', body: JSON.stringify({ provider: 'openai', model_id: 'gpt-4o-mini', api_key: 'sk-unreachable-0001', api_base: `http://127.0.0.1:${port}/v1` }) })
      expect(put.status).toBe(200)
      const traceId = await send(byName('rag-', () => true))
      // The deterministic engines still answer for the trace...
      await computed(traceId, 'decision-trace')
      // ...while reliability is failing: stalled, and the workspace degraded.
      const health = await eventually(async () => {
        const h = await getJson(`${WS_PATH}/health/ingestion`)
        return h.engines.content_reliability?.status === 'stalled' ? h : undefined
      }, 30_000, 200)
      expect(health.status).toBe('degraded')
      expect(health.engines.decision_trace.status).toBe('ok')
      const reliability = await getJson(`${WS_PATH}/traces/${traceId}/content-reliability`)
      expect(reliability.computed_at).toBeNull()

      // With fallback on, the same outage is answered by the platform default model.
      expect((await api(`${ORG_PATH}/llm-credentials/fallback`, { method: 'PATCH', body: JSON.stringify({ enabled: true }) })).status).toBe(200)
      const before = fake.requests.length
      const next = await send(byName('rag-', () => true))
      const answered = await computed(next, 'content-reliability')
      expect(answered.analysis_mode).toBe('llm')
      const platformCalls = fake.requests.slice(before)
      expect(platformCalls.length).toBeGreaterThan(0)
      for (const c of platformCalls) {
        expect(c.body.model).toBe('platform-default-1')
        expect(c.headers.authorization).toBe('Bearer sk-platform-0009')
      }
      expect((await api(`${ORG_PATH}/llm-credentials`, { method: 'DELETE' })).status).toBe(204)
    })

    it("the stored key cannot be pointed at another address without entering it again: 422, and the engines never send it there", async () => {
      const secret = 'sk-e2e-bound-to-A-5150'
      const elsewhere = await startFakeOpenAi(() => ({ status: 500, message: 'should never be called' }))
      try {
        fake.setHandler(modelAnswers)
        const put = (body: Record<string, unknown>) => api(`${ORG_PATH}/llm-credentials`, { method: 'PUT', body: JSON.stringify(body) })
        expect((await put({ provider: 'openai', model_id: 'gpt-4o-mini', api_key: secret, api_base: fake.url })).status).toBe(200)
        // A dev moving the endpoint, or the provider, while keeping the key: refused, nothing changes.
        expect((await put({ provider: 'openai', model_id: 'gpt-4o-mini', api_base: elsewhere.url })).status).toBe(422)
        expect((await put({ provider: 'openai-compatible', model_id: 'gpt-4o-mini', api_base: fake.url })).status).toBe(422)
        expect(await getJson(`${ORG_PATH}/llm-credentials`)).toMatchObject({ provider: 'openai', api_base: fake.url, api_key_last4: '5150' })

        const before = fake.requests.length
        const traceId = await send(byName('rag-', () => true))
        expect((await computed(traceId, 'content-reliability')).analysis_mode).toBe('llm')
        const calls = fake.requests.slice(before).filter((r) => r.path.endsWith('/chat/completions'))
        expect(calls.length).toBeGreaterThan(0)
        for (const c of calls) expect(c.headers.authorization).toBe(`Bearer ${secret}`)
        expect(elsewhere.requests).toEqual([])
      } finally {
        await elsewhere.close()
        await api(`${ORG_PATH}/llm-credentials`, { method: 'DELETE' })
      }
    })
  })
}
