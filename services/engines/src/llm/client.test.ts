import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { refusedPort, requestedSchema, startFakeOpenAi, type FakeOpenAi } from '../test-support/fake-openai.js'
import { createLlmClient, LlmError, Semaphore, type LlmUsage, type ModelSpec } from './client.js'

const schema = z.object({ answer: z.string(), n: z.number() })
const req = { system: 'You answer in JSON.', prompt: 'Say hi.' }

let fake: FakeOpenAi
let platform: FakeOpenAi
beforeEach(async () => {
  fake = await startFakeOpenAi()
  platform = await startFakeOpenAi(() => ({ object: { answer: 'from platform', n: 2 } }))
})
afterEach(async () => {
  await fake.close()
  await platform.close()
})

const orgSpec = (over: Partial<ModelSpec> = {}): ModelSpec => ({
  provider: 'openai',
  model_id: 'gpt-org-model',
  api_key: 'sk-org-key',
  api_base: fake.url,
  ...over,
})
const platformSpec = (): ModelSpec => ({ provider: 'openai-compatible', model_id: 'platform-model', api_key: 'sk-platform', api_base: platform.url })

async function rejection(p: Promise<unknown>): Promise<LlmError> {
  try {
    await p
  } catch (e) {
    expect(e).toBeInstanceOf(LlmError)
    return e as LlmError
  }
  throw new Error('expected a rejection')
}

