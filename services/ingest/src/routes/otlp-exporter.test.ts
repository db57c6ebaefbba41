/**
 * The stock OTel JS OTLP/HTTP JSON exporters (traces, logs) against the real ingest
 * HTTP server (on a free port, over the recording bus): what a customer's
 * unmodified SDK sends.
 */
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-http'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs'
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { codingAgentEventV1, deadLetterV1 } from '@svc/shared/bus/records'
import { decodeSpanRecords } from '@svc/shared/bus/span-batch'
import { TOPICS } from '@svc/shared/bus/topics'
import { loadConfig } from '@svc/shared/config'
import { createLogger } from '@svc/shared/log'
import { startIngest, type RunningIngest } from '../service.js'
import { KEY, ORG, testControlState, WS } from '../test-support/control.js'
import { flatPayload } from '../test-support/payloads.js'
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

    const got = decodeSpanRecords(bus.records(TOPICS.spansRaw).map((r) => r.value))
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

describe('stock OTLP/HTTP JSON logs exporter, pointed at the activity endpoint', () => {
  it('each log record lands as an activity record; one that breaks the activity rules is dead-lettered', async () => {
    const exporter = new OTLPLogExporter({ url: `http://127.0.0.1:${running.port}/v1/otlp/coding-agent/v1/activity`, headers: { 'x-svc-api-key': KEY } })
    const provider = new LoggerProvider({
      resource: resourceFromAttributes({ 'service.name': 'git-hook', 'user.email': 'dana@acme.com' }),
      processors: [new SimpleLogRecordProcessor(exporter)],
    })
    const logger = provider.getLogger('activity', '1.0.0')
    const when = Date.parse('2026-01-31T10:42:30Z')
    logger.emit({
      eventName: 'commit',
      timestamp: new Date(when),
      body: 'committed',
      attributes: { commit_sha: 'c0ffee12', repository: 'acme/api', 'session.id': 'dana-s1', files: [{ path: 'src/app.ts', lines_added: 3, lines_removed: 1 }] as never },
    })
    logger.emit({ eventName: 'activity.api_request', timestamp: new Date(when), attributes: { model: 'gpt-5', cost_usd: 0.2, input_tokens: 100, output_tokens: 50 } })
    logger.emit({ eventName: 'file_edit', timestamp: new Date(when), attributes: { lines_added: 2 } })
    await provider.forceFlush()
    await provider.shutdown()

    const events = bus.records(TOPICS.codingAgentEvents).map((r) => codingAgentEventV1.decode(r.value))
    expect(events.map((e) => [e.source, e.event_name, e.time_unix_nano])).toEqual([
      ['activity', 'activity.commit', BigInt(when) * 1_000_000n],
      ['activity', 'activity.api_request', BigInt(when) * 1_000_000n],
    ])
    expect(events[0]).toMatchObject({ org_id: ORG.id, workspace_id: WS.id, service_name: 'git-hook', body: '' })
    expect(events[0]!.attributes).toMatchObject({ commit_sha: 'c0ffee12', repository: 'acme/api', 'user.email': 'dana@acme.com', 'session.id': 'dana-s1', agent: 'git-hook' })
    expect(JSON.parse(events[0]!.attributes.files!)).toEqual([{ path: 'src/app.ts', lines_added: 3, lines_removed: 1 }])
    expect(events[1]!.attributes).toMatchObject({ model: 'gpt-5', cost_usd: '0.2', input_tokens: '100', output_tokens: '50' })
    const dl = bus.records(TOPICS.spansRawDlq).map((r) => deadLetterV1.decode(r.value))
    expect(dl).toMatchObject([{ source: 'ingest.coding-agent.activity', reason: 'file_edit needs a file_path' }])
  })
})

describe('over a real socket', () => {
  it('a chunked (no content-length) gzip body is read as it streams and accepted', async () => {
    const gz = gzipSync(JSON.stringify(flatPayload()))
    const chunks = [gz.subarray(0, 10), gz.subarray(10, 30), gz.subarray(30)]
    const body = new ReadableStream<Uint8Array>({ pull: (ctl) => (chunks.length ? ctl.enqueue(chunks.shift()!) : ctl.close()) })
    const before = decodeSpanRecords(bus.records(TOPICS.spansRaw).map((r) => r.value)).length
    const res = await fetch(`http://127.0.0.1:${running.port}/v1/otlp/traces`, { method: 'POST', body, duplex: 'half', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', 'x-svc-api-key': KEY } } as RequestInit)
    expect(res.status).toBe(202)
    expect(decodeSpanRecords(bus.records(TOPICS.spansRaw).map((r) => r.value)).length - before).toBe(flatPayload().length)
    expect(running.ingest.budget.inflightBytes).toBe(0)
  })
})
