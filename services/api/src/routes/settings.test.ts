/** Workspace settings, engine settings and credentials over the real app. */
import { Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openSecret } from '@svc/shared/control/envelope'
import { captureTextOn } from '@svc/shared/control/settings'
import { createLogger } from '@svc/shared/log'
import { apiHarness, ORG, WS, type Harness } from '../test-support/harness.js'
import { llmContext } from '@svc/shared/control/envelope'
import type { TestJson } from '@svc/shared/test-support/json'

const ADMIN = `dr_${'a'.repeat(40)}`
const DEV = `dr_${'d'.repeat(40)}`
const SECRET_LLM = 'sk-live-THE-LLM-SECRET-7q9z'
const SECRET_SEARCH = 'tvly-THE-SEARCH-SECRET-k3x8'

const logLines: string[] = []
let h: Harness

beforeAll(async () => {
  // Every log line at every level, to prove no secret is ever written.
  const log = createLogger({ level: 'trace' }, new Writable({ write: (chunk, _enc, cb) => (logLines.push(String(chunk)), cb()) }))
  h = await apiHarness({ keys: { [ADMIN]: 'admin', [DEV]: 'dev' }, defaultCostProvider: 'anthropic', log })
}, 60_000)
afterAll(() => h?.close())

const bodies: string[] = []
async function req(method: string, path: string, body?: unknown, key = ADMIN): Promise<{ status: number; body: TestJson }> {
  const res = await h.app.request(path, { method, headers: { 'content-type': 'application/json', 'x-svc-api-key': key }, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) })
  const text = await res.text()
  bodies.push(text)
  return { status: res.status, body: text ? JSON.parse(text) : null }
}
const W = '/v1/observ/orgs/acme/workspaces/agents'

describe('workspace settings', () => {
  it('capture-text: false by default, PATCH with exactly one boolean field', async () => {
    expect((await req('GET', `${W}/settings/capture-text`)).body).toEqual({ capture_text: false })
    expect((await req('PATCH', `${W}/settings/capture-text`, { capture_text: true })).body).toEqual({ capture_text: true })
    expect((await req('GET', `${W}/settings/capture-text`, undefined, DEV)).body).toEqual({ capture_text: true })
    expect(captureTextOn(h.state, WS)).toBe(true)
    for (const bad of [{}, { capture_text: 'yes' }, { capture_text: true, broaden_sources: true }, 'not json'])
      expect((await req('PATCH', `${W}/settings/capture-text`, bad)).status).toBe(400)
  })

  it('broaden-sources: stays closed-knowledge-base until a search credential exists', async () => {
    expect((await req('GET', `${W}/settings/broaden-sources`)).body).toEqual({ broaden_sources: false, search_credential_configured: false, mode: 'closed_knowledge_base' })
    expect((await req('PATCH', `${W}/settings/broaden-sources`, { broaden_sources: true })).body).toMatchObject({ broaden_sources: true, mode: 'closed_knowledge_base' })
    await req('PUT', '/v1/observ/orgs/acme/search-credentials', { api_key: SECRET_SEARCH })
    expect((await req('GET', `${W}/settings/broaden-sources`)).body).toEqual({ broaden_sources: true, search_credential_configured: true, mode: 'open_web' })
    await req('DELETE', '/v1/observ/orgs/acme/search-credentials')
    expect((await req('GET', `${W}/settings/broaden-sources`)).body.mode).toBe('closed_knowledge_base')
  })

  it('cost-provider: empty by default with the deployment default effective; lower-cased, cut to 64, empty clears', async () => {
    expect((await req('GET', `${W}/settings/cost-provider`)).body).toEqual({ cost_provider: '', effective_provider: 'anthropic' })
    expect((await req('PATCH', `${W}/settings/cost-provider`, { cost_provider: 'Azure-OpenAI' })).body).toEqual({ cost_provider: 'azure-openai', effective_provider: 'azure-openai' })
    const long = 'X'.repeat(100)
    expect((await req('PATCH', `${W}/settings/cost-provider`, { cost_provider: long })).body.cost_provider).toBe('x'.repeat(64))
    expect((await req('PATCH', `${W}/settings/cost-provider`, { cost_provider: '' })).body).toEqual({ cost_provider: '', effective_provider: 'anthropic' })
    expect((await req('PATCH', `${W}/settings/cost-provider`, { cost_provider: 3 })).status).toBe(400)
  })
})

