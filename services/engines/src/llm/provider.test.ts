import { describe, expect, it } from 'vitest'
import { languageModel, modelLabel, platformModelSpec, ProviderConfigError, type ModelSpec } from './provider.js'

const spec = (provider: string, api_base: string | null = null, over: Partial<ModelSpec> = {}): ModelSpec => ({
  provider,
  model_id: 'some-model',
  api_key: 'k',
  api_base,
  ...over,
})
// LanguageModel is a union with plain model-id strings; the factories always return objects.
const info = (m: unknown) => {
  const o = m as { provider: string; modelId: string }
  return { provider: o.provider, modelId: o.modelId }
}

describe('languageModel', () => {
  it('uses chat completions for openai with a custom api_base, the default API without one', () => {
    expect(info(languageModel(spec('openai', 'http://127.0.0.1:9/v1')))).toEqual({ provider: 'openai.chat', modelId: 'some-model' })
    expect(info(languageModel(spec('OpenAI'))).provider).toMatch(/^openai\./)
  })

  it('maps the native providers to their packages', () => {
    expect(info(languageModel(spec('anthropic'))).provider).toMatch(/^anthropic/)
    expect(info(languageModel(spec('claude'))).provider).toMatch(/^anthropic/)
    expect(info(languageModel(spec('google'))).provider).toMatch(/^google/)
    expect(info(languageModel(spec('gemini'))).provider).toMatch(/^google/)
    expect(info(languageModel(spec('mistral'))).provider).toMatch(/^mistral/)
  })

  it('reaches other providers through the OpenAI-compatible package', () => {
    expect(info(languageModel(spec('openai-compatible', 'http://127.0.0.1:9/v1'))).provider).toBe('openai-compatible.chat')
    expect(info(languageModel(spec('vllm', 'http://127.0.0.1:9/v1'))).provider).toBe('vllm.chat')
    // Known hosted services need no api_base.
    expect(info(languageModel(spec('groq'))).provider).toBe('groq.chat')
  })

  it('refuses an unknown provider without an api_base, and a credential without a model', () => {
    expect(() => languageModel(spec('acme-llm'))).toThrow(ProviderConfigError)
    expect(() => languageModel(spec('acme-llm'))).toThrow(/api_base/)
    expect(() => languageModel(spec('openai', null, { model_id: '' }))).toThrow(/no model/)
  })

  it('labels models as provider:model', () => {
    expect(modelLabel(spec('Gemini'))).toBe('google:some-model')
  })
})

describe('platformModelSpec', () => {
  it('is null unless provider and model are configured', () => {
    expect(platformModelSpec(null)).toBeNull()
    expect(platformModelSpec({ provider: 'openai' })).toBeNull()
    expect(platformModelSpec({ provider: 'openai', model_id: 'gpt-x', api_key: 'k', api_base: '' })).toEqual({
      provider: 'openai',
      model_id: 'gpt-x',
      api_key: 'k',
      api_base: null,
    })
  })
})
