/**
 * OTLP protobuf over HTTP and OTLP/gRPC against the real ingest servers (free
 * ports, the recording bus): the stock OpenTelemetry JS protobuf and gRPC
 * exporters for traces, metrics and logs, the protobuf responses they read, and
 * every refusal as the status each transport gives it. Without
 * SVC_INGEST_PROTOBUF protobuf is still a 415.
 */
import { gzipSync } from 'node:zlib'
import * as grpc from '@grpc/grpc-js'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import { ExportResultCode, type ExportResult } from '@opentelemetry/core'
import { OTLPLogExporter as GrpcLogExporter } from '@opentelemetry/exporter-logs-otlp-grpc'
import { OTLPLogExporter as ProtoLogExporter } from '@opentelemetry/exporter-logs-otlp-proto'
import { OTLPMetricExporter as GrpcMetricExporter } from '@opentelemetry/exporter-metrics-otlp-grpc'
import { OTLPMetricExporter as ProtoMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto'
import { OTLPTraceExporter as GrpcTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc'
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base'
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs'
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics'
import { BasicTracerProvider, SimpleSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base'
import { codingAgentEventV1, codingAgentMetricV1, deadLetterV1 } from '@svc/shared/bus/records'
import { decodeSpanRecords } from '@svc/shared/bus/span-batch'
import { TOPICS } from '@svc/shared/bus/topics'
import { loadConfig } from '@svc/shared/config'
import { createLogger } from '@svc/shared/log'
import { encodeProtobufRequest, PROTOBUF_CHARGE_PER_BYTE } from './otlp/protobuf.js'
import { startIngest, type RunningIngest } from './service.js'
import { KEY, ORG, testControlState, WS } from './test-support/control.js'
import { jsExporterPayload, TRACE_ID } from './test-support/payloads.js'
import { tracesProtobuf } from './test-support/protobuf.js'
import { RecordingBus } from './test-support/recording-bus.js'

const MAX_BODY = 256 * 1024
let bus: RecordingBus
let on: RunningIngest
let off: RunningIngest

beforeAll(async () => {
  bus = new RecordingBus()
  const log = createLogger({ level: 'silent' })
  const base = { SVC_HOST: '127.0.0.1', SVC_INGEST_PORT: '0', SVC_INGEST_MAX_BODY_BYTES: String(MAX_BODY) }
  on = await startIngest({ bus, control: { state: testControlState() }, config: loadConfig({ ...base, SVC_INGEST_PROTOBUF: 'true', SVC_INGEST_GRPC_PORT: '0' }), log, produceTimeoutMs: 2_000 })
  off = await startIngest({ bus, control: { state: testControlState() }, config: loadConfig(base), log })
})
afterAll(async () => {
  await on?.close()
  await off?.close()
})
beforeEach(() => {
  bus.produced.clear()
  bus.failProduce(null)
})

const http = (r: RunningIngest, path: string) => `http://127.0.0.1:${r.port}${path}`
const grpcUrl = () => `http://127.0.0.1:${on.grpcPort}`
const keyMetadata = () => {
  const md = new grpc.Metadata()
  md.set('x-svc-api-key', KEY)
  return md
}
const spans = () => decodeSpanRecords(bus.records(TOPICS.spansRaw).map((r) => r.value))
const deadLetters = () => bus.records(TOPICS.spansRawDlq).map((r) => deadLetterV1.decode(r.value))

/** Two spans (a server root and an LLM child with an error status), ended and handed to `exporter` by the SDK. */
async function exportTrace(exporter: SpanExporter, service: string): Promise<void> {
  const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ 'service.name': service, 'svc.project_id': 'proj-x' }), spanProcessors: [new SimpleSpanProcessor(exporter)] })
  const tracer = provider.getTracer('scope-a', '1.2.3')
  const root = tracer.startSpan('root', { kind: SpanKind.SERVER })
  // No context manager is registered here, so the parent is passed explicitly.
  const attributes = { 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 12, tags: ['a', 'b'], big: 2 ** 53 + 2 }
  const child = tracer.startSpan('chat gpt-4o', { kind: SpanKind.CLIENT, attributes }, trace.setSpan(context.active(), root))
  child.addEvent('gen_ai.choice', { index: 0 })
  child.setStatus({ code: SpanStatusCode.ERROR, message: 'rate limited' })
  child.end()
  root.end()
  await provider.forceFlush()
  await provider.shutdown()
}

