/**
 * The organization's clients reach its provider, embedding model and web search
 * through the egress guard: a credential naming an address that resolves to
 * loopback is refused when the engines connect (the model never sees the key), the
 * failure is an unreachable provider's, and the operator's own platform model is
 * not subject to the guard.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { loadConfig } from '@svc/shared/config'
import { llmContext, masterKeyFrom, sealSecret, searchContext } from '@svc/shared/control/envelope'
import type { ControlEvent } from '@svc/shared/control/events'
import { stableUuid } from '@svc/shared/control/secrets'
import { ControlState } from '@svc/shared/control/state'
import { createLogger } from '@svc/shared/log'
import { orgEmbedders } from '../alignment/provider-embedder.js'
import { LlmError } from '../llm/client.js'
import { startFakeOpenAi, type FakeOpenAi } from '../test-support/fake-openai.js'
import { startFakeSearch, type FakeSearch } from '../test-support/fake-search.js'
import { egressFor, orgClients } from './org-clients.js'

const ORG = stableUuid('org:acme')
const KEY = 'sk-org-secret-key-0042'
const master = masterKeyFrom(randomBytes(32))
const schema = z.object({ ok: z.boolean() })
const ask = { system: 'Answer in JSON.', prompt: 'ok?' }

let model: FakeOpenAi
let platform: FakeOpenAi
let web: FakeSearch
beforeAll(async () => {
  model = await startFakeOpenAi(() => ({ object: { ok: true } }))
  platform = await startFakeOpenAi(() => ({ object: { ok: true } }))
  web = await startFakeSearch(() => ({ results: [{ url: 'https://example.com/a', title: 'A', content: 'text' }] }))
})
afterAll(async () => {
  await model?.close()
  await platform?.close()
  await web?.close()
})

/** `localhost` rather than 127.0.0.1: a name, so only the connect-time check can see where it leads. */
const viaName = (url: string) => url.replace('127.0.0.1', 'localhost')

function setup(allowPrivate: boolean, fallback = false) {
  let n = 0
  const state = new ControlState()
  const apply = (type: ControlEvent['type'], payload: unknown) => state.apply({ type, payload, actor: 't', at_ms: ++n, event_id: String(n) } as ControlEvent)
  apply('org.created', { org_id: ORG, slug: 'acme', name: 'Acme' })
  apply('credential.llm_set', { org_id: ORG, provider: 'openai', model_id: 'gpt-org', api_base: viaName(model.url), provider_config: { embedding_model: 'embed-1' }, secret: sealSecret(master, KEY, llmContext(ORG)), api_key_last4: '0042' })
  apply('credential.search_set', { org_id: ORG, secret: sealSecret(master, 'tvly-org-key', searchContext(ORG)), api_key_last4: '-key' })
  if (fallback) apply('credential.llm_fallback_set', { org_id: ORG, enabled: true })
  const config = loadConfig({
    SVC_DATA_DIR: mkdtempSync(join(tmpdir(), 'org-clients-')),
    SVC_EGRESS_ALLOW_PRIVATE: String(allowPrivate),
    SVC_SEARCH_API_BASE: viaName(web.url),
    SVC_PLATFORM_LLM_PROVIDER: 'openai',
    SVC_PLATFORM_LLM_MODEL: 'platform-1',
    SVC_PLATFORM_LLM_API_KEY: 'sk-platform',
    SVC_PLATFORM_LLM_API_BASE: platform.url,
  })
  const lines: string[] = []
  const log = createLogger({ level: 'warn' }, new Writable({ write: (chunk, _e, cb) => (lines.push(String(chunk)), cb()) }))
  const egress = egressFor(config, log)
  return { clients: orgClients({ state, master, config, log, fetch: egress }), embedderOf: orgEmbedders({ state, master, fetch: egress }), lines }
}

describe('org clients without private egress', () => {
  it('refuse the organization model at a name resolving to loopback: unreachable, nothing sent, one clear log line', async () => {
    const before = model.requests.length
    const { clients, lines } = setup(false)
    const err = await clients.llm(ORG)!.generate(schema, ask, 'content_reliability').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(LlmError)
    expect((err as LlmError).kind).toBe('unreachable')
    expect((err as LlmError).message).toMatch(/refused: loopback/)
    expect(model.requests.length).toBe(before)
    expect(lines.join('')).toMatch(/SVC_EGRESS_ALLOW_PRIVATE/)
    expect(lines.join('')).toContain('"host":"localhost"')
    expect(lines.join('')).not.toContain(KEY)
  })

  it('refuse the search service and the embedding model the same way', async () => {
    const { clients, embedderOf } = setup(false)
    const [searches, models] = [web.requests.length, model.requests.length]
    await expect(clients.search(ORG)!.search('claim', { maxResults: 3 })).rejects.toThrow(/search service unreachable: .*refused: loopback/)
    await expect(embedderOf(ORG)!.embed(['a sentence'])).rejects.toThrow(/refused/)
    expect(web.requests.length).toBe(searches)
    expect(model.requests.length).toBe(models)
  })

  it("leave the operator's platform model alone: with fallback on it answers", async () => {
    const { clients } = setup(false, true)
    const before = platform.requests.length
    const res = await clients.llm(ORG)!.generate(schema, ask, 'content_reliability')
    expect(res).toMatchObject({ object: { ok: true }, fallback: true })
    expect(platform.requests.length).toBe(before + 1)
  })
})

describe('org clients with SVC_EGRESS_ALLOW_PRIVATE=true', () => {
  it('reach the same loopback model, search and embeddings through the same transport', async () => {
    const { clients, embedderOf } = setup(true)
    expect(await clients.llm(ORG)!.generate(schema, ask, 'content_reliability')).toMatchObject({ object: { ok: true }, fallback: false })
    expect(model.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`)
    expect(await clients.search(ORG)!.search('claim', { maxResults: 3 })).toHaveLength(1)
    expect(await embedderOf(ORG)!.embed(['a sentence'])).toHaveLength(1)
  })
})
