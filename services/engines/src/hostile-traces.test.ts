/**
 * Traces no producer should send, and some will: every engine finishes on them with a
 * result, and the work a trace makes is bounded (claims judged, sub-tasks, texts
 * embedded), so one trace cannot hold an engine worker for minutes or overflow its stack.
 */
import { loadPriceTable } from '@svc/shared/domain/pricing'
import { describe, expect, it } from 'vitest'
import { ENGINE_DEFINITIONS } from './registry.js'
import { chat, tool, viewOf, type SpanSpec } from './reliability/test-view.js'
import type { EngineContext } from './runtime/types.js'
import type { Embedder } from './semantic/types.js'

/** A sentence model stand-in that counts what it is asked to embed (vectors from the text's length: no meaning). */
function countingEmbedder() {
  const calls: number[] = []
  const embedder: Embedder = {
    model: 'local:counting',
    dims: 2,
    async embed(texts) {
      calls.push(texts.length)
      return texts.map((t) => Float32Array.from([Math.cos(t.length), Math.sin(t.length)]))
    },
  }
  return { embedder, calls }
}

const prices = loadPriceTable()
const context = (embedder: Embedder): EngineContext => ({
  orgId: 'o',
  workspaceId: 'w',
  prices,
  llm: null,
  search: null,
  broadenSources: false,
  priorOf: () => 0.5,
  alignmentPolicy: { enabled: true, description: 'Never promise a refund.' },
  semantic: async () => embedder,
})

/** Every engine's payload for the trace, by engine; a throw fails the test. */
async function runAll(specs: SpanSpec[], traceId: string) {
  const { embedder, calls } = countingEmbedder()
  const view = viewOf(specs, traceId)
  const out = new Map<string, Record<string, unknown>>()
  for (const [name, def] of ENGINE_DEFINITIONS) out.set(name, (await def.run(view, context(embedder))).payload)
  return { out, embedded: calls.reduce((a, b) => a + b, 0) }
}

const nested = (levels: number): string => '{"a":['.repeat(levels) + '1' + ']}'.repeat(levels)
const answer = (text: string, prompt = 'Weigh the items.') => ({ id: 'f'.repeat(16), attrs: chat([['user', prompt]], text) })

describe('every engine on hostile traces', () => {
  it('reads JSON nested thousands of levels deep in results, arguments, documents and messages as text', async () => {
    const deep = nested(3000)
    const { out } = await runAll(
      [
        { id: '1'.repeat(16), attrs: { ...tool('lookup', {}, deep), 'gen_ai.tool.call.arguments': deep } },
        { id: '2'.repeat(16), attrs: tool('lookup', {}, deep) },
        { id: '3'.repeat(16), attrs: { 'gen_ai.operation.name': 'retrieval', 'gen_ai.retrieval.documents': deep } },
        { id: '4'.repeat(16), attrs: { 'gen_ai.operation.name': 'chat', 'gen_ai.input.messages': deep, 'gen_ai.output.messages': deep } },
        answer('The lookup found one account. It weighs 2 kg.'),
      ],
      '01'.repeat(16),
    )
    expect(out.size).toBe(ENGINE_DEFINITIONS.size)
    expect((out.get('content_reliability')!.claims as unknown[]).length).toBe(2)
  })

  it('judges the first 200 claims of an answer of twenty thousand sentences', async () => {
    const long = Array.from({ length: 20_000 }, (_, i) => `Item ${i} weighs ${i} kg and costs $${i}.`).join(' ')
    const { out, embedded } = await runAll([{ id: '1'.repeat(16), attrs: tool('weigh', {}, { w_kg: 1 }) }, answer(long)], '02'.repeat(16))
    expect((out.get('content_reliability')!.claims as unknown[]).length).toBe(200)
    // Claims (200), decomposition's answer sentences (200) and spans, alignment's sentences (60), and what they are compared with.
    expect(embedded).toBeLessThan(2000)
  })

  it('reads a sentence of five thousand clause breaks and a result of fifty thousand digits', async () => {
    const sentence = `The crate weighs 12 kg${', which is heavy — and it ships, leaving 3 kg'.repeat(5000)}.`
    const { out } = await runAll([{ id: '1'.repeat(16), attrs: tool('weigh', {}, { serial: '7'.repeat(50_000), w_kg: 12 }) }, answer(sentence)], '07'.repeat(16))
    expect((out.get('content_reliability')!.claims as unknown[]).length).toBe(200)
  })

  it('checks the first figures of one claim of ten thousand', async () => {
    const claim = `The weights are ${Array.from({ length: 10_000 }, (_, i) => `${i + 1}.5 kg`).join(', ')}.`
    const { out } = await runAll([{ id: '1'.repeat(16), attrs: tool('weigh', {}, { weights_kg: [1.5, 2.5, 3.5] }) }, answer(claim)], '03'.repeat(16))
    expect((out.get('content_reliability')!.claims as unknown[]).length).toBe(1)
  })

  it('reads a tool result of twenty thousand records up to a bound, and still backs a claim from its start', async () => {
    const items = Array.from({ length: 20_000 }, (_, i) => ({ name: `Crate ${i}`, weight_kg: 100 + i }))
    const { out } = await runAll([{ id: '1'.repeat(16), attrs: tool('list_crates', {}, { items }) }, answer('Crate 3 weighs 103 kg.')], '04'.repeat(16))
    const claims = out.get('content_reliability')!.claims as Array<{ verdict: string }>
    expect(claims.map((c) => c.verdict)).toEqual(['supported'])
  })

  it('analyses a trace of five thousand spans, with at most 500 decisions in its graph', async () => {
    const id = (k: number) => (4096 + k).toString(16).padStart(16, '0')
    const spans: SpanSpec[] = Array.from({ length: 5000 }, (_, k) => ({
      id: id(k),
      ...(k ? { parent: id(Math.floor(k / 2)) } : {}),
      attrs: k % 2 ? tool('lookup', { q: k % 7 }, { result: k % 7, url: `https://ex${k % 50}.example/p${k}` }) : chat([['user', `Look up ${k}`]], `Result ${k % 7} from https://ex${k % 50}.example/p${k}.`),
    }))
    const { out } = await runAll([...spans, answer('The lookup returned 3.')], '06'.repeat(16))
    expect((out.get('decision_trace')!.nodes as unknown[]).length).toBe(500)
    expect((out.get('content_reliability')!.claims as unknown[]).length).toBe(1)
  })

  it('splits a request of five hundred asks into at most 50 sub-tasks', async () => {
    const ask = Array.from({ length: 500 }, (_, i) => `${i + 1}. Check crate ${i}.`).join('\n')
    const { out } = await runAll([{ id: '1'.repeat(16), attrs: tool('list_crates', {}, { n: 1 }) }, answer('Done.', ask)], '05'.repeat(16))
    expect((out.get('decomposition')!.sub_tasks as unknown[]).length).toBe(50)
  })
})