/** Spans the SDK made, to hand to an exporter by hand and read its verdict. */
async function readableSpans(): Promise<ReadableSpan[]> {
  const kept: ReadableSpan[] = []
  const keep: SpanExporter = {
    export: (items, done) => {
      kept.push(...items)
      done({ code: ExportResultCode.SUCCESS })
    },
    shutdown: async () => {},
  }
  await exportTrace(keep, 'verdict')
  return kept
}
const verdict = (exporter: SpanExporter, items: ReadableSpan[]) => new Promise<ExportResult>((resolve) => exporter.export(items, resolve))

function expectTheTrace(service: string) {
  const got = spans()
  expect(got).toHaveLength(2)
  const root = got.find((s) => s.name === 'root')!
  const child = got.find((s) => s.name === 'chat gpt-4o')!
  expect(root).toMatchObject({ kind: 'SERVER', parent_span_id: '', service_name: service, scope_name: 'scope-a', project_id: 'proj-x', org_id: ORG.id, workspace_id: WS.id })
  expect(root.trace_id).toMatch(/^[0-9a-f]{32}$/)
  expect(child).toMatchObject({ kind: 'CLIENT', trace_id: root.trace_id, parent_span_id: root.span_id, status_code: 'ERROR', status_message: 'rate limited' })
  expect(child.attributes).toMatchObject({ 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': '12', tags: '["a","b"]', big: '9007199254740994' })
  expect(JSON.parse(child.events_json)).toMatchObject([{ name: 'gen_ai.choice', attributes: { index: 0 } }])
}

describe('stock OpenTelemetry JS exporters', () => {
  it('OTLP/HTTP protobuf traces, on both trace paths', async () => {
    for (const path of ['/v1/traces', '/v1/otlp/traces']) {
      bus.produced.clear()
      await exportTrace(new ProtoTraceExporter({ url: http(on, path), headers: { 'x-svc-api-key': KEY } }), 'proto-http')
      expectTheTrace('proto-http')
    }
  })

  it('OTLP/gRPC traces, gzip, key as metadata', async () => {
    await exportTrace(new GrpcTraceExporter({ url: grpcUrl(), metadata: keyMetadata(), compression: CompressionAlgorithm.GZIP }), 'grpc')
    expectTheTrace('grpc')
  })

  it('OTLP/gRPC with the key as Authorization: Bearer', async () => {
    const md = new grpc.Metadata()
    md.set('authorization', `Bearer ${KEY}`)
    const result = await verdict(new GrpcTraceExporter({ url: grpcUrl(), metadata: md }), await readableSpans())
    expect(result.error).toBeUndefined()
    expect(result.code).toBe(ExportResultCode.SUCCESS)
    expect(spans()).toHaveLength(2)
  })

  it.each([
    ['OTLP/HTTP protobuf', () => new ProtoMetricExporter({ url: http(on, '/v1/otlp/coding-agent/v1/metrics'), headers: { 'x-svc-api-key': KEY } })],
    ['OTLP/gRPC', () => new GrpcMetricExporter({ url: grpcUrl(), metadata: keyMetadata(), compression: CompressionAlgorithm.GZIP })],
  ])('%s coding-agent metrics', async (_name, exporter: () => PushMetricExporter) => {
    const reader = new PeriodicExportingMetricReader({ exporter: exporter(), exportIntervalMillis: 60_000 })
    const provider = new MeterProvider({ resource: resourceFromAttributes({ 'service.name': 'claude-code' }), readers: [reader] })
    provider.getMeter('com.anthropic.claude_code').createCounter('claude_code.token.usage', { unit: 'tokens' }).add(1523, { type: 'input', model: 'claude-sonnet-5', 'session.id': 's-1', 'user.email': 'dev@acme.com' })
    await provider.forceFlush()
    await provider.shutdown()
    // forceFlush and shutdown each export the cumulative series: the same value, collected once or twice.
    const points = bus.records(TOPICS.codingAgentMetrics).map((r) => codingAgentMetricV1.decode(r.value))
    expect(points.length).toBeGreaterThanOrEqual(1)
    expect(points.map((p) => p.value)).toEqual(points.map(() => 1523))
    expect(points[0]).toMatchObject({ metric_name: 'claude_code.token.usage', metric_type: 'sum', temporality: 'cumulative', is_monotonic: true, value: 1523, unit: 'tokens', service_name: 'claude-code', workspace_id: WS.id })
    expect(points[0]!.attributes).toMatchObject({ type: 'input', model: 'claude-sonnet-5', 'user.email': 'dev@acme.com' })
  })

  it.each([
    ['OTLP/HTTP protobuf', () => new ProtoLogExporter({ url: http(on, '/v1/otlp/coding-agent/v1/logs'), headers: { 'x-svc-api-key': KEY } })],
    ['OTLP/gRPC', () => new GrpcLogExporter({ url: grpcUrl(), metadata: keyMetadata() })],
  ])('%s coding-agent logs', async (_name, exporter) => {
    const provider = new LoggerProvider({ resource: resourceFromAttributes({ 'service.name': 'claude-code', 'user.email': 'dev@acme.com' }), processors: [new SimpleLogRecordProcessor(exporter())] })
    const when = Date.parse('2026-01-31T10:42:30Z')
    provider.getLogger('com.anthropic.claude_code.events').emit({ timestamp: new Date(when), body: 'claude_code.api_request', attributes: { 'event.name': 'api_request', model: 'claude-sonnet-5', cost_usd: 0.25, input_tokens: 100, 'session.id': 's-1' } })
    await provider.forceFlush()
    await provider.shutdown()
    const events = bus.records(TOPICS.codingAgentEvents).map((r) => codingAgentEventV1.decode(r.value))
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({ source: 'otlp.logs', event_name: 'api_request', time_unix_nano: BigInt(when) * 1_000_000n, body: 'claude_code.api_request', service_name: 'claude-code' })
    expect(events[0]!.attributes).toMatchObject({ model: 'claude-sonnet-5', cost_usd: '0.25', input_tokens: '100', 'user.email': 'dev@acme.com' })
  })

  it('protobuf is a 415 while SVC_INGEST_PROTOBUF is off: the exporter fails, nothing is written', async () => {
    const result = await verdict(new ProtoTraceExporter({ url: http(off, '/v1/traces'), headers: { 'x-svc-api-key': KEY } }), await readableSpans())
    expect(result.code).toBe(ExportResultCode.FAILED)
    expect(result.error).toMatchObject({ code: 415 })
    expect(spans()).toEqual([])
    expect(off.grpcPort).toBeNull()
  })
})

describe('OTLP/HTTP protobuf responses', () => {
  const post = (r: RunningIngest, path: string, body: Uint8Array, headers: Record<string, string> = {}) =>
    fetch(http(r, path), { method: 'POST', body: new Uint8Array(body), headers: { 'content-type': 'application/x-protobuf', 'x-svc-api-key': KEY, ...headers } })

  it('202 with an ExportTraceServiceResponse carrying partial_success; the bad span is dead-lettered', async () => {
    const body = jsExporterPayload()
    body.resourceSpans[0]!.scopeSpans[0]!.spans[1]!.spanId = 'abcd'
    const res = await post(on, '/v1/otlp/traces', gzipSync(tracesProtobuf(body)), { 'content-encoding': 'gzip' })
    expect(res.status).toBe(202)
    expect(res.headers.get('content-type')).toBe('application/x-protobuf')
    const decoded = ProtobufTraceSerializer.deserializeResponse(new Uint8Array(await res.arrayBuffer()))
    expect(Number(decoded.partialSuccess?.rejectedSpans)).toBe(1)
    expect(decoded.partialSuccess?.errorMessage).toBe('spanId "q80=" is not 16 hex characters (or base64 of 8 bytes)')
    expect(spans().map((s) => s.trace_id)).toEqual([TRACE_ID])
    expect(deadLetters()).toMatchObject([{ source: 'ingest.otlp', workspace_id: WS.id }])
  })

  it('a fully accepted request gets an empty response message', async () => {
    const res = await post(on, '/v1/traces', tracesProtobuf(jsExporterPayload()))
    expect(res.status).toBe(202)
    expect((await res.arrayBuffer()).byteLength).toBe(0)
  })

  it('a protobuf body is charged to the in-flight budget at what it takes decoded, until durable', async () => {
    const body = tracesProtobuf(jsExporterPayload())
    bus.hold()
    const res = post(on, '/v1/traces', body)
    await expect.poll(() => bus.pendingCalls).toBeGreaterThan(0)
    expect(on.ingest.budget.inflightBytes).toBe(body.length * PROTOBUF_CHARGE_PER_BYTE)
    bus.release()
    expect((await res).status).toBe(202)
    await expect.poll(() => on.ingest.budget.inflightBytes).toBe(0)
  })

  it('the activity endpoint takes an OTLP logs request', async () => {
    const logs = { resourceLogs: [{ scopeLogs: [{ logRecords: [{ timeUnixNano: '1769856150000000000', eventName: 'commit', attributes: [{ key: 'commit_sha', value: { stringValue: 'c0ffee12' } }] }] }] }] }
    const res = await post(on, '/v1/otlp/coding-agent/v1/activity', encodeProtobufRequest('logs', logs))
    expect(res.status).toBe(202)
    expect(bus.records(TOPICS.codingAgentEvents).map((r) => codingAgentEventV1.decode(r.value).event_name)).toEqual(['activity.commit'])
  })

  it('hostile bodies are a JSON 400, an oversized one a 413, a missing key a 401; nothing is written', async () => {
    const truncated = tracesProtobuf(jsExporterPayload()).subarray(0, 40)
    const bad = await post(on, '/v1/traces', truncated)
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ error: 'bad_request', message: expect.stringMatching(/^body is not a valid ExportTraceServiceRequest/) })
    expect((await post(on, '/v1/traces', new Uint8Array(MAX_BODY + 1))).status).toBe(413)
    expect((await post(on, '/v1/traces', tracesProtobuf(jsExporterPayload()), { 'x-svc-api-key': '' })).status).toBe(401)
    expect(spans()).toEqual([])
    expect(on.ingest.budget.inflightBytes).toBe(0)
  })

  it('the 415 while off names the way to OTLP/JSON for each producer', async () => {
    const res = await post(off, '/v1/otlp/coding-agent/v1/metrics', new Uint8Array(0))
    expect(res.status).toBe(415)
    expect(await res.json()).toMatchObject({ error: 'unsupported_media_type', detail: { routes: { python: expect.stringContaining('otlp_json_http') } } })
  })
})

