import { describe, expect, it } from 'vitest'
import { genAiContent } from './genai-content.js'
import { genAiFacts, phaseOf, GENAI_FACT_KEYS } from './genai.js'

/** Attributes as ingest stores them: strings, non-strings as JSON text. */
const otelChat = {
  'gen_ai.operation.name': 'chat',
  'gen_ai.provider.name': 'openai',
  'gen_ai.request.model': 'gpt-4o',
  'gen_ai.response.model': 'gpt-4o-2024-08-06',
  'gen_ai.usage.input_tokens': '1200',
  'gen_ai.usage.output_tokens': '300',
  'gen_ai.usage.cache_read.input_tokens': '1000',
  'gen_ai.usage.reasoning.output_tokens': '120',
  'gen_ai.input.messages': JSON.stringify([{ role: 'system', parts: [{ type: 'text', content: 'Be brief.' }] }, { role: 'user', parts: [{ type: 'text', content: 'Refund policy?' }] }]),
  'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'Within 30 days.' }], finish_reason: 'stop' }]),
}
const openLlmetryAnthropic = {
  'traceloop.span.kind': 'task',
  'llm.request.type': 'chat',
  'gen_ai.system': 'Anthropic',
  'gen_ai.request.model': 'claude-sonnet-4-20250514',
  'gen_ai.usage.prompt_tokens': '50',
  'gen_ai.usage.completion_tokens': '80',
  'gen_ai.usage.cache_read_input_tokens': '2000',
  'gen_ai.usage.cache_creation_input_tokens': '500',
  'gen_ai.prompt.0.role': 'user',
  'gen_ai.prompt.0.content': 'Summarise the ticket.',
  'gen_ai.prompt.1.role': 'assistant',
  'gen_ai.prompt.1.content': 'Which ticket?',
  'gen_ai.completion.0.content': 'Ticket 42: refund approved.',
}
const openInference = {
  'openinference.span.kind': 'LLM',
  'llm.provider': 'openai',
  'llm.model_name': 'gpt-4o-mini',
  'llm.token_count.prompt': '900',
  'llm.token_count.completion': '100',
  'llm.token_count.prompt_details.cache_read': '600',
  'llm.token_count.completion_details.reasoning': '40',
  'input.value': 'What is the SLA?',
  'output.value': '99.9% monthly.',
}

