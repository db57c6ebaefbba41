import { afterEach, describe, expect, it } from 'vitest'
import { context, propagation, trace } from '@opentelemetry/api'
import { fakeIngest, type FakeIngest } from './fake-ingest.fixture.js'
import { agentSpan, retrievalSpan, toolSpan, setEndUser, withProject } from './helpers.js'
import { init, type SvcSdk } from './init.js'

const SECRET = 'SECRET-PROMPT-TEXT'

/** The part of an OTLP/JSON export request these tests read. */
interface OtlpExport {
  resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ name: string; attributes: Array<{ key: string; value: Record<string, unknown> }> }> }> }>
}

/** An agent run with text in every convention, the way instrumentations emit it. */
async function run(sdk: SvcSdk) {
  await withProject('proj-x', () =>
    agentSpan('support-bot', async (agent) => {
      setEndUser('user-9')
      agent.setAttribute('input.value', SECRET)
      await retrievalSpan('kb', async (s) => s.setAttribute('retrieval.documents.0.document.id', 'kb/a.md'))
      toolSpan('lookup_order', (s) => s.setAttributes({ 'gen_ai.tool.call.arguments': `{"q":"${SECRET}"}`, 'gen_ai.tool.call.result': SECRET }))
      const llm = sdk.tracer.startSpan('chat gpt-4o', { attributes: { 'gen_ai.request.model': 'gpt-4o', 'gen_ai.prompt.0.content': SECRET, 'gen_ai.completion.0.content': SECRET, 'gen_ai.input.messages': SECRET, 'llm.input_messages.0.message.content': SECRET, 'traceloop.entity.output': SECRET } })
      llm.addEvent('gen_ai.choice', { message: SECRET })
      llm.end()
    }),
  )
  await sdk.forceFlush()
}

describe('init', () => {
  let f: FakeIngest | undefined
  let sdk: SvcSdk | undefined
  afterEach(async () => {
    await sdk?.shutdown()
    trace.disable()
    context.disable()
    propagation.disable()
    await f?.close()
    sdk = f = undefined
  })

  it('exports OTLP/JSON with the key, marked spans, end user and project, and text when the workspace captures it', async () => {
    f = await fakeIngest()
    sdk = await init({ apiKey: 'dr_k', endpoint: f.url, serviceName: 'unit-app', configRefreshMs: 0 })
    expect(sdk.captureText).toBe(true)
    await run(sdk)
    const body = f.exported.join('\n')
    expect(f.requests).toContain('POST /v1/traces key=dr_k')
    expect(body).toContain(SECRET)
    const spans = f.exported.flatMap((b) => (JSON.parse(b) as OtlpExport).resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)))
    const attrs = (name: string) => Object.fromEntries(spans.find((s) => s.name === name)!.attributes.map((a) => [a.key, Object.values(a.value)[0]]))
    expect(attrs('invoke_agent support-bot')).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'openinference.span.kind': 'AGENT', 'svc.end_user': 'user-9', 'svc.project_id': 'proj-x' })
    expect(attrs('execute_tool lookup_order')).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup_order', 'openinference.span.kind': 'TOOL', 'svc.project_id': 'proj-x' })
    expect(attrs('retrieval kb')).toMatchObject({ 'gen_ai.operation.name': 'retrieval', 'openinference.span.kind': 'RETRIEVER' })
    expect(body).toContain('"unit-app"')
  })

  for (const [name, answers] of [
    ['sdk-config fails', { sdkConfig: { status: 500, body: '{}' } }],
    ['sdk-config times out', { sdkConfig: 'hang' }],
    ['the workspace keeps capture off', { sdkConfig: { status: 200, body: '{"capture_text":false}' } }],
  ] as const) {
    it(`no text leaves the process when ${name}`, async () => {
      f = await fakeIngest(answers)
      sdk = await init({ apiKey: 'dr_k', endpoint: f.url, configTimeoutMs: 300, configRefreshMs: 0 })
      expect(sdk.captureText).toBe(false)
      await run(sdk)
      expect(f.exported.length).toBeGreaterThan(0)
      const body = f.exported.join('\n')
      expect(body).toContain('gen_ai.request.model')
      expect(body).not.toContain(SECRET)
    })
  }

  it("captureText: false never asks and never sends text", async () => {
    f = await fakeIngest()
    sdk = await init({ apiKey: 'dr_k', endpoint: f.url, captureText: false })
    expect(sdk.captureText).toBe(false)
    await run(sdk)
    expect(f.requests.filter((r) => !r.startsWith('POST /v1/traces'))).toEqual([])
    expect(f.exported.join('\n')).not.toContain(SECRET)
  })

  it('spans that end before the lookup answered are stripped; a refresh that fails turns capture off again', async () => {
    f = await fakeIngest()
    const pending = init({ apiKey: 'dr_k', endpoint: f.url, configRefreshMs: 0 })
    trace.getTracer('early').startSpan('early', { attributes: { 'input.value': SECRET } }).end()
    sdk = await pending
    expect(sdk.captureText).toBe(true)
    await sdk.forceFlush()
    expect(f.exported.join('\n')).toContain('"early"')
    expect(f.exported.join('\n')).not.toContain(SECRET)
    f.sdkConfig = { status: 503, body: '' }
    expect(await sdk.refreshConfig()).toBe(false)
    sdk.tracer.startSpan('late', { attributes: { 'output.value': SECRET } }).end()
    await sdk.forceFlush()
    expect(f.exported.join('\n')).not.toContain(SECRET)
  })
})
