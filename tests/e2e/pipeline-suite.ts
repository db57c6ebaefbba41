import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { trace, SpanKind, SpanStatusCode } from '@opentelemetry/api'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { traceCompletedV1 } from '@svc/shared/bus/records'
import { engineJobsTopic } from '@svc/shared/bus/topics'
import { eventually, startTestStack, TEST_KEY, TEST_PASSWORD, type BusMode } from '../support/stack.js'
import { agentTrace, hex, otlpEnvelope } from '../support/traces.js'
import { walkAllRoutes } from './route-walk.js'
import type { TestJson } from '@svc/shared/test-support/json'

type Stack = Awaited<ReturnType<typeof startTestStack>>

/** The spine end to end: the same assertions for the embedded log and for Kafka. */
export function pipelineSuite(mode: BusMode) {
  describe(`pipeline (${mode} bus)`, () => {
    let s: Stack
    const tracesPath = '/v1/observ/orgs/acme/workspaces/agents/traces'
    const api = (path: string, init: RequestInit = {}) => fetch(s.apiUrl + path, { ...init, headers: { 'x-svc-api-key': TEST_KEY, ...(init.headers ?? {}) } })
    const ingest = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(s.ingestUrl + '/v1/traces', { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', 'x-svc-api-key': TEST_KEY, ...headers } })
    const listed = async (traceId: string) => {
      const res = await api(`${tracesPath}?include_empty=true&page_size=500`)
      const body = (await res.json()) as { data: Array<Record<string, unknown>> }
      return body.data.find((r) => r.trace_id === traceId)
    }

    beforeAll(async () => {
      s = await startTestStack(mode)
    })
    afterAll(async () => {
      await s?.close()
    })

    it('a stock OpenTelemetry JS exporter with only the API key header delivers a listable trace within 2 s', async () => {
      const exporter = new OTLPTraceExporter({ url: `${s.ingestUrl}/v1/traces`, headers: { 'x-svc-api-key': TEST_KEY } })
      const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ 'service.name': 'stock-exporter-app' }), spanProcessors: [new SimpleSpanProcessor(exporter)] })
      const tracer = provider.getTracer('e2e')
      const root = tracer.startSpan('invoke_agent', { kind: SpanKind.SERVER })
      const ctx = trace.setSpan((await import('@opentelemetry/api')).context.active(), root)
      const llm = tracer.startSpan('chat gpt-4o', { kind: SpanKind.CLIENT, attributes: { 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 321, 'gen_ai.usage.output_tokens': 54 } }, ctx)
      llm.setStatus({ code: SpanStatusCode.OK })
      llm.end()
      root.end()
      await provider.forceFlush()
      const delivered = Date.now()
      const traceId = root.spanContext().traceId

      // SimpleSpanProcessor exports each span in its own request, so the trace can be
      // listed with one span for a moment; "delivered" means both spans are in.
      const row = await eventually(async () => {
        const r = await listed(traceId)
        return r?.span_count === 2 ? r : undefined
      }, 2000, 25)
      const visibleMs = Date.now() - delivered
      expect(row).toMatchObject({ trace_id: traceId, span_count: 2, input_tokens: 321, output_tokens: 54, project_id_out: 'checkout-bot' })
      const detail = await api(`${tracesPath}/${traceId}`)
      expect(detail.status).toBe(200)
      const body = (await detail.json()) as { spans: Array<{ name: string; parent_span_id: string | null; kind: string; attributes: Record<string, unknown> }> }
      const rootSpan = body.spans.find((x) => x.name === 'invoke_agent')!
      expect(rootSpan.parent_span_id).toBeNull()
      expect(rootSpan.kind).toBe('SERVER')
      expect(body.spans.find((x) => x.name === 'chat gpt-4o')!.attributes['gen_ai.usage.input_tokens']).toBe(321)
      console.info(`[${mode}] stock exporter trace visible ${visibleMs} ms after the exporter's request returned`)
      await provider.shutdown()
    })

    it('sums cost and tokens from gen_ai child spans, and a retried batch counts once', async () => {
      const t = agentTrace({ spans: 20 })
      const first = await ingest(otlpEnvelope(t.spans))
      expect(first.status).toBe(202)
      const retry = await ingest(otlpEnvelope(t.spans))
      expect(retry.status).toBe(202)
      const row = await eventually(async () => {
        const r = await listed(t.traceId)
        return r && r.span_count === t.spanCount ? r : undefined
      })
      expect(row.input_tokens).toBe(t.inputTokens)
      expect(row.output_tokens).toBe(t.outputTokens)
      expect(row.cost_usd_total).toBeCloseTo(t.cost, 9)
      expect(row.ws_uuid_out).toBe([...s.control.state.workspaces.values()].find((w) => w.slug === 'agents')!.id)
      // Give a duplicate a chance to land, then check again: still one of each span.
      await new Promise((r) => setTimeout(r, 600))
      expect((await listed(t.traceId))!.span_count).toBe(t.spanCount)
    })

    it('accepts the flat span array and returns the spec detail shape', async () => {
      const traceId = hex(16)
      const rootId = hex(8)
      // Nanosecond times sent as JSON numbers are doubles (53-bit mantissa, 256 ns steps
      // at today's epoch): a start on a 4 ms boundary keeps every value below exact.
      const start = BigInt(Math.floor((Date.now() - 60_000) / 4) * 4) * 1_000_000n
      const res = await ingest([
        { trace_id: traceId, span_id: rootId, name: 'agent run', start_time_unix_ns: Number(start), end_time_unix_ns: Number(start + 2_500_000_000n), status_code: 'OK', attributes: { 'svc.project_id': 'flat-project', 'retries': 2, 'ok': true } },
        { trace_id: traceId, span_id: hex(8), parent_span_id: rootId, name: 'llm', start_time_unix_ns: Number(start + 1_000_000_000n), end_time_unix_ns: Number(start + 2_000_000_000n), status_code: 'ERROR', attributes: { 'gen_ai.request.model': 'claude-sonnet-4', 'gen_ai.usage.input_tokens': 10, 'gen_ai.usage.output_tokens': 5 } },
      ])
      expect(res.status).toBe(202)
      const row = await eventually(() => listed(traceId))
      expect(row).toMatchObject({ project_id_out: 'flat-project', span_count: 2, input_tokens: 10, output_tokens: 5, grade: '', scorer_version: '' })
      expect(Object.keys(row).sort()).toEqual(['cost_usd_total', 'grade', 'input_tokens', 'output_tokens', 'project_id_out', 'score', 'scorer_version', 'span_count', 'trace_end', 'trace_id', 'trace_start', 'ws_uuid_out'])
      expect(new Date(row.trace_end as string).getTime() - new Date(row.trace_start as string).getTime()).toBe(2500)
      const detail = (await (await api(`${tracesPath}/${traceId}`)).json()) as Record<string, TestJson>
      expect(detail).toMatchObject({ trace_id: traceId, project_id: 'flat-project', duration_ms: 2500 })
      const root = detail.spans.find((x: TestJson) => x.span_id === rootId)
      expect(root.attributes).toMatchObject({ 'svc.project_id': 'flat-project', retries: 2, ok: true })
      expect(detail.spans.find((x: TestJson) => x.span_id !== rootId)).toMatchObject({ status_code: 'ERROR', duration_ms: 1000, parent_span_id: rootId })
    })

    it('dead-letters an invalid span inside an accepted batch', async () => {
      const good = agentTrace({ spans: 3 })
      const bad = { ...good.spans[1], spanId: 'not-hex', traceId: good.traceId }
      const res = await ingest(otlpEnvelope([...good.spans, bad]))
      expect(res.status).toBe(202)
      const body = (await res.json()) as { partialSuccess?: { rejectedSpans: string } }
      expect(body.partialSuccess?.rejectedSpans).toBe('1')
      const ws = [...s.control.state.workspaces.values()].find((w) => w.slug === 'agents')!.id
      const n = await eventually(async () => {
        const rows = await s.store.query<{ n: string }>('SELECT count() AS n FROM dead_letters_v1 WHERE workspace_id = {ws:String}', { ws })
        return Number(rows[0]?.n) >= 1 ? Number(rows[0]?.n) : undefined
      })
      expect(n).toBeGreaterThanOrEqual(1)
    })

    it('emits a TraceCompleted job to every default-enabled engine topic once the trace is quiet', async () => {
      const t = agentTrace({ spans: 4 })
      const seen = new Map<string, number>()
      const sub = await s.bus.subscribe({
        group: `e2e-jobs-${hex(4)}`,
        topics: [engineJobsTopic('content_reliability'), engineJobsTopic('decomposition'), engineJobsTopic('external_crosscheck')],
        fromBeginning: true,
        onBatch: async (records) => {
          for (const r of records) {
            const job = traceCompletedV1.decode(r.value)
            if (job.trace_id === t.traceId) seen.set(job.engine, job.span_count)
          }
        },
      })
      await sub.ready
      expect((await ingest(otlpEnvelope(t.spans))).status).toBe(202)
      await eventually(async () => (seen.has('content_reliability') && seen.has('decomposition') ? true : undefined), 15_000)
      expect(seen.get('content_reliability')).toBe(4)
      // external_crosscheck is off by default: no job for it.
      expect(seen.has('external_crosscheck')).toBe(false)
      await sub.close()
    })

    it('rejects what the spec says to reject', async () => {
      expect((await fetch(s.ingestUrl + '/v1/otlp/traces', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })).status).toBe(401)
      expect((await ingest({}, { 'x-svc-api-key': 'dr_unknownKey000000000000000000000000000' })).status).toBe(401)
      expect((await fetch(s.ingestUrl + '/v1/otlp/traces', { method: 'POST', body: 'x', headers: { 'content-type': 'application/x-protobuf', 'x-svc-api-key': TEST_KEY } })).status).toBe(415)
      expect((await fetch(s.ingestUrl + '/v1/otlp/traces', { method: 'POST', body: '{not json', headers: { 'content-type': 'application/json', 'x-svc-api-key': TEST_KEY } })).status).toBe(400)
      expect((await ingest({ resourceSpans: {} })).status).toBe(400)
      expect((await api(`${tracesPath}?grade_min=Z`)).status).toBe(400)
      expect((await api(`${tracesPath}?cursor=%%%`)).status).toBe(400)
      expect((await api(`${tracesPath}/${hex(16)}`)).status).toBe(404)
      expect((await api('/v1/observ/orgs/acme/workspaces/nope/traces')).status).toBe(404)
      expect((await api('/v1/observ/orgs/nope/workspaces/agents/traces')).status).toBe(404)
    })

    it('control plane on the bus: one 201 for racing slugs, keys revoked at ingest at once, state rebuilt after a restart', async () => {
      const login = await fetch(s.apiUrl + '/v1/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'owner@acme.test', password: TEST_PASSWORD }) })
      const owner = { authorization: `Bearer ${((await login.json()) as { access_token: string }).access_token}`, 'content-type': 'application/json' }
      const orgId = [...s.control.state.orgs.values()].find((o) => o.slug === 'acme')!.id
      const racing = await Promise.all(
        Array.from({ length: 4 }, () => fetch(`${s.apiUrl}/v1/orgs/${orgId}/workspaces`, { method: 'POST', headers: owner, body: JSON.stringify({ name: 'Race', slug: 'race' }) })),
      )
      expect(racing.map((r) => r.status).sort()).toEqual([201, 409, 409, 409])
      const made = await fetch(`${s.apiUrl}/v1/observ/orgs/acme/workspaces/race/api-keys`, { method: 'POST', headers: owner, body: JSON.stringify({ name: 'exporter', role: 'dev' }) })
      expect(made.status).toBe(201)
      const key = (await made.json()) as { id: string; key: string }
      const send = () => ingest(otlpEnvelope(agentTrace({ spans: 2 }).spans), { 'x-svc-api-key': key.key })
      expect((await send()).status).toBe(202)
      expect((await fetch(`${s.apiUrl}/v1/observ/orgs/acme/workspaces/race/api-keys/${key.id}`, { method: 'DELETE', headers: owner })).status).toBe(204)
      expect((await send()).status).toBe(401)
      const patched = await fetch(`${s.apiUrl}/v1/orgs/${orgId}`, { method: 'PATCH', headers: owner, body: JSON.stringify({ contact_email: 'ops@acme.test' }) })
      expect(patched.status).toBe(200)

      // Every process folds the control topic from the start: a restart rebuilds all of it.
      await s.close()
      s = await startTestStack(mode, s.env)
      const again = await fetch(s.apiUrl + '/v1/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'owner@acme.test', password: TEST_PASSWORD }) })
      const owner2 = { authorization: `Bearer ${((await again.json()) as { access_token: string }).access_token}` }
      const spaces = (await (await fetch(`${s.apiUrl}/v1/orgs/${orgId}/workspaces`, { headers: owner2 })).json()) as Array<{ slug: string }>
      expect(spaces.map((w) => w.slug).sort()).toEqual(['agents', 'race'])
      expect(((await (await fetch(`${s.apiUrl}/v1/orgs/${orgId}`, { headers: owner2 })).json()) as { contact_email: string }).contact_email).toBe('ops@acme.test')
      expect((await send()).status).toBe(401)
      expect((await ingest(otlpEnvelope(agentTrace({ spans: 2 }).spans))).status).toBe(202)
    })

    it('answers every read-API route on this bus (a walk of the whole access table as the owner)', async () => {
      const login = await fetch(s.apiUrl + '/v1/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'owner@acme.test', password: TEST_PASSWORD }) })
      const auth = { authorization: `Bearer ${((await login.json()) as { access_token: string }).access_token}` }
      const t = agentTrace({ spans: 3 })
      expect((await ingest(otlpEnvelope(t.spans))).status).toBe(202)
      await eventually(() => listed(t.traceId))
      const orgId = [...s.control.state.orgs.values()].find((o) => o.slug === 'acme')!.id
      await walkAllRoutes(s.apiUrl, auth, { org: 'acme', orgId, ws: 'agents', traceId: t.traceId })
    })

    it('serves health, whoami, sdk-config, login, me and the OpenAPI document', async () => {
      expect(await (await fetch(s.ingestUrl + '/health')).json()).toEqual({ status: 'ok' })
      expect(await (await fetch(s.apiUrl + '/health')).json()).toEqual({ status: 'ok' })
      const openapi = (await (await fetch(s.apiUrl + '/openapi.json')).json()) as { openapi: string; paths: Record<string, unknown> }
      expect(openapi.openapi).toBe('3.1.0')
      expect(Object.keys(openapi.paths)).toContain('/v1/observ/orgs/{org}/workspaces/{ws}/traces')
      expect((await fetch(s.apiUrl + '/docs')).headers.get('content-type')).toMatch(/text\/html/)
      const who = (await (await fetch(s.ingestUrl + '/v1/auth/whoami', { headers: { authorization: `Bearer ${TEST_KEY}` } })).json()) as Record<string, TestJson>
      expect(who).toMatchObject({ organization: { slug: 'acme' }, workspace: { slug: 'agents' }, project_id: 'checkout-bot', role: 'admin' })
      const cfg = await fetch(s.ingestUrl + '/v1/workspaces/agents/sdk-config', { headers: { 'x-svc-api-key': TEST_KEY } })
      expect(await cfg.json()).toEqual({ capture_text: false })
      const login = await fetch(s.apiUrl + '/v1/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'owner@acme.test', password: TEST_PASSWORD }) })
      expect(login.status).toBe(200)
      const token = ((await login.json()) as { access_token: string }).access_token
      const me = (await (await fetch(s.apiUrl + '/v1/auth/me', { headers: { authorization: `Bearer ${token}` } })).json()) as Record<string, TestJson>
      expect(me).toMatchObject({ email: 'owner@acme.test', auth_method: 'jwt', memberships: [{ org_slug: 'acme', role: 'owner', workspaces: expect.arrayContaining([expect.objectContaining({ workspace_id: expect.any(String), slug: 'agents' })]) }] })
      const wrong = await fetch(s.apiUrl + '/v1/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'owner@acme.test', password: 'nope' }) })
      expect(wrong.status).toBe(401)
      // The JWT reads traces too.
      expect((await fetch(s.apiUrl + tracesPath, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200)
    })
  })
}
