/**
 * OTLP protobuf and gRPC end to end, with the operator's opt-in
 * (SVC_INGEST_PROTOBUF=true, SVC_INGEST_GRPC_PORT): the stock OpenTelemetry
 * exporters, JavaScript and Python (opentelemetry-exporter-otlp-proto-http and
 * -proto-grpc from PyPI, unchanged, in the test virtual environment), send agent
 * traces that the read API then lists with their model, tokens and cost; the
 * recorded Claude Code telemetry replayed over gRPC gives the exact coding-agent
 * figures it gives as OTLP/JSON; a stock Python protobuf exporter pointed at an
 * ingest without the opt-in gets 415 and reports the failure.
 */
import { join } from 'node:path'
import * as grpc from '@grpc/grpc-js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { context, SpanKind, trace } from '@opentelemetry/api'
import { OTLPTraceExporter as GrpcTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc'
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { BasicTracerProvider, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base'
import { startIngest, type RunningIngest } from '@svc/ingest/service'
import { encodeProtobufRequest } from '@svc/ingest/otlp/protobuf'
import { loadConfig } from '@svc/shared/config'
import { createLogger } from '@svc/shared/log'
import type { TestJson } from '@svc/shared/test-support/json'
import { expectedUsage, replayRequests } from '../fixtures/coding-agent/replay.js'
import { REPO_ROOT } from '../support/process.js'
import { pythonVenv, run } from '../support/python.js'
import { eventually, startTestStack, TEST_KEY } from '../support/stack.js'

type Stack = Awaited<ReturnType<typeof startTestStack>>
const WS = '/v1/observ/orgs/acme/workspaces/agents'
const SCRIPT = join(REPO_ROOT, 'tests/e2e/python/stock_otlp_export.py')

describe('OTLP protobuf and gRPC ingest, opted in (embedded bus)', () => {
  let s: Stack
  let python = ''
  beforeAll(async () => {
    ;[s, { python }] = await Promise.all([startTestStack('embedded', { SVC_INGEST_PROTOBUF: 'true', SVC_INGEST_GRPC_PORT: '0' }), pythonVenv()])
  }, 900_000)
  afterAll(async () => {
    await s?.close()
  })

  const api = async (path: string) => {
    const res = await fetch(s.apiUrl + WS + path, { headers: { 'x-svc-api-key': TEST_KEY } })
    return { status: res.status, body: (await res.json()) as TestJson }
  }
  /** The trace's detail once both spans are stored and priced. */
  const stored = (traceId: string) =>
    eventually(async () => {
      const r = await api(`/traces/${traceId}`)
      return r.status === 200 && r.body.spans.length === 2 ? r.body : undefined
    }, 20_000, 100)
  const expectAgentTrace = (detail: TestJson, input: number, output: number) => {
    const llm = detail.spans.find((x: TestJson) => x.name === 'chat gpt-4o')
    expect(llm.attributes).toMatchObject({ 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': input, 'gen_ai.usage.output_tokens': output })
    expect(llm.kind).toBe('CLIENT')
    expect(detail.spans.find((x: TestJson) => x.name === 'invoke_agent support').parent_span_id).toBeNull()
    expect(llm.parent_span_id).toBe(detail.spans.find((x: TestJson) => x.name === 'invoke_agent support').span_id)
    expect(detail.total_cost_usd).toBeGreaterThan(0)
  }

  /** An agent run (agent span, one LLM call) through a stock JS exporter; returns the trace id. */
  async function jsAgentRun(exporter: SpanExporter, service: string): Promise<string> {
    const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ 'service.name': service }), spanProcessors: [new SimpleSpanProcessor(exporter)] })
    const tracer = provider.getTracer('stock-js')
    const root = tracer.startSpan('invoke_agent support', { attributes: { 'gen_ai.operation.name': 'invoke_agent' } })
    tracer
      .startSpan('chat gpt-4o', { kind: SpanKind.CLIENT, attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.system': 'openai', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 800, 'gen_ai.usage.output_tokens': 90 } }, trace.setSpan(context.active(), root))
      .end()
    root.end()
    await provider.forceFlush()
    await provider.shutdown()
    return root.spanContext().traceId
  }

  it('the JS OTLP/HTTP protobuf exporter: the trace is listed with model, tokens and cost', async () => {
    const traceId = await jsAgentRun(new ProtoTraceExporter({ url: `${s.ingestUrl}/v1/traces`, headers: { 'x-svc-api-key': TEST_KEY } }), 'js-proto')
    expectAgentTrace(await stored(traceId), 800, 90)
    const list = await api('/traces?page_size=50')
    expect(list.body.data.map((t: TestJson) => t.trace_id)).toContain(traceId)
  })

  it('the JS OTLP/gRPC exporter: the same', async () => {
    const metadata = new grpc.Metadata()
    metadata.set('x-svc-api-key', TEST_KEY)
    const traceId = await jsAgentRun(new GrpcTraceExporter({ url: `http://127.0.0.1:${s.grpcPort}`, metadata }), 'js-grpc')
    expectAgentTrace(await stored(traceId), 800, 90)
  })

  it.each([
    ['opentelemetry-exporter-otlp-proto-http', 'http', () => `${s.ingestUrl}/v1/traces`],
    ['opentelemetry-exporter-otlp-proto-grpc', 'grpc', () => `127.0.0.1:${s.grpcPort}`],
  ])('the stock Python %s: SUCCESS, and the trace is listed with model, tokens and cost', async (_name, kind, endpoint) => {
    const r = await run(python, [SCRIPT, kind, endpoint(), TEST_KEY, `python-${kind}`], { timeoutMs: 60_000 })
    expect(r.code, r.output).toBe(0)
    const out = JSON.parse(r.output.trim().split('\n').at(-1)!) as { trace_id: string; result: string }
    expect(out.result, r.output).toBe('SUCCESS')
    expectAgentTrace(await stored(out.trace_id), 1200, 300)
  }, 90_000)

  it('without the opt-in, the stock Python protobuf exporter gets 415 and reports FAILURE', async () => {
    const off: RunningIngest = await startIngest({ bus: s.bus, control: s.control, config: loadConfig({ SVC_HOST: '127.0.0.1', SVC_INGEST_PORT: '0' }), log: createLogger({ level: 'silent' }) })
    try {
      const r = await run(python, [SCRIPT, 'http', `http://127.0.0.1:${off.port}/v1/traces`, TEST_KEY, 'python-off'], { timeoutMs: 60_000 })
      expect(r.code, r.output).toBe(0)
      expect(JSON.parse(r.output.trim().split('\n').at(-1)!)).toMatchObject({ result: 'FAILURE' })
      expect(r.output).toMatch(/415/)
    } finally {
      await off.close()
    }
  }, 90_000)

  it('recorded Claude Code and Codex telemetry over gRPC (metrics and logs): the coding-agent figures are exact', async () => {
    const client = new grpc.Client(`127.0.0.1:${s.grpcPort}`, grpc.credentials.createInsecure())
    const metadata = new grpc.Metadata()
    metadata.set('x-svc-api-key', TEST_KEY)
    const raw = (b: Buffer) => b
    const exportOver = (service: string, body: Uint8Array) =>
      new Promise<void>((resolve, reject) =>
        client.makeUnaryRequest(`/opentelemetry.proto.collector.${service}/Export`, raw, raw, Buffer.from(body), metadata, (err, response) =>
          // An empty response: nothing was rejected (partial_success absent).
          err ? reject(err) : response?.length ? reject(new Error(`partial success: ${response.toString('hex')}`)) : resolve(),
        ),
      )
    try {
      for (const r of replayRequests(Date.now()).requests) {
        if (r.path === 'metrics') await exportOver('metrics.v1.MetricsService', encodeProtobufRequest('metrics', r.body as Record<string, unknown>))
        else if (r.path === 'logs') await exportOver('logs.v1.LogsService', encodeProtobufRequest('logs', r.body as Record<string, unknown>))
        // The activity format is JSON of its own; it goes as it always does.
        else expect((await fetch(`${s.ingestUrl}/v1/otlp/coding-agent/v1/${r.path}`, { method: 'POST', body: JSON.stringify(r.body), headers: { 'content-type': 'application/json', 'x-svc-api-key': TEST_KEY } })).status).toBe(202)
      }
    } finally {
      client.close()
    }
    const withoutLast = (rows: TestJson[]) => rows.map(({ last_activity_at, ...row }) => row)
    const week = expectedUsage('week')
    // Metrics and logs land through different records: wait for the figures of both (cost from metrics, tool calls from events), as the JSON suite does.
    await eventually(async () => {
      const totals = (await api('/coding-agent/usage?period=week')).body.totals
      return totals?.cost_usd === week.totals.cost_usd && totals?.tool_calls === week.totals.tool_calls && totals?.input_tokens === week.totals.input_tokens ? true : undefined
    }, 30_000, 200)
    for (const period of ['day', 'week'] as const) {
      const usage = await api(`/coding-agent/usage?period=${period}`)
      expect(withoutLast(usage.body.employees), period).toEqual(expectedUsage(period).employees)
      expect(usage.body.totals, period).toEqual(expectedUsage(period).totals)
    }
  }, 60_000)
})
