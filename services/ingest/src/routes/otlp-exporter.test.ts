/**
 * The stock OTel JS OTLP/HTTP JSON exporter against the real ingest HTTP server (on
 * a free port, over the recording bus): what a customer's unmodified SDK sends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { spanV1 } from '@svc/shared/bus/records'
import { TOPICS } from '@svc/shared/bus/topics'
import { loadConfig } from '@svc/shared/config'
import { createLogger } from '@svc/shared/log'
import { startIngest, type RunningIngest } from '../service.js'
import { KEY, ORG, testControlState, WS } from '../test-support/control.js'
import { RecordingBus } from '../test-support/recording-bus.js'

let bus: RecordingBus
let running: RunningIngest

beforeAll(async () => {
  bus = new RecordingBus()
  const config = loadConfig({ SVC_HOST: '127.0.0.1', SVC_INGEST_PORT: '0' })
  running = await startIngest({ bus, control: { state: testControlState() }, config, log: createLogger({ level: 'silent' }) })
})
afterAll(() => running?.close())

describe('stock OTLP/HTTP JSON exporter', () => {
  it('is accepted and decoded field for field', async () => {
    const exporter = new OTLPTraceExporter({ url: `http://127.0.0.1:${running.port}/v1/traces`, headers: { 'x-svc-api-key': KEY } })
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'exporter-test', 'svc.project_id': 'proj-x' }),
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    })
    const tracer = provider.getTracer('scope-a', '1.2.3')
    const root = tracer.startSpan('root', { kind: SpanKind.SERVER })
    // No context manager is registered here, so the parent is passed explicitly.
    const attributes = { 'gen_ai.usage.input_tokens': 12, 'gen_ai.request.model': 'gpt-4o', tags: ['a', 'b'], ok: true }
    const child = tracer.startSpan('chat gpt-4o', { kind: SpanKind.CLIENT, attributes }, trace.setSpan(context.active(), root))
    child.addEvent('gen_ai.choice', { index: 0 })
    child.setStatus({ code: SpanStatusCode.ERROR, message: 'rate limited' })
    child.end()
    root.end()
    await provider.forceFlush()
    await provider.shutdown()

    const got = bus.records(TOPICS.spansRaw).map((r) => spanV1.decode(r.value))
    expect(got).toHaveLength(2)
    const gotChild = got.find((s) => s.name === 'chat gpt-4o')!
    const gotRoot = got.find((s) => s.name === 'root')!
    expect(gotRoot).toMatchObject({ kind: 'SERVER', parent_span_id: '', status_code: 'UNSET', scope_name: 'scope-a', service_name: 'exporter-test', project_id: 'proj-x', org_id: ORG.id, workspace_id: WS.id })
    expect(gotRoot.span_id).toBe(root.spanContext().spanId)
    expect(gotChild).toMatchObject({ kind: 'CLIENT', parent_span_id: gotRoot.span_id, trace_id: gotRoot.trace_id, status_code: 'ERROR', status_message: 'rate limited' })
    expect(gotChild.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': '12', 'gen_ai.request.model': 'gpt-4o', tags: '["a","b"]', ok: 'true' })
    expect(JSON.parse(gotChild.events_json)).toMatchObject([{ name: 'gen_ai.choice', attributes: { index: 0 } }])
    expect(BigInt(gotChild.end_time_unix_nano)).toBeGreaterThanOrEqual(BigInt(gotChild.start_time_unix_nano))
    expect(running.ingest.metrics.accepted_spans).toBe(2)
  })
})
