/**
 * PUT llm-credentials: the stored key stays bound to the provider and api_base it
 * was entered for (a dev cannot point the organization's key at an address of their
 * choosing), and api_base is checked as it is stored.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { NewControlEvent } from '@svc/shared/control/control-plane'
import { llmContext, openSecret, sealSecret } from '@svc/shared/control/envelope'
import type { TestJson } from '@svc/shared/test-support/json'
import { apiHarness, ORG, type Harness } from '../test-support/harness.js'

const DEV = `dr_${'d'.repeat(40)}`
const PATH = '/v1/observ/orgs/acme/llm-credentials'
const KEY = 'sk-live-BOUND-TO-GATEWAY-a1b2'
const A = 'https://gateway.example/v1'
const B = 'https://attacker.example/v1'

let h: Harness
let open: Harness
/** An event the next append lands first, as a PUT on another replica would. */
let racer: NewControlEvent | null = null

beforeAll(async () => {
  h = await apiHarness({
    keys: { [DEV]: 'dev' },
    wrapWriter: (w) => ({
      state: w.state,
      async append(events, actor) {
        const r = racer
        racer = null
        if (r) await w.append([r], 'another-replica')
        await w.append(events, actor)
      },
    }),
  })
  open = await apiHarness({ keys: { [DEV]: 'dev' }, egressAllowPrivate: true, store: h.store })
}, 60_000)
afterAll(async () => {
  await h?.close()
  await open?.close()
})

async function put(body: unknown, on: Harness = h): Promise<{ status: number; body: TestJson }> {
  const res = await on.app.request(PATH, { method: 'PUT', headers: { 'content-type': 'application/json', 'x-svc-api-key': DEV }, body: JSON.stringify(body) })
  return { status: res.status, body: await res.json() }
}
const stored = (on: Harness = h) => on.state.credentialsOf(ORG).llm
const storedKey = (on: Harness = h) => openSecret(on.masterKey, stored(on)!.secret!, llmContext(ORG))

describe('the stored LLM key is bound to its provider and api_base', () => {
  beforeEach(async () => {
    expect((await put({ provider: 'openai', model_id: 'gpt-4o-mini', api_key: KEY, api_base: A })).status).toBe(200)
  })

  it('a new api_base or provider without a new api_key answers 422 and changes nothing', async () => {
    const before = structuredClone(stored())
    for (const body of [
      { provider: 'openai', model_id: 'gpt-4o-mini', api_base: B },
      { provider: 'openai', model_id: 'gpt-4o-mini', api_key: null, api_base: B },
      // Omitting api_base means the provider's own endpoint: another address too.
      { provider: 'openai', model_id: 'gpt-4o-mini' },
      { provider: 'anthropic', model_id: 'claude-sonnet-4', api_base: A },
    ]) {
      const r = await put(body)
      expect(r.status, JSON.stringify(body)).toBe(422)
      expect(r.body.error).toBe('unprocessable_entity')
      expect(r.body.message).toMatch(/api_key/)
      expect(stored()).toEqual(before)
    }
    const get = await h.app.request(PATH, { headers: { 'x-svc-api-key': DEV } })
    expect(await get.json()).toMatchObject({ api_base: A, api_key_last4: 'a1b2' })
  })

  it('the same provider and api_base keep the key: a new model_id or provider_config needs no key', async () => {
    const sealed = stored()!.secret
    const r = await put({ provider: 'OpenAI', model_id: 'gpt-4o', api_base: A, provider_config: { organization: 'org-1' } })
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ model_id: 'gpt-4o', api_base: A, api_key_last4: 'a1b2' })
    expect(stored()).toMatchObject({ model_id: 'gpt-4o', provider_config: { organization: 'org-1' } })
    expect(stored()!.secret).toEqual(sealed)
  })

  it('with a new api_key the credential moves, and the new key is bound to the new address', async () => {
    expect((await put({ provider: 'openai', model_id: 'gpt-4o-mini', api_key: 'sk-for-B-9999', api_base: B })).status).toBe(200)
    expect(storedKey()).toBe('sk-for-B-9999')
    expect((await put({ provider: 'openai', model_id: 'gpt-4o-mini', api_base: A })).status).toBe(422)
    expect(stored()).toMatchObject({ api_base: B, api_key_last4: '9999' })
  })

  it('a PUT that keeps the key but loses a race to another replica moving it answers 409; the key stays where it was entered', async () => {
    racer = {
      type: 'credential.llm_set',
      payload: { org_id: ORG, provider: 'openai', model_id: 'gpt-4o-mini', api_base: B, provider_config: {}, secret: sealSecret(h.masterKey, 'sk-for-B-7777', llmContext(ORG)), api_key_last4: '7777' },
    }
    // Checked against the state before the race (base A): allowed; folded after it: refused.
    const r = await put({ provider: 'openai', model_id: 'gpt-4o', api_base: A })
    expect(r.status).toBe(409)
    expect(r.body.error).toBe('conflict')
    expect(stored()).toMatchObject({ api_base: B, model_id: 'gpt-4o-mini', api_key_last4: '7777' })
    expect(storedKey()).toBe('sk-for-B-7777')
  })
})

describe('a credential without a stored key', () => {
  it('may change its api_base without a key: there is nothing to move', async () => {
    expect((await h.app.request(PATH, { method: 'DELETE', headers: { 'x-svc-api-key': DEV } })).status).toBe(204)
    expect((await put({ provider: 'ollama', model_id: 'llama3', api_base: 'https://ollama.example/v1' })).status).toBe(200)
    expect((await put({ provider: 'ollama', model_id: 'llama3', api_base: 'https://ollama.example.org/v1' })).status).toBe(200)
    expect(stored()).toMatchObject({ api_base: 'https://ollama.example.org/v1', secret: null })
  })
})

describe('api_base on PUT', () => {
  it('takes http and https only (400)', async () => {
    for (const api_base of ['file:///etc/passwd', 'ftp://files.example/v1', 'javascript:alert(1)', 'gopher://x.example/'])
      expect((await put({ provider: 'openai', model_id: 'm', api_key: 'sk-x', api_base })).status, api_base).toBe(400)
  })

  it('refuses a literal private, loopback or link-local address (422) unless private egress is allowed', async () => {
    const before = structuredClone(stored())
    for (const api_base of ['http://127.0.0.1:11434/v1', 'http://[::1]:8000/v1', 'http://169.254.169.254/latest', 'http://10.1.2.3/v1', 'http://[::ffff:7f00:1]/v1', 'http://0.0.0.0:8000', 'http://2130706433/v1', 'http://[fd00:ec2::254]/']) {
      const r = await put({ provider: 'openai', model_id: 'm', api_key: 'sk-x', api_base })
      expect(r.status, api_base).toBe(422)
      expect(r.body.message).toMatch(/SVC_EGRESS_ALLOW_PRIVATE/)
      expect(stored()).toEqual(before)
      expect((await put({ provider: 'openai', model_id: 'm', api_key: 'sk-x', api_base }, open)).status, api_base).toBe(200)
    }
  })

  it('accepts names, whose addresses the engines check when they connect', async () => {
    expect((await put({ provider: 'openai', model_id: 'm', api_key: 'sk-x', api_base: 'http://localhost:11434/v1' })).status).toBe(200)
    expect((await put({ provider: 'openai', model_id: 'm', api_key: 'sk-x', api_base: 'https://8.8.8.8/v1' })).status).toBe(200)
  })
})
