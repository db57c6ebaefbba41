import { gzipSync } from 'node:zlib'
import { beforeEach, describe, expect, it } from 'vitest'
import { deadLetterV1 } from '@svc/shared/bus/records'
import { decodeSpanRecords } from '@svc/shared/bus/span-batch'
import { TOPICS } from '@svc/shared/bus/topics'
import { loadConfig } from '@svc/shared/config'
import { createLogger } from '@svc/shared/log'
import { createIngestApp, type IngestApp } from '../app.js'
import { FORMER_MEMBER_KEY, KEY, ORG, OTHER_KEY, OTHER_ORG_WS, OTHER_WS, REVOKED_KEY, testControlState, WS } from '../test-support/control.js'
import { collectorPayload, flatPayload, jsExporterPayload, ROOT_ID, TRACE_ID } from '../test-support/payloads.js'
import { RecordingBus } from '../test-support/recording-bus.js'
import { eventually } from '@svc/shared/test-support/eventually'

const MAX_BODY = 64 * 1024
let bus: RecordingBus
let ingest: IngestApp

function build(env: Record<string, string> = {}, produceTimeoutMs?: number) {
  bus = new RecordingBus()
  const config = loadConfig({ SVC_INGEST_MAX_BODY_BYTES: String(MAX_BODY), ...env })
  ingest = createIngestApp({ bus, control: { state: testControlState() }, config, log: createLogger({ level: 'silent' }), produceTimeoutMs })
}
beforeEach(() => build())

const json = { 'content-type': 'application/json' }
const auth = { 'x-svc-api-key': KEY }
const post = async (body: unknown, headers: Record<string, string> = { ...json, ...auth }, path = '/v1/otlp/traces'): Promise<Response> =>
  ingest.app.request(path, { method: 'POST', body: typeof body === 'string' || body instanceof Uint8Array ? (body as BodyInit) : JSON.stringify(body), headers })
const get = async (path: string, headers: Record<string, string> = auth): Promise<Response> => ingest.app.request(path, { headers })
const spans = () => bus.records(TOPICS.spansRaw).flatMap((r) => decodeSpanRecords([r.value]).map((span) => ({ key: r.key, span })))
const deadLetters = () => bus.records(TOPICS.spansRawDlq).map((r) => deadLetterV1.decode(r.value))

