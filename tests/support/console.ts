/**
 * The console's end-to-end tests and benchmarks run `pnpm start`'s entry as a
 * child process on free ports and a fresh data dir, as an operator would, and
 * drive it with a real browser (browser.ts). Shared here: starting it, signing in
 * through the page, and an agent trace sent by the stock OpenTelemetry JS exporter.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import type { Page } from 'playwright-core'
import { exited, freePort, spawnAllInOne, waitForHealth } from './process.js'

export const OWNER_EMAIL = 'owner@acme.test'
export const OWNER_PASSWORD = 'correct horse battery staple'
export const CONSOLE_KEY = 'dr_consoleE2eKey00000000000000000000000001'
export const WS_API = '/v1/observ/orgs/acme/workspaces/agents'

export interface ConsoleService {
  base: string
  ingest: string
  dataDir: string
  /** A call to the read API with the bootstrap (admin) key. */
  api(path: string, init?: RequestInit): Promise<Response>
  output(): string
  stop(): Promise<void>
}

export async function startConsoleService(env: Record<string, string> = {}): Promise<ConsoleService> {
  const dataDir = env.SVC_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'svc-console-'))
  const [ingestPort, apiPort] = [await freePort(), await freePort()]
  const child = spawnAllInOne({
    SVC_BUS: 'embedded',
    SVC_DATA_DIR: dataDir,
    SVC_HOST: '127.0.0.1',
    SVC_INGEST_PORT: String(ingestPort),
    SVC_API_PORT: String(apiPort),
    LOG_LEVEL: 'warn',
    SVC_QUIET_BOOTSTRAP: 'true',
    SVC_INIT_ORG_SLUG: 'acme',
    SVC_INIT_WORKSPACE_SLUG: 'agents',
    SVC_INIT_PROJECT_ID: 'checkout-bot',
    SVC_INIT_API_KEY: CONSOLE_KEY,
    SVC_INIT_USER_EMAIL: OWNER_EMAIL,
    SVC_INIT_USER_PASSWORD: OWNER_PASSWORD,
    SVC_PASSWORD_SCRYPT_N: '1024',
    SVC_TRACE_QUIET_MS: '500',
    ...env,
  })
  const base = `http://127.0.0.1:${apiPort}`
  await waitForHealth(`${base}/health`, child, 120_000)
  return {
    base,
    ingest: `http://127.0.0.1:${ingestPort}`,
    dataDir,
    api: (path, init = {}) => fetch(base + path, { ...init, headers: { 'x-svc-api-key': CONSOLE_KEY, 'content-type': 'application/json', ...(init.headers ?? {}) } }),
    output: () => child.output(),
    stop: async () => {
      child.kill('SIGTERM')
      await exited(child)
      if (!env.SVC_DATA_DIR) rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** Signs in through the page, as a person would; resolves once the trace list shows. */
export async function signIn(page: Page, base: string, email = OWNER_EMAIL, password = OWNER_PASSWORD): Promise<void> {
  await page.goto(`${base}/`)
  await page.waitForSelector('input[name=email]')
  await page.fill('input[name=email]', email)
  await page.fill('input[name=password]', password)
  await page.click('button[type=submit]')
  await page.waitForSelector('[data-testid=trace-table]')
}

export const ANSWER = 'Refunds are issued within 5 business days after we receive the returned item. Shipping is free for orders over $50. Refunds are paid in gold bars.'
export const POLICY = 'Refunds are issued within 5 business days after we receive the returned item. Shipping is free for orders over $50.'

/**
 * A support agent's run through the stock OpenTelemetry JS exporter (OTLP/JSON): an
 * agent root, a retrieval with the refund policy, a failing tool call and the LLM
 * answer, which makes two claims the policy backs and one nothing backs.
 */
export async function sendAgentTrace(ingest: string, key = CONSOLE_KEY): Promise<string> {
  const exporter = new OTLPTraceExporter({ url: `${ingest}/v1/traces`, headers: { 'x-svc-api-key': key } })
  const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ 'service.name': 'support-bot' }), spanProcessors: [new SimpleSpanProcessor(exporter)] })
  const tracer = provider.getTracer('console-e2e')
  const question = 'How long do refunds take, and is shipping free?'
  const root = tracer.startSpan('invoke_agent support-bot', { kind: SpanKind.SERVER, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'input.value': question } })
  const ctx = trace.setSpan(context.active(), root)
  const step = (ms: number) => new Promise((r) => setTimeout(r, ms))
  const retrieval = tracer.startSpan('retrieve refund policy', { attributes: { 'openinference.span.kind': 'RETRIEVER', 'retrieval.documents.0.document.id': 'kb/refunds.md', 'retrieval.documents.0.document.content': POLICY } }, ctx)
  await step(20)
  retrieval.end()
  const tool = tracer.startSpan('execute_tool lookup_order', { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup_order', 'gen_ai.tool.call.arguments': '{"order":"A-1"}' } }, ctx)
  await step(15)
  tool.setStatus({ code: SpanStatusCode.ERROR, message: 'order service timed out' })
  tool.end()
  const llm = tracer.startSpan('chat gpt-4o', {
    kind: SpanKind.CLIENT,
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.usage.input_tokens': 321,
      'gen_ai.usage.output_tokens': 54,
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: question }] }]),
      'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: ANSWER }] }]),
    },
  }, ctx)
  await step(30)
  llm.setStatus({ code: SpanStatusCode.OK })
  llm.end()
  root.end()
  await provider.forceFlush()
  await provider.shutdown()
  return root.spanContext().traceId
}
