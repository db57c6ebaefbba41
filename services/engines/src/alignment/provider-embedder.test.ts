import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFakeOpenAi, type FakeOpenAi } from '../test-support/fake-openai.js'
import { embeddingModelOf, providerEmbedder } from './provider-embedder.js'

let fake: FakeOpenAi
beforeAll(async () => {
  fake = await startFakeOpenAi()
})
afterAll(() => fake?.close())

describe('provider embedder', () => {
  it('openai: text-embedding-3-small through embedMany, normalised vectors, labelled with the model', async () => {
    const e = providerEmbedder({ provider: 'openai', model_id: 'gpt-4o-mini', api_key: 'sk-test-0001', api_base: fake.url })!
    expect(e.model).toBe('openai:text-embedding-3-small')
    const v = await e.embed(['never share card numbers', 'refunds within 30 days'])
    expect(v).toHaveLength(2)
    expect(Math.sqrt(v[0]!.reduce((s, x) => s + x * x, 0))).toBeCloseTo(1, 5)
    const req = fake.requests.find((r) => r.path.endsWith('/embeddings'))!
    expect(req.body.model).toBe('text-embedding-3-small')
    expect(req.headers.authorization).toBe('Bearer sk-test-0001')
  })
  it('falls back to none (local) where the provider has no configured embedding model', () => {
    expect(embeddingModelOf({ provider: 'anthropic', model_id: 'claude', api_key: 'k', api_base: null })).toBeNull()
    expect(embeddingModelOf({ provider: 'vllm', model_id: 'm', api_key: '', api_base: 'http://x/v1' })).toBeNull()
    expect(embeddingModelOf({ provider: 'vllm', model_id: 'm', api_key: '', api_base: 'http://x/v1', provider_config: { embedding_model: 'bge-small' } })?.label).toBe('vllm:bge-small')
  })
})