describe('authentication', () => {
  it("401 without a key, with an unknown, revoked or JWT credential, or a key whose creator left the organization", async () => {
    for (const headers of [
      json,
      { ...json, 'x-svc-api-key': 'dr_' + 'x'.repeat(40) },
      { ...json, 'x-svc-api-key': REVOKED_KEY },
      { ...json, 'x-svc-api-key': FORMER_MEMBER_KEY },
      { ...json, authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1In0.c2ln' },
      { ...json, authorization: `Basic ${KEY}` },
    ]) {
      const res = await post(jsExporterPayload(), headers)
      expect(res.status).toBe(401)
      expect(await res.json()).toMatchObject({ error: 'unauthorized' })
    }
    expect(bus.calls).toEqual([])
  })

  it('accepts both header styles', async () => {
    expect((await post(jsExporterPayload(), { ...json, 'x-svc-api-key': KEY })).status).toBe(202)
    expect((await post(jsExporterPayload(), { ...json, authorization: `Bearer ${KEY}` })).status).toBe(202)
  })
})

describe('POST /v1/otlp/traces', () => {
  it('202 with the spans durable on spans.raw.v2, a record per trace keyed workspace:trace, tenant from the key', async () => {
    const res = await post(jsExporterPayload())
    expect(res.status).toBe(202)
    expect(await res.json()).toEqual({ accepted_spans: 2, rejected_spans: 0 })
    expect(bus.records(TOPICS.spansRaw)).toHaveLength(1)
    const got = spans()
    expect(got.map((g) => g.key)).toEqual([`${WS.id}:${TRACE_ID}`, `${WS.id}:${TRACE_ID}`])
    expect(got[0]!.span).toMatchObject({ org_id: ORG.id, workspace_id: WS.id, project_id: 'web', trace_id: TRACE_ID, span_id: ROOT_ID, parent_span_id: '', service_name: 'support-agent' })
    expect(BigInt(got[0]!.span.start_time_unix_nano)).toBe(1718000000000000000n)
    expect(got[1]!.span.attributes['gen_ai.usage.input_tokens']).toBe('812')
    expect(ingest.metrics).toMatchObject({ requests: 1, accepted_spans: 2, rejected_spans: 0, inflight_bytes: 0 })
  })

  it('serves the /v1/traces alias and the flat form', async () => {
    expect((await post(flatPayload(), undefined, '/v1/traces')).status).toBe(202)
    expect(spans()[0]!.span).toMatchObject({ name: 'agent.run', service_name: 'flat-svc', workspace_id: WS.id })
  })

  it('writes into the key\'s own workspace even when attributes claim another', async () => {
    const body = collectorPayload()
    body.resourceSpans[0]!.resource.attributes.push({ key: 'svc.workspace_id', value: { stringValue: OTHER_ORG_WS.id } })
    expect((await post(body, { ...json, 'x-svc-api-key': OTHER_KEY })).status).toBe(202)
    expect(spans()[0]!.span).toMatchObject({ org_id: ORG.id, workspace_id: OTHER_WS.id, project_id: 'research' })
  })

  it('415 for protobuf, 400 for bad JSON and malformed shapes, nothing produced', async () => {
    expect((await post('\x0a\x02', { ...auth, 'content-type': 'application/x-protobuf' })).status).toBe(415)
    for (const body of ['{not json', { resourceSpans: 'x' }, [{ ...flatPayload()[0], attributes: 'k=v' }], { hello: 1 }]) {
      const res = await post(body)
      expect(res.status).toBe(400)
      expect(await res.json()).toMatchObject({ error: 'bad_request', message: expect.any(String) })
    }
    expect(bus.calls).toEqual([])
    expect(ingest.metrics.malformed_requests).toBe(4)
  })

  it('413 for a body over the limit and for a gzip bomb; gzip accepted', async () => {
    expect((await post({ pad: 'x'.repeat(MAX_BODY) })).status).toBe(413)
    const bomb = gzipSync(Buffer.alloc(MAX_BODY * 100, 0x20))
    expect((await post(bomb, { ...json, ...auth, 'content-encoding': 'gzip' })).status).toBe(413)
    const res = await post(gzipSync(JSON.stringify(jsExporterPayload())), { ...json, ...auth, 'content-encoding': 'gzip' })
    expect(res.status).toBe(202)
    expect(spans()).toHaveLength(2)
    expect(ingest.metrics.inflight_bytes).toBe(0)
  })

  it('answers only after the produce resolved', async () => {
    bus.hold()
    let answered = false
    const pending = post(jsExporterPayload()).then((r) => ((answered = true), r))
    await eventually(() => bus.pendingCalls === 1, 2000, 2)
    await new Promise((r) => setTimeout(r, 20))
    expect(answered).toBe(false)
    expect(ingest.metrics.inflight_bytes).toBeGreaterThan(0)
    bus.release()
    expect((await pending).status).toBe(202)
    expect(spans()).toHaveLength(2)
    expect(ingest.metrics.inflight_bytes).toBe(0)
  })

  it('dead-letters invalid spans and still answers 202 with partialSuccess', async () => {
    build({ SVC_INGEST_MAX_BODY_BYTES: String(1024 * 1024) })
    const body = jsExporterPayload()
    const list = body.resourceSpans[0]!.scopeSpans[0]!.spans as Array<Record<string, unknown>>
    list.push({ ...list[0], spanId: 'short', name: 'bad-1' }, { ...list[0], traceId: '0'.repeat(32), name: 'bad-2', pad: 'é'.repeat(40_000) })
    const res = await post(body)
    expect(res.status).toBe(202)
    expect(await res.json()).toEqual({
      accepted_spans: 2,
      rejected_spans: 2,
      partialSuccess: { rejectedSpans: '2', errorMessage: 'spanId "short" is not 16 hex characters (or base64 of 8 bytes); traceId is all zeros' },
    })
    expect(spans()).toHaveLength(2)
    const dl = deadLetters()
    expect(dl).toHaveLength(2)
    expect(dl[0]).toMatchObject({ org_id: ORG.id, workspace_id: WS.id, source: 'ingest.otlp', reason: 'spanId "short" is not 16 hex characters (or base64 of 8 bytes)' })
    expect(JSON.parse(dl[0]!.payload)).toMatchObject({ name: 'bad-1', spanId: 'short' })
    expect(Buffer.byteLength(dl[1]!.payload)).toBeLessThanOrEqual(64 * 1024)
    expect(dl[1]!.payload.endsWith('\uFFFD')).toBe(false)
    expect(ingest.metrics).toMatchObject({ accepted_spans: 2, rejected_spans: 2, dead_lettered: 2 })
  })

  it('503 + Retry-After when produce rejects; nothing counted as accepted', async () => {
    bus.failProduce(new Error('broker unreachable'))
    const res = await post(jsExporterPayload())
    expect(res.status).toBe(503)
    expect(res.headers.get('retry-after')).toBe('1')
    expect(await res.json()).toMatchObject({ error: 'unavailable' })
    expect(ingest.metrics).toMatchObject({ accepted_spans: 0, produce_failures: 1, inflight_bytes: 0 })
  })

  it('503 when the bus does not answer in time; the bytes stay charged until it settles', async () => {
    build({}, 30)
    bus.hold()
    const res = await post(jsExporterPayload())
    expect(res.status).toBe(503)
    expect(res.headers.get('retry-after')).toBe('1')
    expect(ingest.metrics.inflight_bytes).toBeGreaterThan(0)
    bus.fail()
    await eventually(() => ingest.metrics.inflight_bytes === 0, 2000, 2)
  })

  it('503 + Retry-After when the in-flight budget is full', async () => {
    const size = Buffer.byteLength(JSON.stringify(jsExporterPayload()))
    build({ SVC_INGEST_MAX_INFLIGHT_BYTES: String(Math.floor(size * 1.5)) })
    bus.hold()
    const first = post(jsExporterPayload())
    await eventually(() => bus.pendingCalls === 1, 2000, 2)
    const second = await post(jsExporterPayload())
    expect(second.status).toBe(503)
    expect(second.headers.get('retry-after')).toBe('1')
    expect(await second.json()).toMatchObject({ error: 'unavailable', message: expect.stringMatching(/capacity/) })
    expect(ingest.metrics.throttled_requests).toBe(1)
    bus.release()
    expect((await first).status).toBe(202)
    expect((await post(jsExporterPayload())).status).toBe(202)
  })

  it('drain refuses new requests and waits for admitted ones', async () => {
    bus.hold()
    const first = post(jsExporterPayload())
    await eventually(() => bus.pendingCalls === 1, 2000, 2)
    const drained = ingest.drain(5_000)
    expect((await post(jsExporterPayload())).status).toBe(503)
    bus.release()
    expect(await drained).toBe(true)
    expect((await first).status).toBe(202)
  })

  it('produces a huge batch in chunks and answers after all of them', async () => {
    // A trace per span: a record per span, 12,000 records in calls of PRODUCE_CHUNK.
    const n = 12_000
    const body = flatPayloadOf(n, (i) => (i + 1).toString(16).padStart(32, '0'))
    build({ SVC_INGEST_MAX_BODY_BYTES: String(16 * 1024 * 1024) })
    const res = await post(body)
    expect(res.status).toBe(202)
    expect(bus.calls.map((c) => c.count)).toEqual([5000, 5000, 2000])
    expect(spans()).toHaveLength(n)
  })
})

describe('identity endpoints', () => {
  it('with capture_text off (the default) strips prompt and completion text before the bus; on, keeps it', async () => {
    const str = (key: string, v: string) => ({ key, value: { stringValue: v } })
    const textSpan = (traceId: string) => ({ resourceSpans: [{ scopeSpans: [{ spans: [{
      traceId, spanId: 'ab'.repeat(8), name: 'chat', startTimeUnixNano: '1718000000000000000', endTimeUnixNano: '1718000001000000000',
      attributes: [str('gen_ai.request.model', 'gpt-4o'), str('gen_ai.input.messages', '[{"role":"user","content":"my card is 4111"}]'), str('output.value', 'the answer'), str('gen_ai.prompt.0.role', 'user')],
      events: [{ name: 'gen_ai.content.prompt', timeUnixNano: '1718000000000000001', attributes: [str('gen_ai.prompt', 'my card is 4111')] }],
    }] }] }] })
    expect((await post(textSpan('1'.repeat(32)), { ...json, 'x-svc-api-key': OTHER_KEY })).status).toBe(202)
    expect((await post(textSpan('2'.repeat(32)))).status).toBe(202)
    const [off, on] = spans().map((x) => x.span)
    expect(off!.attributes).toEqual({ 'gen_ai.request.model': 'gpt-4o', 'gen_ai.prompt.0.role': 'user' })
    expect(off!.events_json).not.toContain('4111')
    expect(JSON.stringify(bus.records(TOPICS.spansRaw)[0]!.value.toString('latin1'))).not.toContain('4111')
    expect(on!.attributes['output.value']).toBe('the answer')
    expect(on!.events_json).toContain('4111')
    expect(ingest.metrics.text_attributes_dropped).toBe(3)
  })

  it('GET /metrics exposes the counters as Prometheus text, without a key', async () => {
    await post(jsExporterPayload())
    const res = await ingest.app.request('/metrics')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('text/plain')
    const text = await res.text()
    expect(text).toContain('# TYPE svc_ingest_accepted_spans_total counter\nsvc_ingest_accepted_spans_total 2\n')
    expect(text).toContain('svc_ingest_inflight_bytes 0\n')
    expect(text).toContain('svc_ingest_request_duration_seconds_count{route="/v1/otlp/traces",status="202"} 1')
    expect(text).toMatch(/svc_consumer_lag_records\{group="assembler",topic="spans\.raw\.v2",partition="\d+"\} \d+/)
    expect(text).toContain('svc_process_resident_memory_bytes')
  })

  it('GET /health needs no key', async () => {
    const res = await ingest.app.request('/health')
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ status: 'ok' })
  })

  it('GET /v1/auth/whoami resolves the key', async () => {
    const res = await get('/v1/auth/whoami', { authorization: `Bearer ${KEY}` })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({
      key_id: 'key-main',
      role: 'dev',
      organization: { id: ORG.id, slug: ORG.slug, name: ORG.name },
      workspace: { id: WS.id, slug: WS.slug, name: WS.name },
      project_id: 'web',
    })
    expect((await get('/v1/auth/whoami', {})).status).toBe(401)
  })

  it('GET sdk-config: own workspace by slug or UUID, another workspace 403, unknown 404', async () => {
    for (const ref of [WS.slug, WS.id]) {
      const res = await get(`/v1/workspaces/${ref}/sdk-config`)
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({ capture_text: true })
    }
    const other = await get(`/v1/workspaces/${WS.id}/sdk-config`, { 'x-svc-api-key': OTHER_KEY })
    expect(other.status).toBe(403)
    expect((await get(`/v1/workspaces/${OTHER_WS.slug}/sdk-config`)).status).toBe(403)
    expect((await get(`/v1/workspaces/${OTHER_ORG_WS.id}/sdk-config`)).status).toBe(403)
    expect((await get('/v1/workspaces/nope/sdk-config')).status).toBe(404)
    // capture_text defaults to false for a workspace that never set it.
    expect(await (await get(`/v1/workspaces/${OTHER_WS.slug}/sdk-config`, { 'x-svc-api-key': OTHER_KEY })).json()).toEqual({ capture_text: false })
  })

  it('unknown routes are JSON 404s', async () => {
    const res = await ingest.app.request('/v1/nope')
    expect(res.status).toBe(404)
    expect(await res.json()).toMatchObject({ error: 'not_found' })
  })
})

function flatPayloadOf(n: number, traceOf: (i: number) => string = () => TRACE_ID) {
  return Array.from({ length: n }, (_, i) => ({
    trace_id: traceOf(i),
    span_id: (i + 1).toString(16).padStart(16, '0'),
    name: 's',
    start_time_unix_ns: 1,
    end_time_unix_ns: 2,
    status_code: 'OK',
    attributes: {},
  }))
}