describe('OTLP/gRPC statuses', () => {
  let client: grpc.Client
  beforeAll(() => {
    client = new grpc.Client(`127.0.0.1:${on.grpcPort}`, grpc.credentials.createInsecure(), { 'grpc.max_send_message_length': -1 })
  })
  afterAll(() => client?.close())

  const raw = (b: Buffer) => b
  const exportTraces = (body: Uint8Array, md = keyMetadata()) =>
    new Promise<{ error: grpc.ServiceError | null; response?: Buffer }>((resolve) =>
      client.makeUnaryRequest('/opentelemetry.proto.collector.trace.v1.TraceService/Export', raw, raw, Buffer.from(body), md, (error, response) => resolve({ error, response })),
    )

  it('OK with partial_success once durable; the answer waits for the bus', async () => {
    const body = jsExporterPayload()
    body.resourceSpans[0]!.scopeSpans[0]!.spans[0]!.traceId = '00'.repeat(16)
    bus.hold()
    let answered = false
    const call = exportTraces(tracesProtobuf(body)).finally(() => (answered = true))
    await expect.poll(() => bus.pendingCalls).toBeGreaterThan(0)
    expect(answered).toBe(false)
    bus.release()
    const { error, response } = await call
    expect(error).toBeNull()
    const partial = ProtobufTraceSerializer.deserializeResponse(new Uint8Array(response!)).partialSuccess
    expect([Number(partial?.rejectedSpans), partial?.errorMessage]).toEqual([1, 'traceId is all zeros'])
    expect(deadLetters()).toMatchObject([{ source: 'ingest.grpc.traces', reason: 'traceId is all zeros' }])
  })

  it('UNAUTHENTICATED without a key or with a wrong one', async () => {
    expect((await exportTraces(tracesProtobuf(jsExporterPayload()), new grpc.Metadata())).error).toMatchObject({ code: grpc.status.UNAUTHENTICATED, details: expect.stringMatching(/missing API key/) })
    const md = new grpc.Metadata()
    md.set('x-svc-api-key', 'dr_' + 'x'.repeat(40))
    expect((await exportTraces(tracesProtobuf(jsExporterPayload()), md)).error).toMatchObject({ code: grpc.status.UNAUTHENTICATED })
  })

  it('INVALID_ARGUMENT for a malformed message', async () => {
    const { error } = await exportTraces(Uint8Array.from([0x0a, 0x80, 0x80, 0x80, 0x01, 0x00]))
    expect(error).toMatchObject({ code: grpc.status.INVALID_ARGUMENT, details: expect.stringMatching(/^body is not a valid ExportTraceServiceRequest/) })
    expect(spans()).toEqual([])
  })

  it('RESOURCE_EXHAUSTED (not retried: no retry information) past the size limit', async () => {
    const { error } = await exportTraces(new Uint8Array(MAX_BODY + 1))
    expect(error?.code).toBe(grpc.status.RESOURCE_EXHAUSTED)
    expect(error?.metadata.get('grpc-status-details-bin')).toEqual([])
  })

  it('UNAVAILABLE with RetryInfo when the bus does not acknowledge; nothing is held afterwards', async () => {
    bus.failProduce(new Error('bus down'))
    const { error } = await exportTraces(tracesProtobuf(jsExporterPayload()))
    expect(error?.code).toBe(grpc.status.UNAVAILABLE)
    const details = error!.metadata.get('grpc-status-details-bin')[0] as Buffer
    // google.rpc.Status { code: 14, message, details: [Any { type_url: ".../google.rpc.RetryInfo", value: { retry_delay: { seconds: 1 } } }] }
    expect(details.includes(Buffer.from('type.googleapis.com/google.rpc.RetryInfo'))).toBe(true)
    expect(details.subarray(-6).toString('hex')).toBe('12040a020801')
    await expect.poll(() => on.ingest.budget.inflightBytes).toBe(0)
  })
})