describe('engine settings', () => {
  it('lists every engine, on by default except external_crosscheck; PUT replaces the map', async () => {
    const all = (await req('GET', `${W}/engine-settings`)).body.engines
    expect(all).toEqual({ content_reliability: true, decision_trace: true, decomposition: true, sources: true, alignment: true, correlation: true, savings: true, external_crosscheck: false, fleet_monitor: true })
    const put = await req('PUT', `${W}/engine-settings`, { engines: { savings: false, external_crosscheck: true } })
    expect(put.body.engines).toMatchObject({ savings: false, external_crosscheck: true, decomposition: true })
    const again = await req('PUT', `${W}/engine-settings`, { engines: { decomposition: false } })
    expect(again.body.engines).toMatchObject({ savings: true, external_crosscheck: false, decomposition: false })
    const bad = await req('PUT', `${W}/engine-settings`, { engines: { telepathy: true } })
    expect(bad.status).toBe(400)
    expect(bad.body.detail.accepted).toContain('fleet_monitor')
    expect((await req('PUT', `${W}/engine-settings`, { engines: { savings: 'off' } })).status).toBe(400)
    expect((await req('PUT', `${W}/engine-settings`, {})).status).toBe(400)
  })

  it('an organization gate closes an engine in every workspace whatever the workspace says; reopening hands control back', async () => {
    await req('PUT', `${W}/engine-settings`, { engines: { sources: true } })
    const gate = await req('PATCH', `/v1/orgs/${ORG}`, { engines: { sources: false } })
    expect(gate.status).toBe(200)
    expect(gate.body.engines).toMatchObject({ sources: false, content_reliability: true })
    const view = (await req('GET', `${W}/engine-settings`)).body
    expect(view.engines.sources).toBe(false)
    expect(view.gated_by_organization).toEqual(['sources'])
    expect((await req('PATCH', `/v1/orgs/${ORG}`, { engines: { telepathy: false } })).status).toBe(400)
    // A dev may read settings but not move the organization's gate.
    expect((await req('PATCH', `/v1/orgs/${ORG}`, { engines: { sources: true } }, DEV)).status).toBe(403)
    await req('PATCH', `/v1/orgs/${ORG}`, { engines: { sources: true } })
    const reopened = (await req('GET', `${W}/engine-settings`)).body
    expect(reopened.engines.sources).toBe(true)
    expect(reopened.gated_by_organization).toEqual([])
  })
})

describe('credentials', () => {
  it('LLM: stores the key sealed, shows only its last four, keeps it when omitted, toggles fallback, deletes', async () => {
    expect((await req('GET', '/v1/observ/orgs/acme/llm-credentials', undefined, DEV)).body).toEqual({ configured: false, provider: '', model_id: '', api_key_last4: '', api_base: null, fallback_enabled: false })
    const put = await req('PUT', '/v1/observ/orgs/acme/llm-credentials', { provider: 'OpenAI', model_id: 'gpt-4o-mini', api_key: SECRET_LLM, api_base: 'https://gateway.example/v1' }, DEV)
    expect(put.status).toBe(200)
    expect(put.body).toEqual({ configured: true, provider: 'openai', model_id: 'gpt-4o-mini', api_key_last4: '7q9z', api_base: 'https://gateway.example/v1', fallback_enabled: false })
    const sealed = h.state.credentialsOf(ORG).llm!.secret!
    expect(openSecret(h.masterKey, sealed, llmContext(ORG))).toBe(SECRET_LLM)

    // Kept for the same provider and api_base (credentials.test.ts: a change of either needs the key again).
    const kept = await req('PUT', '/v1/observ/orgs/acme/llm-credentials', { provider: 'openai', model_id: 'gpt-4o', api_base: 'https://gateway.example/v1' }, DEV)
    expect(kept.body).toMatchObject({ model_id: 'gpt-4o', api_key_last4: '7q9z', api_base: 'https://gateway.example/v1' })
    expect(h.state.credentialsOf(ORG).llm!.secret).toEqual(sealed)

    expect((await req('PATCH', '/v1/observ/orgs/acme/llm-credentials/fallback', { enabled: true }, DEV)).body.fallback_enabled).toBe(true)
    expect((await req('PATCH', '/v1/observ/orgs/acme/llm-credentials/fallback', {}, DEV)).status).toBe(400)
    expect((await req('PUT', '/v1/observ/orgs/acme/llm-credentials', { provider: 'openai' }, DEV)).status).toBe(400)
    expect((await req('DELETE', '/v1/observ/orgs/acme/llm-credentials', undefined, DEV)).status).toBe(204)
    expect((await req('GET', '/v1/observ/orgs/acme/llm-credentials', undefined, DEV)).body).toMatchObject({ configured: false, api_key_last4: '' })
  })

  it('search: write-only key, status readable, deletable', async () => {
    expect((await req('PUT', '/v1/observ/orgs/acme/search-credentials', { api_key: SECRET_SEARCH }, DEV)).body).toEqual({ configured: true, status: 'configured', api_key_last4: 'k3x8' })
    expect((await req('GET', '/v1/observ/orgs/acme/search-credentials', undefined, DEV)).body).toEqual({ configured: true, status: 'configured', api_key_last4: 'k3x8' })
    expect((await req('PUT', '/v1/observ/orgs/acme/search-credentials', {}, DEV)).status).toBe(400)
    expect((await req('DELETE', '/v1/observ/orgs/acme/search-credentials', undefined, DEV)).status).toBe(204)
    expect((await req('GET', '/v1/observ/orgs/acme/search-credentials', undefined, DEV)).body.configured).toBe(false)
  })

  it('never shows a secret: not in any response body, not in any log line, not in the control state in clear', async () => {
    for (const secret of [SECRET_LLM, SECRET_SEARCH]) {
      expect(bodies.join('\n')).not.toContain(secret)
      expect(logLines.join('\n')).not.toContain(secret)
      expect(JSON.stringify([...h.state.credentials.values()])).not.toContain(secret)
    }
    expect(logLines.length).toBeGreaterThan(0)
  })
})
