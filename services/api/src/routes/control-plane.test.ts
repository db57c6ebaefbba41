/**
 * The control-plane routes over the real app: workspaces, members and ownership,
 * API keys, the organization. State changes go through a folding writer (the
 * ControlPlane's fold without a bus; the e2e suite runs the same routes on both buses).
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMemoryCache } from '@svc/shared/cache/memory'
import { loadConfig } from '@svc/shared/config'
import { foldingWriter } from '@svc/shared/control/control-plane'
import { passwordHasher } from '@svc/shared/control/passwords'
import { masterKeyFrom } from '@svc/shared/control/envelope'
import type { ControlEvent } from '@svc/shared/control/events'
import { hashApiKey, stableUuid } from '@svc/shared/control/secrets'
import { ControlState } from '@svc/shared/control/state'
import { issueAccessToken } from '@svc/shared/control/tokens'
import { createLogger } from '@svc/shared/log'
import { createStore } from '@svc/shared/store/index'
import { migrate } from '@svc/shared/store/migrate'
import type { Store } from '@svc/shared/store/types'
import { createApiApp } from '../app.js'
import { TEST_SCRYPT } from '../test-support/harness.js'
import type { TestJson } from '@svc/shared/test-support/json'

const SECRET = 'test-secret'
const ORG = stableUuid('org:acme')
const WS = stableUuid('ws:agents')
const OWNER = stableUuid('user:olga')
const ADMIN = stableUuid('user:adam')
const ADMIN_KEY = `dr_${'a'.repeat(40)}`

let n = 0
const ev = (type: ControlEvent['type'], payload: unknown) => ({ type, payload, actor: 'test', at_ms: 1, event_id: String(n++) }) as ControlEvent
const state = new ControlState()
let store: Store
let app: ReturnType<typeof createApiApp>
const tokens: Record<string, string> = {}

beforeAll(async () => {
  state.apply(ev('org.created', { org_id: ORG, slug: 'acme', name: 'Acme' }))
  state.apply(ev('workspace.created', { workspace_id: WS, org_id: ORG, slug: 'agents', name: 'Agents' }))
  for (const [id, email, role] of [[OWNER, 'olga@acme.test', 'owner'], [ADMIN, 'adam@acme.test', 'admin']] as const) {
    state.apply(ev('user.created', { user_id: id, email, password_hash: null }))
    state.apply(ev('member.role_set', { org_id: ORG, user_id: id, role, workspace_id: null }))
    tokens[id] = await issueAccessToken(SECRET, { id, email }, 600)
  }
  state.apply({ ...ev('api_key.created', { key_id: 'k-admin', org_id: ORG, workspace_id: WS, project_id: 'p', role: 'admin', name: 'ci', key_hash: hashApiKey(ADMIN_KEY), key_last4: 'aaaa' }), actor: `user:${ADMIN}` })
  const log = createLogger({ level: 'silent' })
  store = await createStore(loadConfig({ SVC_DATA_DIR: mkdtempSync(join(tmpdir(), 'api-cp-')) }), log)
  await migrate(store, log)
  app = createApiApp({ store, cache: createMemoryCache(), control: foldingWriter(state), jwtSecret: SECRET, jwtTtlSeconds: 600, defaultRetentionHours: 720, defaultCostProvider: 'openai', driftBaselineDays: 7, engineStallMs: 15 * 60_000, masterKey: masterKeyFrom(randomBytes(32)), passwords: passwordHasher(TEST_SCRYPT), log })
}, 60_000)
afterAll(() => store?.close())

type Json = Record<string, TestJson>
const as = (who: string): Record<string, string> => (who.startsWith('dr_') ? { 'x-svc-api-key': who } : { authorization: `Bearer ${tokens[who] ?? who}` })
async function req(method: string, path: string, who: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const res = await app.request(path, { method, headers: { 'content-type': 'application/json', ...as(who) }, body: body === undefined ? undefined : JSON.stringify(body) })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : {} }
}

describe('workspaces', () => {
  it('creates by organization id, deriving the slug from the name, and refuses a taken slug with 409', async () => {
    const made = await req('POST', `/v1/orgs/${ORG}/workspaces`, ADMIN, { name: 'Support Bot (EU)' })
    expect(made.status).toBe(201)
    expect(made.body).toMatchObject({ org_id: ORG, slug: 'support-bot-eu', name: 'Support Bot (EU)' })
    expect(made.body.id).toMatch(/^[0-9a-f-]{36}$/)
    expect((await req('POST', `/v1/orgs/${ORG}/workspaces`, ADMIN, { name: 'other name', slug: 'support-bot-eu' })).status).toBe(409)
    expect((await req('POST', `/v1/orgs/${ORG}/workspaces`, ADMIN, { name: '!!!' })).status).toBe(400)
    expect((await req('POST', `/v1/orgs/${ORG}/workspaces`, ADMIN, { name: 'x', slug: 'Not A Slug' })).status).toBe(400)
  })

  it('creates by organization slug with a required slug, with any credential type', async () => {
    expect((await req('POST', '/v1/observ/orgs/acme/workspaces', ADMIN_KEY, { name: 'No slug' })).status).toBe(400)
    const made = await req('POST', '/v1/observ/orgs/acme/workspaces', ADMIN_KEY, { name: 'Research', slug: 'research' })
    expect(made.status).toBe(201)
    expect(made.body.slug).toBe('research')
  })

  it('gives exactly one 201 to concurrent creations of one slug', async () => {
    const results = await Promise.all(Array.from({ length: 5 }, () => req('POST', `/v1/orgs/${ORG}/workspaces`, ADMIN, { name: 'Racy', slug: 'racy' })))
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409])
  })

  it('lists, gets, renames and re-slugs; the old slug then answers 404', async () => {
    const made = (await req('POST', `/v1/orgs/${ORG}/workspaces`, ADMIN, { name: 'Old', slug: 'old-slug' })).body
    expect((await req('GET', `/v1/orgs/${ORG}/workspaces`, ADMIN)).body.map((w: Json) => w.slug)).toContain('old-slug')
    expect((await req('GET', `/v1/workspaces/${made.id}`, ADMIN)).body).toMatchObject({ id: made.id, slug: 'old-slug', name: 'Old' })
    expect((await req('GET', '/v1/observ/orgs/acme/workspaces/old-slug/traces', ADMIN)).status).toBe(200)
    const patched = await req('PATCH', `/v1/workspaces/${made.id}`, ADMIN, { name: 'New', slug: 'new-slug' })
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({ id: made.id, slug: 'new-slug', name: 'New' })
    expect((await req('GET', '/v1/observ/orgs/acme/workspaces/old-slug/traces', ADMIN)).status).toBe(404)
    expect((await req('GET', '/v1/observ/orgs/acme/workspaces/new-slug/traces', ADMIN)).status).toBe(200)
    expect((await req('PATCH', `/v1/workspaces/${made.id}`, ADMIN, { slug: 'agents' })).status).toBe(409)
    expect((await req('PATCH', `/v1/workspaces/${made.id}`, ADMIN, { slug: null, name: null })).body.slug).toBe('new-slug')
  })

  it('soft-deletes: gone from the list and from reads, its keys stop at once, the slug is free again', async () => {
    const made = (await req('POST', '/v1/observ/orgs/acme/workspaces', ADMIN, { name: 'Doomed', slug: 'doomed' })).body
    const key = (await req('POST', '/v1/observ/orgs/acme/workspaces/doomed/api-keys', ADMIN, { name: 'k' })).body.key as string
    expect((await req('GET', '/v1/observ/orgs/acme/workspaces/doomed/traces', key)).status).toBe(200)
    expect((await req('DELETE', `/v1/workspaces/${made.id}`, ADMIN)).status).toBe(204)
    expect((await req('GET', '/v1/observ/orgs/acme/workspaces/doomed/traces', key)).status).toBe(401)
    expect((await req('GET', `/v1/workspaces/${made.id}`, ADMIN)).status).toBe(404)
    expect((await req('DELETE', `/v1/workspaces/${made.id}`, ADMIN)).status).toBe(404)
    expect((await req('GET', `/v1/orgs/${ORG}/workspaces`, ADMIN)).body.map((w: Json) => w.id)).not.toContain(made.id)
    expect((await req('POST', '/v1/observ/orgs/acme/workspaces', ADMIN, { name: 'Reborn', slug: 'doomed' })).status).toBe(201)
  })
})

describe('API keys', () => {
  it('shows the key once, lists it without it, records its last use, and revokes it at once', async () => {
    const made = await req('POST', '/v1/observ/orgs/acme/workspaces/agents/api-keys', ADMIN, { name: 'exporter', project_id: 'checkout' })
    expect(made.status).toBe(201)
    expect(made.body).toMatchObject({ name: 'exporter', project_id: 'checkout', role: 'dev', last_used_at: null })
    expect(made.body.key).toMatch(/^dr_/)
    expect(made.body.key_last4).toBe(made.body.key.slice(-4))
    const key = made.body.key as string
    const listed = () => req('GET', '/v1/observ/orgs/acme/workspaces/agents/api-keys', ADMIN).then((r) => r.body.keys.find((k: Json) => k.id === made.body.id))
    expect(await listed()).toMatchObject({ key_last4: made.body.key_last4, last_used_at: null })
    expect(JSON.stringify((await req('GET', '/v1/observ/orgs/acme/workspaces/agents/api-keys', ADMIN)).body)).not.toContain(key)

    expect((await req('GET', '/v1/observ/orgs/acme/workspaces/agents/traces', key)).status).toBe(200)
    await new Promise((r) => setTimeout(r, 10))
    expect(Date.parse((await listed()).last_used_at)).toBeGreaterThan(Date.now() - 60_000)

    expect((await req('DELETE', `/v1/observ/orgs/acme/workspaces/agents/api-keys/${made.body.id}`, ADMIN)).status).toBe(204)
    expect((await req('GET', '/v1/observ/orgs/acme/workspaces/agents/traces', key)).status).toBe(401)
    expect(await listed()).toBeUndefined()
    expect((await req('DELETE', `/v1/observ/orgs/acme/workspaces/agents/api-keys/${made.body.id}`, ADMIN)).status).toBe(404)
  })

  it('validates the body and keeps key roles at or below the creator and below owner', async () => {
    expect((await req('POST', '/v1/observ/orgs/acme/workspaces/agents/api-keys', ADMIN, { name: 'x', role: 'owner' })).status).toBe(400)
    expect((await req('POST', '/v1/observ/orgs/acme/workspaces/agents/api-keys', ADMIN, {})).status).toBe(400)
    expect((await req('POST', '/v1/observ/orgs/acme/workspaces/agents/api-keys', ADMIN_KEY, { name: 'admin by key', role: 'admin' })).status).toBe(201)
  })

  it('does not revoke a key of another workspace through this workspace', async () => {
    await req('POST', '/v1/observ/orgs/acme/workspaces', ADMIN, { name: 'Side', slug: 'side' })
    const side = (await req('POST', '/v1/observ/orgs/acme/workspaces/side/api-keys', ADMIN, { name: 's' })).body
    expect((await req('DELETE', `/v1/observ/orgs/acme/workspaces/agents/api-keys/${side.id}`, ADMIN)).status).toBe(404)
    expect((await req('GET', '/v1/observ/orgs/acme/workspaces/side/traces', side.key)).status).toBe(200)
  })
})

describe('organization and members', () => {
  it('reads and patches the organization; null clears a field, omitted fields stay', async () => {
    expect((await req('GET', `/v1/orgs/${ORG}`, ADMIN)).body).toMatchObject({ id: ORG, slug: 'acme', name: 'Acme', contact_email: null, team_count: null })
    const p1 = await req('PATCH', `/v1/orgs/${ORG}`, ADMIN, { contact_email: 'billing@acme.test', team_count: '11-50' })
    expect(p1.body).toMatchObject({ name: 'Acme', contact_email: 'billing@acme.test', team_count: '11-50' })
    const p2 = await req('PATCH', `/v1/orgs/${ORG}`, ADMIN, { name: 'Acme Corp', team_count: null })
    expect(p2.body).toMatchObject({ name: 'Acme Corp', contact_email: 'billing@acme.test', team_count: null })
    expect((await req('PATCH', `/v1/orgs/${ORG}`, ADMIN, { contact_email: 'not an address' })).status).toBe(400)
  })

  it('invites a member who redeems the invitation and can then log in, scopes a role to one workspace, and removes the member', async () => {
    const added = await req('POST', `/v1/orgs/${ORG}/members`, ADMIN, { email: 'Vera@Acme.test', role: 'viewer' })
    expect(added.status).toBe(201)
    expect(added.body).toMatchObject({ email: 'vera@acme.test', role: 'viewer', workspace_id: null, status: 'invited' })
    const redeem = await app.request('/v1/auth/invitations/accept', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: added.body.invitation_token, password: 'correct horse battery' }) })
    expect(redeem.status).toBe(200)
    const login = await app.request('/v1/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'vera@acme.test', password: 'correct horse battery' }) })
    expect(login.status).toBe(200)
    const vera = ((await login.json()) as Json).access_token as string
    expect((await req('GET', `/v1/orgs/${ORG}/workspaces`, vera)).status).toBe(403) // viewer < dev

    const scoped = await req('PATCH', `/v1/orgs/${ORG}/members/${added.body.user_id}`, ADMIN, { new_role: 'admin', target_workspace_id: WS })
    expect(scoped.body).toMatchObject({ role: 'viewer', workspace_roles: [{ workspace_id: WS, slug: 'agents', role: 'admin' }] })
    expect((await req('GET', '/v1/observ/orgs/acme/workspaces/agents/api-keys', vera)).status).toBe(200)
    expect((await req('GET', `/v1/orgs/${ORG}/members`, ADMIN)).body.members.map((m: Json) => m.email)).toContain('vera@acme.test')

    expect((await req('DELETE', `/v1/orgs/${ORG}/members/${added.body.user_id}`, ADMIN)).status).toBe(204)
    expect((await req('GET', '/v1/observ/orgs/acme/workspaces/agents/traces', vera)).status).toBe(403)
    expect((await req('DELETE', `/v1/orgs/${ORG}/members/${added.body.user_id}`, ADMIN)).status).toBe(404)
  })

  it('grants no role above the granter, and a key grants only in its own workspace', async () => {
    expect((await req('POST', `/v1/orgs/${ORG}/members`, ADMIN, { email: 'eve@acme.test', role: 'owner' })).status).toBe(403)
    expect((await req('POST', `/v1/orgs/${ORG}/members`, ADMIN_KEY, { email: 'eve@acme.test', role: 'dev' })).status).toBe(403)
    const byKey = await req('POST', `/v1/orgs/${ORG}/members`, ADMIN_KEY, { email: 'eve@acme.test', role: 'dev', workspace_id: WS })
    expect(byKey.status).toBe(201)
    expect((await req('PATCH', `/v1/orgs/${ORG}/members/${OWNER}`, ADMIN, { new_role: 'viewer' })).status).toBe(403)
  })

  it('keeps an owner; promoting to owner demotes nobody; transfer makes the caller admin and only the new owner can transfer back', async () => {
    expect((await req('PATCH', `/v1/orgs/${ORG}/members/${OWNER}`, OWNER, { new_role: 'admin' })).status).toBe(409)
    expect((await req('DELETE', `/v1/orgs/${ORG}/members/${OWNER}`, OWNER)).status).toBe(409)

    expect((await req('POST', `/v1/orgs/${ORG}/transfer-ownership`, ADMIN, { to_user_id: ADMIN })).status).toBe(403)
    const moved = await req('POST', `/v1/orgs/${ORG}/transfer-ownership`, OWNER, { to_user_id: ADMIN })
    expect(moved.status).toBe(200)
    const roles = async () => Object.fromEntries((await req('GET', `/v1/orgs/${ORG}/members`, ADMIN)).body.members.map((m: Json) => [m.user_id, m.role]))
    expect(await roles()).toMatchObject({ [ADMIN]: 'owner', [OWNER]: 'admin' })
    expect((await req('POST', `/v1/orgs/${ORG}/transfer-ownership`, OWNER, { to_user_id: OWNER })).status).toBe(403)
    expect((await req('POST', `/v1/orgs/${ORG}/transfer-ownership`, ADMIN, { to_user_id: stableUuid('nobody') })).status).toBe(404)
    expect((await req('POST', `/v1/orgs/${ORG}/transfer-ownership`, ADMIN, { to_user_id: OWNER })).status).toBe(200)

    // Promotion adds an owner without demoting anyone; then either may step down.
    expect((await req('PATCH', `/v1/orgs/${ORG}/members/${ADMIN}`, OWNER, { new_role: 'owner' })).status).toBe(200)
    expect(await roles()).toMatchObject({ [ADMIN]: 'owner', [OWNER]: 'owner' })
    expect((await req('PATCH', `/v1/orgs/${ORG}/members/${ADMIN}`, ADMIN, { new_role: 'admin' })).status).toBe(200)
    expect(await roles()).toMatchObject({ [ADMIN]: 'admin', [OWNER]: 'owner' })
  })
})
