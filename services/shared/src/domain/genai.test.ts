import { describe, expect, it } from 'vitest'
import { llmFacts } from './genai.js'

describe('llmFacts', () => {
  it('reads the current OpenTelemetry GenAI names', () => {
    const f = llmFacts({ 'gen_ai.request.model': 'gpt-4o', 'gen_ai.response.model': 'gpt-4o-2024-08-06', 'gen_ai.usage.input_tokens': '120', 'gen_ai.usage.output_tokens': '30' })
    expect(f).toEqual({ model: 'gpt-4o-2024-08-06', inputTokens: 120, outputTokens: 30, reportedCostUsd: null, isLlm: true })
  })
  it('reads OpenLLMetry and OpenInference token names', () => {
    expect(llmFacts({ 'llm.usage.prompt_tokens': '7', 'llm.usage.completion_tokens': '3' })).toMatchObject({ inputTokens: 7, outputTokens: 3, isLlm: true })
    expect(llmFacts({ 'llm.model_name': 'claude-3-5-sonnet', 'llm.token_count.prompt': '11', 'llm.token_count.completion': '5', 'openinference.span.kind': 'LLM' })).toMatchObject({ model: 'claude-3-5-sonnet', inputTokens: 11, outputTokens: 5, isLlm: true })
  })
  it('keeps a cost the producer reported and ignores junk numbers', () => {
    expect(llmFacts({ 'gen_ai.request.model': 'm', 'svc.cost_usd': '0.0123' }).reportedCostUsd).toBe(0.0123)
    expect(llmFacts({ 'gen_ai.usage.input_tokens': 'lots' }).inputTokens).toBe(0)
    expect(llmFacts({ 'gen_ai.usage.input_tokens': '-4' }).inputTokens).toBe(0)
  })
  it('does not call a plain tool or HTTP span an LLM span', () => {
    expect(llmFacts({ 'http.method': 'GET', 'tool.name': 'search' }).isLlm).toBe(false)
  })
})