describe('OTLP/gRPC under the in-flight budget', () => {
  let small: RunningIngest
  let client: grpc.Client
  beforeAll(async () => {
    // Room for one request's message, not two.
    const room = tracesProtobuf(jsExporterPayload()).length + 100
    const config = loadConfig({ SVC_HOST: '127.0.0.1', SVC_INGEST_PORT: '0', SVC_INGEST_GRPC_PORT: '0', SVC_INGEST_MAX_INFLIGHT_BYTES: String(room) })
    small = await startIngest({ bus, control: { state: testControlState() }, config, log: createLogger({ level: 'silent' }) })
    client = new grpc.Client(`127.0.0.1:${small.grpcPort}`, grpc.credentials.createInsecure())
  })
  afterAll(async () => {
    client?.close()
    await small?.close()
  })
  const raw = (b: Buffer) => b
  const call = () =>
    new Promise<grpc.ServiceError | null>((resolve) =>
      client.makeUnaryRequest('/opentelemetry.proto.collector.trace.v1.TraceService/Export', raw, raw, Buffer.from(tracesProtobuf(jsExporterPayload())), keyMetadata(), (err) => resolve(err)),
    )

  it('a call that does not fit beside one awaiting the bus is UNAVAILABLE (retried); the first is OK once durable', async () => {
    bus.hold()
    const first = call()
    await expect.poll(() => bus.pendingCalls).toBeGreaterThan(0)
    const second = await call()
    expect(second?.code).toBe(grpc.status.UNAVAILABLE)
    expect(second?.details).toMatch(/at capacity/)
    expect(second?.metadata.get('grpc-status-details-bin')).toHaveLength(1)
    expect(small.ingest.metrics.throttled_requests).toBe(1)
    bus.release()
    expect(await first).toBeNull()
    await expect.poll(() => small.ingest.budget.inflightBytes).toBe(0)
  })

  it('while shutting down, new calls are UNAVAILABLE and admitted ones still finish', async () => {
    bus.hold()
    const admitted = call()
    await expect.poll(() => bus.pendingCalls).toBeGreaterThan(0)
    const closing = small.close()
    expect(await call()).toMatchObject({ code: grpc.status.UNAVAILABLE, details: expect.stringMatching(/shutting down/) })
    bus.release()
    expect(await admitted).toBeNull()
    await closing
  })
})
