/**
 * Adding a member is an invitation redeemed by the invited person (issue 13, item 2):
 * no organization's admin can set the password of, or otherwise obtain, an account
 * another organization relies on. Over the real app.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import type { NewControlEvent } from '@svc/shared/control/control-plane'
import { hashPassword, stableUuid } from '@svc/shared/control/secrets'
import { issueAccessToken } from '@svc/shared/control/tokens'
import { apiHarness, eventMaker, ORG, OWNER, TEST_SCRYPT, WS, type Harness } from '../test-support/harness.js'

const B_ORG = stableUuid('org:globex')
const B_ADMIN = stableUuid('user:globex-admin')
let h: Harness
const ev = eventMaker()
const jwt: Record<string, string> = {}

beforeAll(async () => {
  h = await apiHarness({ keys: {} })
  h.state.apply(ev('org.created', { org_id: B_ORG, slug: 'globex', name: 'Globex' }))
  h.state.apply(ev('user.created', { user_id: B_ADMIN, email: 'admin@globex.test', password_hash: await hashPassword('globex admin pw', TEST_SCRYPT) }))
  h.state.apply(ev('member.role_set', { org_id: B_ORG, user_id: B_ADMIN, role: 'admin', workspace_id: null }))
  jwt.a = await issueAccessToken('test-secret', { id: OWNER, email: 'owner@acme.test' }, 600)
  jwt.b = await issueAccessToken('test-secret', { id: B_ADMIN, email: 'admin@globex.test' }, 600)
}, 60_000)
afterAll(() => h.close())
afterEach(() => vi.useRealTimers())

type Json = Record<string, unknown>
async function call(method: string, path: string, token: string | null, body?: unknown): Promise<{ status: number; body: Json }> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }
  const res = await h.app.request(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  const text = await res.text()
  return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} }
}
const invite = (org: string, as: string, body: Json) => call('POST', `/v1/orgs/${org}/members`, as, body)
const accept = (body: Json, token: string | null = null) => call('POST', '/v1/auth/invitations/accept', token, body)
const login = async (email: string, password: string) => {
  const r = await call('POST', '/v1/auth/login', null, { email, password })
  return r.status === 200 ? (r.body.access_token as string) : null
}
const memberStatus = async (email: string) =>
  ((await call('GET', `/v1/orgs/${ORG}/members`, jwt.a!)).body.members as Array<{ email: string; status: string }>).find((m) => m.email === email)?.status

describe('the pre-hijacking attack', () => {
  it("B's admin plants a password on an address A later adds as admin: B's admin never gets into A", async () => {
    // B's admin can no longer choose the password of the account it adds...
    const planted = await invite(B_ORG, jwt.b!, { email: 'victim@a.test', role: 'viewer', password: 'planted password' })
    expect(planted.status).toBe(422)
    // ...but can redeem its own invitation of a new address, choosing the password then.
    const inB = await invite(B_ORG, jwt.b!, { email: 'victim@a.test', role: 'viewer' })
    expect(inB.status).toBe(201)
    expect(inB.body).toMatchObject({ email: 'victim@a.test', role: 'viewer', status: 'invited', existing_user: false })
    expect((await accept({ token: inB.body.invitation_token, password: 'planted password' })).status).toBe(200)

    // A adds the same address as admin: the existing account keeps its credentials, the membership waits.
    const inA = await invite(ORG, jwt.a!, { email: 'Victim@A.test', role: 'admin' })
    expect(inA.status).toBe(201)
    expect(inA.body).toMatchObject({ user_id: inB.body.user_id, email: 'victim@a.test', status: 'invited', existing_user: true })
    expect(inA.body.invitation_token).toEqual(expect.any(String))

    const asVictim = await login('victim@a.test', 'planted password')
    expect(asVictim).not.toBeNull()
    for (const [method, path] of [['GET', `/v1/orgs/${ORG}`], ['GET', `/v1/orgs/${ORG}/members`], ['GET', '/v1/observ/orgs/acme/workspaces/agents/traces'], ['GET', '/v1/observ/orgs/acme/llm-credentials']] as const)
      expect((await call(method, path, asVictim)).status, path).toBe(403)
    expect(((await call('GET', '/v1/auth/me', asVictim)).body.memberships as Array<{ org_id: string }>).map((m) => m.org_id)).toEqual([B_ORG])
    // B's own token is spent; A's token went to the real person, who cannot redeem it
    // without logging in to the account (and choosing a password there is refused).
    expect((await accept({ token: inB.body.invitation_token }, asVictim)).status).toBe(404)
    expect((await accept({ token: inA.body.invitation_token, password: 'my own password' })).status).toBe(422)
    expect((await accept({ token: inA.body.invitation_token })).status).toBe(401)
    expect(await memberStatus('victim@a.test')).toBe('invited')
    expect((await call('GET', `/v1/orgs/${ORG}`, asVictim)).status).toBe(403)
  })

  it('an account A relies on is never given a password by B, and B cannot redeem for it', async () => {
    const inA = await invite(ORG, jwt.a!, { email: 'alice@a.test', role: 'dev' })
    expect((await accept({ token: inA.body.invitation_token, password: 'alice own password' })).status).toBe(200)
    const alice = await login('alice@a.test', 'alice own password')
    expect((await call('GET', `/v1/orgs/${ORG}`, alice)).status).toBe(200)

    const inB = await invite(B_ORG, jwt.b!, { email: 'alice@a.test', role: 'admin' })
    expect(inB.body).toMatchObject({ existing_user: true, status: 'invited' })
    expect((await accept({ token: inB.body.invitation_token, password: 'taken over' })).status).toBe(422)
    expect((await accept({ token: inB.body.invitation_token })).status).toBe(401)
    expect((await accept({ token: inB.body.invitation_token }, jwt.b!)).status).toBe(403)
    expect(await login('alice@a.test', 'taken over')).toBeNull()
    expect(await login('alice@a.test', 'alice own password')).not.toBeNull()

    // Alice herself, logged in, joins B; her password stays.
    const joined = await accept({ token: inB.body.invitation_token }, alice)
    expect(joined.status).toBe(200)
    expect(joined.body).toMatchObject({ org_id: B_ORG, email: 'alice@a.test', role: 'admin', password_set: false })
    expect((await call('GET', `/v1/orgs/${B_ORG}`, alice)).status).toBe(200)
  })

  it('a password-less account that holds roles in A (added before invitations) gets no password through B', async () => {
    const legacy = stableUuid('user:legacy')
    h.state.apply(ev('user.created', { user_id: legacy, email: 'legacy@a.test', password_hash: null }))
    h.state.apply(ev('member.role_set', { org_id: ORG, user_id: legacy, role: 'admin', workspace_id: null }))
    const inB = await invite(B_ORG, jwt.b!, { email: 'legacy@a.test', role: 'viewer' })
    expect(inB.status).toBe(201)
    expect((await accept({ token: inB.body.invitation_token, password: 'planted password' })).status).toBe(409)
    expect(await login('legacy@a.test', 'planted password')).toBeNull()
    // A itself can let the person choose one.
    const inA = await invite(ORG, jwt.a!, { email: 'legacy@a.test', role: 'admin' })
    expect(inA.status).toBe(201)
    expect((await accept({ token: inA.body.invitation_token, password: 'legacy own password' })).status).toBe(200)
    expect(await login('legacy@a.test', 'legacy own password')).not.toBeNull()
  })
})

describe('invitations', () => {
  it('a new member chooses a password when redeeming, then logs in with the invited role; the token works once', async () => {
    const made = await invite(ORG, jwt.a!, { email: 'Nia@Acme.test', role: 'viewer', workspace_id: WS })
    expect(made.status).toBe(201)
    expect(made.body).toMatchObject({ email: 'nia@acme.test', role: 'viewer', workspace_id: WS, status: 'invited', existing_user: false })
    expect(Date.parse(made.body.invitation_expires_at as string) - Date.now()).toBeGreaterThan(6.9 * 24 * 3600_000)
    expect(await memberStatus('nia@acme.test')).toBe('invited')
    expect(await login('nia@acme.test', 'nia password')).toBeNull()
    expect((await accept({ token: made.body.invitation_token })).status).toBe(422) // a new account needs a password
    expect((await accept({ token: made.body.invitation_token, password: 'short' })).status).toBe(400)

    const ok = await accept({ token: made.body.invitation_token, password: 'nia password' })
    expect(ok.status).toBe(200)
    expect(ok.body).toMatchObject({ org_id: ORG, user_id: made.body.user_id, email: 'nia@acme.test', role: 'viewer', workspace_id: WS, password_set: true })
    expect(await memberStatus('nia@acme.test')).toBe('active')
    const nia = await login('nia@acme.test', 'nia password')
    expect((await call('GET', '/v1/observ/orgs/acme/workspaces/agents/traces', nia)).status).toBe(200)
    expect((await accept({ token: made.body.invitation_token, password: 'second try' })).status).toBe(404)
    expect((await accept({ token: 'inv_unknown' })).status).toBe(404)
  })

  it('refuses a password from the admin (422), and an address that is already an active member (409)', async () => {
    const r = await invite(ORG, jwt.a!, { email: 'pw@acme.test', role: 'viewer', password: 'chosen by admin' })
    expect(r.status).toBe(422)
    expect(r.body.message).toMatch(/password/)
    expect((await invite(ORG, jwt.a!, { email: 'alice@a.test', role: 'viewer' })).status).toBe(409)
  })

  it('expires after 7 days (410), and a new invitation replaces the pending one', async () => {
    const first = await invite(ORG, jwt.a!, { email: 'slow@acme.test', role: 'dev' })
    const second = await invite(ORG, jwt.a!, { email: 'slow@acme.test', role: 'dev' })
    expect((await accept({ token: first.body.invitation_token, password: 'slow password' })).status).toBe(404)
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 7 * 24 * 3600_000 + 60_000 })
    expect((await accept({ token: second.body.invitation_token, password: 'slow password' })).status).toBe(410)
    vi.useRealTimers()
    expect(await memberStatus('slow@acme.test')).toBe('invited')
    const third = await invite(ORG, jwt.a!, { email: 'slow@acme.test', role: 'dev' })
    expect((await accept({ token: third.body.invitation_token, password: 'slow password' })).status).toBe(200)
  })

  it('removing an invited member cancels the invitation; changing or handing ownership to one is 404 until redeemed', async () => {
    const made = await invite(ORG, jwt.a!, { email: 'maybe@acme.test', role: 'dev' })
    const id = made.body.user_id as string
    expect((await call('PATCH', `/v1/orgs/${ORG}/members/${id}`, jwt.a!, { new_role: 'admin' })).status).toBe(404)
    expect((await call('POST', `/v1/orgs/${ORG}/transfer-ownership`, jwt.a!, { to_user_id: id })).status).toBe(404)
    expect((await call('DELETE', `/v1/orgs/${ORG}/members/${id}`, jwt.a!)).status).toBe(204)
    expect(await memberStatus('maybe@acme.test')).toBeUndefined()
    expect((await accept({ token: made.body.invitation_token, password: 'maybe password' })).status).toBe(404)
  })

  it('cannot be redeemed once the inviter lost the role it offers (a removed admin keeps no way back in)', async () => {
    const temp = stableUuid('user:temp-admin')
    h.state.apply(ev('user.created', { user_id: temp, email: 'temp@acme.test', password_hash: null }))
    h.state.apply(ev('member.role_set', { org_id: ORG, user_id: temp, role: 'admin', workspace_id: null }))
    const asTemp = await issueAccessToken('test-secret', { id: temp, email: 'temp@acme.test' }, 600)
    const alt = await invite(ORG, asTemp, { email: 'alt@elsewhere.test', role: 'admin' })
    expect(alt.status).toBe(201)
    expect((await call('DELETE', `/v1/orgs/${ORG}/members/${temp}`, jwt.a!)).status).toBe(204)
    const r = await accept({ token: alt.body.invitation_token, password: 'alt password' })
    expect(r.status).toBe(409)
    expect(await login('alt@elsewhere.test', 'alt password')).toBeNull()
    expect(await memberStatus('alt@elsewhere.test')).toBe('invited')
  })

  it('answers 409 when another replica invited the same new address at the same moment', async () => {
    let racer: NewControlEvent[] | null = [{ type: 'user.created', payload: { user_id: stableUuid('user:racer'), email: 'race@acme.test', password_hash: null } }]
    const racy = await apiHarness({
      keys: {},
      store: h.store,
      wrapWriter: (w) => ({
        state: w.state,
        async append(events, actor) {
          const r = racer
          racer = null
          if (r) await w.append(r, 'another-replica')
          await w.append(events, actor)
        },
      }),
    })
    const owner = { authorization: `Bearer ${jwt.a}`, 'content-type': 'application/json' }
    const res = await racy.app.request(`/v1/orgs/${ORG}/members`, { method: 'POST', headers: owner, body: JSON.stringify({ email: 'race@acme.test', role: 'viewer' }) })
    expect(res.status).toBe(409)
    const again = await racy.app.request(`/v1/orgs/${ORG}/members`, { method: 'POST', headers: owner, body: JSON.stringify({ email: 'race@acme.test', role: 'viewer' }) })
    expect(again.status).toBe(201)
    expect(await again.json()).toMatchObject({ user_id: stableUuid('user:racer'), existing_user: true })
  })

  it("answers 403 to another user's access token, and 401 to an API key or a bad token", async () => {
    const made = await invite(ORG, jwt.a!, { email: 'wrong@acme.test', role: 'dev' })
    expect((await accept({ token: made.body.invitation_token, password: 'wrong password' }, jwt.b!)).status).toBe(403)
    expect((await accept({ token: made.body.invitation_token, password: 'wrong password' }, 'not.a.jwt')).status).toBe(401)
    expect((await accept({ token: made.body.invitation_token, password: 'wrong password' }, `dr_${'z'.repeat(40)}`)).status).toBe(401)
    expect((await accept({ token: 42 })).status).toBe(400)
    expect(await memberStatus('wrong@acme.test')).toBe('invited')
  })
})
