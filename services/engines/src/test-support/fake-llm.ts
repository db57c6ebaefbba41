/**
 * For tests of the LLM engines: a fresh loopback OpenAI-compatible server per test
 * (beforeEach/afterEach of the calling file) and a client of the given model on it,
 * recording the usage it reports.
 */
import { afterEach, beforeEach } from 'vitest'
import { createLlmClient, type LlmClient, type LlmUsage } from '../llm/client.js'
import { startFakeOpenAi, type FakeOpenAi } from './fake-openai.js'

export function useFakeLlm(model: { model_id: string; api_key: string }) {
  const ctx = { fake: null as unknown as FakeOpenAi, usages: [] as LlmUsage[] }
  beforeEach(async () => {
    ctx.fake = await startFakeOpenAi()
    ctx.usages = []
  })
  afterEach(async () => {
    await ctx.fake.close()
  })
  return {
    get fake() {
      return ctx.fake
    },
    get usages() {
      return ctx.usages
    },
    client: (): LlmClient =>
      createLlmClient({
        primary: { provider: 'openai', ...model, api_base: ctx.fake.url },
        fallback: null,
        concurrency: 2,
        timeoutMs: 5000,
        onUsage: (u) => ctx.usages.push(u),
      }),
  }
}