describe('genAiFacts', () => {
  it('reads the current OpenTelemetry GenAI conventions; cache reads are already in the input count', () => {
    expect(genAiFacts(otelChat)).toEqual({
      model: 'gpt-4o-2024-08-06', provider: 'openai', spanType: 'llm', isLlm: true,
      inputTokens: 1200, outputTokens: 300, cacheReadTokens: 1000, cacheWriteTokens: 0, reasoningTokens: 120, reportedCostUsd: null,
    })
  })

  it('reads OpenLLMetry; Anthropic API cache counts are raw, so they are added to the input once', () => {
    expect(genAiFacts(openLlmetryAnthropic)).toEqual({
      model: 'claude-sonnet-4-20250514', provider: 'anthropic', spanType: 'llm', isLlm: true,
      inputTokens: 2550, outputTokens: 80, cacheReadTokens: 2000, cacheWriteTokens: 500, reasoningTokens: 0, reportedCostUsd: null,
    })
    expect(genAiFacts({ 'llm.usage.prompt_tokens': '7', 'llm.usage.completion_tokens': '3' })).toMatchObject({ inputTokens: 7, outputTokens: 3, isLlm: true, spanType: 'llm' })
  })

  it('reads OpenInference; prompt_details are a breakdown of the prompt count', () => {
    expect(genAiFacts(openInference)).toEqual({
      model: 'gpt-4o-mini', provider: 'openai', spanType: 'llm', isLlm: true,
      inputTokens: 900, outputTokens: 100, cacheReadTokens: 600, cacheWriteTokens: 0, reasoningTokens: 40, reportedCostUsd: null,
    })
  })

  it('types spans by operation or kind, and infers the provider from the model when unnamed', () => {
    expect(genAiFacts({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup' }).spanType).toBe('tool')
    expect(genAiFacts({ 'openinference.span.kind': 'RETRIEVER' }).spanType).toBe('retrieval')
    expect(genAiFacts({ 'gen_ai.operation.name': 'embeddings', 'gen_ai.request.model': 'text-embedding-3-small' })).toMatchObject({ spanType: 'embedding', provider: 'openai', isLlm: true })
    expect(genAiFacts({ 'gen_ai.operation.name': 'invoke_agent' }).spanType).toBe('agent')
    expect(genAiFacts({ 'traceloop.span.kind': 'workflow' }).spanType).toBe('chain')
    expect(genAiFacts({ 'gen_ai.retrieval.documents': '[]' }).spanType).toBe('retrieval')
    expect(genAiFacts({ 'gen_ai.request.model': 'claude-3-5-haiku' }).provider).toBe('anthropic')
    expect(genAiFacts({ 'http.method': 'GET' })).toMatchObject({ spanType: 'other', isLlm: false, provider: '' })
    expect(genAiFacts({ 'http.method': 'GET', 'tool.name': 'search' })).toMatchObject({ spanType: 'tool', isLlm: false })
    // Agent and tool spans of the GenAI conventions carry gen_ai.* (even a model) but are not calls to a model:
    // usage must not count them as LLM requests, nor price them as unpriced calls.
    expect(genAiFacts({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-4o' })).toMatchObject({ spanType: 'agent', isLlm: false })
    expect(genAiFacts({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup', 'gen_ai.system': 'openai' })).toMatchObject({ spanType: 'tool', isLlm: false })
    expect(genAiFacts({ 'openinference.span.kind': 'AGENT', 'llm.model_name': 'gpt-4o' })).toMatchObject({ spanType: 'agent', isLlm: false })
    expect(phaseOf('chain')).toBe('agent')
  })

  it('keeps a cost the producer reported and ignores junk numbers', () => {
    expect(genAiFacts({ 'gen_ai.request.model': 'm', 'svc.cost_usd': '0.0123' }).reportedCostUsd).toBe(0.0123)
    expect(genAiFacts({ 'gen_ai.usage.input_tokens': 'lots' }).inputTokens).toBe(0)
    expect(genAiFacts({ 'gen_ai.usage.input_tokens': '-4' }).inputTokens).toBe(0)
  })
})

describe('genAiContent', () => {
  it('reads prompt and completion text of all three conventions', () => {
    expect(genAiContent(otelChat)).toMatchObject({ prompt: 'system: Be brief.\nuser: Refund policy?', completion: 'assistant: Within 30 days.' })
    expect(genAiContent(openLlmetryAnthropic)).toMatchObject({ prompt: 'user: Summarise the ticket.\nassistant: Which ticket?', completion: 'Ticket 42: refund approved.' })
    expect(genAiContent(openInference)).toMatchObject({ prompt: 'What is the SLA?', completion: '99.9% monthly.' })
  })

  it('reads tool calls and retrieved documents', () => {
    expect(genAiContent({ 'gen_ai.tool.name': 'lookup_order', 'gen_ai.tool.call.arguments': '{"id":7}' }).toolCalls).toEqual([{ name: 'lookup_order', arguments: '{"id":7}' }])
    expect(genAiContent({ 'gen_ai.retrieval.documents': JSON.stringify([{ id: 'kb/refunds.md', score: 0.83, content: 'Refunds within 30 days', url: 'https://kb.example/refunds' }]) }).documents).toEqual([
      { id: 'kb/refunds.md', url: 'https://kb.example/refunds', content: 'Refunds within 30 days', score: 0.83 },
    ])
    expect(
      genAiContent({
        'retrieval.documents.1.document.id': 'b', 'retrieval.documents.1.document.content': 'second',
        'retrieval.documents.0.document.id': 'a', 'retrieval.documents.0.document.score': '0.5', 'retrieval.documents.0.document.metadata': '{"url":"https://x.example/a"}',
      }).documents,
    ).toEqual([{ id: 'a', url: 'https://x.example/a', content: '', score: 0.5 }, { id: 'b', url: '', content: 'second', score: null }])
  })
})

describe('GENAI_FACT_KEYS', () => {
  it('is every attribute genAiFacts reads (with none present, it reads each of them)', () => {
    const read = new Set<string>()
    const attrs = new Proxy({} as Record<string, string>, { get: (_, key) => (typeof key === 'string' && read.add(key), undefined) })
    genAiFacts(attrs)
    expect([...read].sort()).toEqual([...GENAI_FACT_KEYS].sort())
  })
})
