import { describe, expect, it } from 'vitest'
import { ROOT_CONTEXT } from '@opentelemetry/api'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { KEPT_KEYS, TEXT_KEYS } from './content-keys.fixture.js'
import { END_USER_KEY, PROJECT_KEY } from './context.js'
import { CaptureGate, ContentFilterSpanProcessor } from './processor.js'

const SECRET = 'SECRET-PROMPT-TEXT'

function setup(gate: CaptureGate) {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({ spanProcessors: [new ContentFilterSpanProcessor(new SimpleSpanProcessor(exporter), gate)] })
  return { exporter, tracer: provider.getTracer('t'), provider }
}

function textSpan(tracer: ReturnType<ReturnType<typeof setup>['provider']['getTracer']>) {
  const span = tracer.startSpan('chat', { attributes: Object.fromEntries([...TEXT_KEYS, ...KEPT_KEYS].map((k) => [k, TEXT_KEYS.includes(k) ? `${SECRET} ${k}` : `v:${k}`])) })
  span.addEvent('gen_ai.content.prompt', { 'gen_ai.prompt': SECRET })
  span.addEvent('gen_ai.choice', { index: 0, message: SECRET })
  span.addEvent('gen_ai.user.message', { content: SECRET })
  span.addEvent('exception', { 'exception.message': 'boom', 'input.value': SECRET })
  span.end()
  return span
}

describe('ContentFilterSpanProcessor', () => {
  for (const mode of ['pending', 'off'] as const) {
    it(`exports no text of any convention while capture is ${mode}, and keeps everything else`, async () => {
      const { exporter, tracer } = setup(new CaptureGate(mode))
      const local = textSpan(tracer)
      const [out] = exporter.getFinishedSpans()
      expect(out).toBeDefined()
      expect(JSON.stringify({ a: out!.attributes, e: out!.events })).not.toContain(SECRET)
      expect(Object.keys(out!.attributes).sort()).toEqual([...KEPT_KEYS].sort())
      expect(out!.events.map((e) => e.name)).toEqual(['gen_ai.content.prompt', 'gen_ai.choice', 'gen_ai.user.message', 'exception'])
      expect(out!.events[3]!.attributes).toEqual({ 'exception.message': 'boom' })
      expect(out!.spanContext()).toEqual(local.spanContext())
      expect(out!.name).toBe('chat')
      // The live span is not modified; only the exported view is filtered.
      expect((local as unknown as { attributes: Record<string, unknown> }).attributes['input.value']).toContain(SECRET)
    })
  }

  it('exports text once capture is on, and decides per span when it ends', async () => {
    const gate = new CaptureGate()
    const { exporter, tracer } = setup(gate)
    const early = tracer.startSpan('early', { attributes: { 'input.value': SECRET } })
    const late = tracer.startSpan('late', { attributes: { 'input.value': SECRET } })
    early.end()
    gate.set(true)
    late.end()
    const spans = exporter.getFinishedSpans()
    expect(spans.find((s) => s.name === 'early')!.attributes['input.value']).toBeUndefined()
    expect(spans.find((s) => s.name === 'late')!.attributes['input.value']).toBe(SECRET)
    gate.set(false)
    const after = tracer.startSpan('after', { attributes: { 'gen_ai.prompt.0.content': SECRET } })
    after.end()
    expect(exporter.getFinishedSpans().find((s) => s.name === 'after')!.attributes).toEqual({})
  })

  it('hands a span without text to the exporter as it is', () => {
    const { exporter, tracer } = setup(new CaptureGate('off'))
    const span = tracer.startSpan('plain', { attributes: { 'gen_ai.request.model': 'gpt-4o' } })
    span.end()
    expect(exporter.getFinishedSpans()[0]).toBe(span)
  })

  it('a throwing decision counts as capture off', () => {
    const exporter = new InMemorySpanExporter()
    const tracer = new BasicTracerProvider({ spanProcessors: [new ContentFilterSpanProcessor(new SimpleSpanProcessor(exporter), () => { throw new Error('x') })] }).getTracer('t')
    tracer.startSpan('s', { attributes: { 'output.value': SECRET } }).end()
    expect(exporter.getFinishedSpans()[0]!.attributes).toEqual({})
  })

  it('stamps svc.end_user and svc.project_id from the context, without overriding a span of its own', () => {
    const { exporter, tracer } = setup(new CaptureGate('on'))
    const ctx = ROOT_CONTEXT.setValue(END_USER_KEY, 'user-7').setValue(PROJECT_KEY, 'proj-a')
    tracer.startSpan('a', {}, ctx).end()
    tracer.startSpan('b', { attributes: { 'svc.project_id': 'own' } }, ctx).end()
    const [a, b] = exporter.getFinishedSpans()
    expect(a!.attributes).toEqual({ 'svc.end_user': 'user-7', 'svc.project_id': 'proj-a' })
    expect(b!.attributes).toEqual({ 'svc.end_user': 'user-7', 'svc.project_id': 'own' })
  })
})