describe('createLlmClient', () => {
  it('sends the model, key, messages and JSON schema, and returns the validated object and usage', async () => {
    fake.setHandler(() => ({ object: { answer: 'hi', n: 1 }, usage: { prompt_tokens: 120, completion_tokens: 7 } }))
    const usages: LlmUsage[] = []
    const client = createLlmClient({ primary: orgSpec(), fallback: null, concurrency: 2, timeoutMs: 5000, onUsage: (u) => usages.push(u) })
    const res = await client.generate(schema, req, 'content_reliability')
    expect(res).toEqual({ object: { answer: 'hi', n: 1 }, usage: { inputTokens: 120, outputTokens: 7 }, model: 'openai:gpt-org-model', fallback: false })
    expect(usages).toEqual([{ model: 'openai:gpt-org-model', inputTokens: 120, outputTokens: 7, fallback: false, engine: 'content_reliability' }])

    const sent = fake.requests[0]!
    expect(sent.path).toBe('/v1/chat/completions')
    expect(sent.headers.authorization).toBe('Bearer sk-org-key')
    expect(sent.body.model).toBe('gpt-org-model')
    expect(sent.body.messages[0]).toMatchObject({ role: 'system', content: 'You answer in JSON.' })
    expect(fake.promptText()).toContain('Say hi.')
    expect(sent.body.response_format?.type).toBe('json_schema')
    expect(requestedSchema(sent.body)).toMatchObject({ type: 'object', properties: { answer: { type: 'string' }, n: { type: 'number' } } })
  })

  it('rejects an answer that is not JSON, or does not match the schema, as invalid_output', async () => {
    const client = createLlmClient({ primary: orgSpec(), fallback: platformSpec(), concurrency: 1, timeoutMs: 5000 })
    fake.setHandler(() => ({ content: '{"answer": "hi", n: ' }))
    const bad = await rejection(client.generate(schema, req, 'x'))
    expect(bad.kind).toBe('invalid_output')
    fake.setHandler(() => ({ object: { answer: 3 } }))
    const wrong = await rejection(client.generate(schema, req, 'x'))
    expect(wrong.kind).toBe('invalid_output')
    // A bad answer is not an outage: the platform model is not asked.
    expect(platform.requests).toHaveLength(0)
  })

  it('gives up at the deadline', async () => {
    // The answer would arrive and succeed at 2 s: a rejection naming the deadline shows the call stopped first.
    fake.setHandler(() => ({ object: { answer: 'late', n: 0 }, delayMs: 2000 }))
    const client = createLlmClient({ primary: orgSpec(), fallback: null, concurrency: 1, timeoutMs: 150 })
    const e = await rejection(client.generate(schema, req, 'x'))
    expect(e.kind).toBe('unreachable')
    expect(e.message).toMatch(/deadline/)
  })

  it('keeps at most `concurrency` calls in flight', async () => {
    fake.setHandler(() => ({ object: { answer: 'ok', n: 0 }, delayMs: 60 }))
    const client = createLlmClient({ primary: orgSpec(), fallback: null, concurrency: 3, timeoutMs: 5000 })
    const all = await Promise.all(Array.from({ length: 10 }, () => client.generate(schema, req, 'x')))
    expect(all).toHaveLength(10)
    expect(fake.requests).toHaveLength(10)
    expect(fake.maxConcurrent).toBe(3)
  })

  it('falls back to the platform model when the organization endpoint refuses connections', async () => {
    const port = await refusedPort()
    const usages: LlmUsage[] = []
    const client = createLlmClient({
      primary: orgSpec({ api_base: `http://127.0.0.1:${port}/v1` }),
      fallback: platformSpec(),
      concurrency: 1,
      timeoutMs: 5000,
      onUsage: (u) => usages.push(u),
    })
    const res = await client.generate(schema, req, 'decomposition')
    expect(res.object).toEqual({ answer: 'from platform', n: 2 })
    expect(res.fallback).toBe(true)
    expect(res.model).toBe('openai-compatible:platform-model')
    expect(platform.requests[0]!.headers.authorization).toBe('Bearer sk-platform')
    expect(platform.requests[0]!.body.model).toBe('platform-model')
    expect(usages).toHaveLength(1)
    expect(usages[0]).toMatchObject({ fallback: true, model: 'openai-compatible:platform-model', engine: 'decomposition' })
  })

  it('falls back on 5xx and on a dropped connection', async () => {
    const client = createLlmClient({ primary: orgSpec(), fallback: platformSpec(), concurrency: 1, timeoutMs: 5000 })
    fake.setHandler(() => ({ status: 503 }))
    expect((await client.generate(schema, req, 'x')).fallback).toBe(true)
    fake.setHandler(() => ({ drop: true }))
    expect((await client.generate(schema, req, 'x')).fallback).toBe(true)
    expect(platform.requests).toHaveLength(2)
  })

  it('does not fall back when fallback is disabled: the outage surfaces', async () => {
    const port = await refusedPort()
    const client = createLlmClient({ primary: orgSpec({ api_base: `http://127.0.0.1:${port}/v1` }), fallback: null, concurrency: 1, timeoutMs: 5000 })
    const e = await rejection(client.generate(schema, req, 'x'))
    expect(e.kind).toBe('unreachable')
    expect(e.status).toBeNull()
  })

  it('does not fall back on 401: a bad key is an error the organization must see', async () => {
    fake.setHandler(() => ({ status: 401, message: 'Incorrect API key provided' }))
    const client = createLlmClient({ primary: orgSpec(), fallback: platformSpec(), concurrency: 1, timeoutMs: 5000 })
    const e = await rejection(client.generate(schema, req, 'x'))
    expect(e.kind).toBe('rejected')
    expect(e.status).toBe(401)
    expect(e.message).toMatch(/Incorrect API key/)
    expect(platform.requests).toHaveLength(0)
  })

  it('reports the platform failure too when the fallback also fails', async () => {
    fake.setHandler(() => ({ status: 502 }))
    platform.setHandler(() => ({ status: 500 }))
    const client = createLlmClient({ primary: orgSpec(), fallback: platformSpec(), concurrency: 1, timeoutMs: 5000 })
    const e = await rejection(client.generate(schema, req, 'x'))
    expect(e.message).toMatch(/fallback failed too/)
    expect(e.model).toBe('openai-compatible:platform-model')
  })

  it('fails with a config error for a provider it cannot reach', async () => {
    const client = createLlmClient({ primary: { provider: 'acme-llm', model_id: 'm', api_key: 'k', api_base: null }, fallback: platformSpec(), concurrency: 1, timeoutMs: 5000 })
    const e = await rejection(client.generate(schema, req, 'x'))
    expect(e.kind).toBe('config')
    expect(platform.requests).toHaveLength(0)
  })
})

describe('Semaphore', () => {
  it('serves waiters in order and never exceeds the limit', async () => {
    const s = new Semaphore(2)
    let active = 0
    let peak = 0
    const order: number[] = []
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        s.run(async () => {
          active++
          peak = Math.max(peak, active)
          await new Promise((r) => setTimeout(r, 5))
          order.push(i)
          active--
        }),
      ),
    )
    expect(peak).toBe(2)
    expect(order).toHaveLength(6)
  })
})
