/**
 * An API key never carries more authority than its creator holds now, in scope as
 * in role (issue 13, item 3), over the real app.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Role } from '@svc/shared/control/events'
import { stableUuid } from '@svc/shared/control/secrets'
import { issueAccessToken } from '@svc/shared/control/tokens'
import { apiHarness, eventMaker, ORG, OWNER, WS, type Harness } from '../test-support/harness.js'

const W = '/v1/observ/orgs/acme/workspaces/agents'
let h: Harness
const tokens: Record<string, string> = {}
const idOf = (name: string) => stableUuid(`user:${name}`)

beforeAll(async () => {
  h = await apiHarness({ keys: {} })
  const ev = eventMaker()
  const add = async (name: string, role: Role, workspace: string | null) => {
    h.state.apply(ev('user.created', { user_id: idOf(name), email: `${name}@acme.test`, password_hash: null }))
    h.state.apply(ev('member.role_set', { org_id: ORG, user_id: idOf(name), role, workspace_id: workspace }))
    tokens[name] = await issueAccessToken('test-secret', { id: idOf(name), email: `${name}@acme.test` }, 600)
  }
  await add('scoped-admin', 'admin', WS)
  await add('org-admin', 'admin', null)
  await add('leaver', 'admin', null)
  await add('demoted', 'admin', null)
  tokens.owner = await issueAccessToken('test-secret', { id: OWNER, email: 'owner@acme.test' }, 600)
}, 60_000)
afterAll(() => h.close())

type Json = Record<string, unknown>
async function call(method: string, path: string, cred: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const headers: Record<string, string> = cred.startsWith('dr_') ? { 'x-svc-api-key': cred } : { authorization: `Bearer ${tokens[cred]}` }
  const res = await h.app.request(path, { method, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) })
  const text = await res.text()
  return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} }
}
const mintKey = async (by: string, role: Role) => {
  const made = await call('POST', `${W}/api-keys`, by, { name: `${by}'s key`, role })
  expect(made.status).toBe(201)
  return made.body.key as string
}

describe('a key made by a workspace-scoped admin', () => {
  it('gets 403 on every organization route its creator gets 403 on, and works in its workspace', async () => {
    const key = await mintKey('scoped-admin', 'admin')
    const orgCalls: Array<[string, string, unknown?]> = [
      ['GET', `/v1/orgs/${ORG}/members`],
      ['PATCH', `/v1/orgs/${ORG}`, { name: 'Pwned' }],
      ['GET', '/v1/observ/orgs/acme/llm-credentials'],
      ['PUT', '/v1/observ/orgs/acme/search-credentials', { api_key: 'sk-attacker-0000' }],
      ['DELETE', `/v1/orgs/${ORG}/members/${idOf('org-admin')}`],
      ['POST', `/v1/orgs/${ORG}/workspaces`, { name: 'Mine' }],
    ]
    for (const [method, path, body] of orgCalls) {
      expect((await call(method, path, 'scoped-admin', body)).status, `${method} ${path} as the user`).toBe(403)
      expect((await call(method, path, key, body)).status, `${method} ${path} as the key`).toBe(403)
    }
    expect(h.state.orgs.get(ORG)!.name).toBe('Acme')
    expect((await call('GET', `${W}/traces`, key)).status).toBe(200)
    expect((await call('PATCH', `${W}/settings/capture-text`, key, { capture_text: false })).status).toBe(200)
  })
})

describe('a key made by an organization-wide admin', () => {
  it('acts on organization routes, as the API document lets any credential', async () => {
    const key = await mintKey('org-admin', 'admin')
    expect((await call('GET', `/v1/orgs/${ORG}/members`, key)).status).toBe(200)
    expect((await call('GET', '/v1/observ/orgs/acme/llm-credentials', key)).status).toBe(200)
  })
})

describe('when the creator changes', () => {
  it('stops working (401) once its creator is removed from the organization', async () => {
    const key = await mintKey('leaver', 'dev')
    expect((await call('GET', `${W}/traces`, key)).status).toBe(200)
    expect((await call('DELETE', `/v1/orgs/${ORG}/members/${idOf('leaver')}`, 'owner')).status).toBe(204)
    expect((await call('GET', `${W}/traces`, key)).status).toBe(401)
    expect((await call('GET', '/v1/auth/me', key)).status).toBe(401)
  })

  it("is capped at once by its creator's demotion, also for the keys it mints", async () => {
    const key = await mintKey('demoted', 'admin')
    expect((await call('PATCH', `/v1/orgs/${ORG}/members/${idOf('demoted')}`, 'owner', { new_role: 'viewer' })).status).toBe(200)
    expect((await call('GET', `${W}/traces`, key)).status).toBe(200)
    expect((await call('PATCH', `${W}/settings/capture-text`, key, { capture_text: true })).status).toBe(403)
    expect((await call('POST', `${W}/api-keys`, key, { name: 'escape', role: 'admin' })).status).toBe(403)
    const me = (await call('GET', '/v1/auth/me', key)).body as { memberships: Array<{ role: string | null; workspaces: Array<{ role: string }> }> }
    expect(me.memberships[0]!.workspaces[0]!.role).toBe('viewer')
    expect(me.memberships[0]!.role).toBe('viewer')
  })
})
