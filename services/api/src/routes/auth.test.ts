/** Identity routes over the real app: login (limits, constant work, rehash), GET /v1/auth/me, and how access tokens are checked. */
import { sign } from 'hono/jwt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { passwordHasher } from '@svc/shared/control/passwords'
import { hashPassword, stableUuid } from '@svc/shared/control/secrets'
import { issueAccessToken } from '@svc/shared/control/tokens'
import { apiHarness, eventMaker, ORG, TEST_SCRYPT, WS, type Harness } from '../test-support/harness.js'

const KEY = `dr_${'m'.repeat(40)}`
const DEV = stableUuid('user:dev')
let h: Harness

beforeAll(async () => {
  h = await apiHarness({ keys: { [KEY]: 'viewer' } })
  const ev = eventMaker()
  h.state.apply(ev('user.created', { user_id: DEV, email: 'dev@acme.test', password_hash: null }))
  h.state.apply(ev('member.role_set', { org_id: ORG, user_id: DEV, role: 'dev', workspace_id: null }))
}, 60_000)
afterAll(() => h.close())

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

describe('GET /v1/auth/me', () => {
  it("lists a user's workspaces as { workspace_id, slug, name } (the API document's shape) with the role there", async () => {
    const res = await h.app.request('/v1/auth/me', { headers: bearer(await issueAccessToken('test-secret', { id: DEV, email: 'dev@acme.test' }, 60)) })
    expect(res.status).toBe(200)
    const body = (await res.json()) as { memberships: Array<{ org_id: string; workspaces: unknown[] }> }
    expect(body).toMatchObject({ user_id: DEV, email: 'dev@acme.test', auth_method: 'jwt' })
    expect(body.memberships).toEqual([{ org_id: ORG, org_slug: 'acme', org_name: 'Acme', role: 'dev', workspaces: [{ workspace_id: WS, slug: 'agents', name: 'Agents', role: 'dev' }] }])
  })

  it("lists an API key's workspace in the same shape", async () => {
    const body = (await (await h.app.request('/v1/auth/me', { headers: { 'x-svc-api-key': KEY } })).json()) as { memberships: Array<{ workspaces: unknown[] }> }
    expect(body.memberships[0]!.workspaces).toEqual([{ workspace_id: WS, slug: 'agents', name: 'Agents', role: 'viewer' }])
  })
})

describe('access tokens', () => {
  it('answers 401 to a correctly signed token without exp', async () => {
    const token = await sign({ sub: DEV, email: 'dev@acme.test', iat: Math.floor(Date.now() / 1000) }, 'test-secret', 'HS256')
    const res = await h.app.request('/v1/auth/me', { headers: bearer(token) })
    expect(res.status).toBe(401)
  })
})

describe('POST /v1/auth/login', () => {
  const LIMITS = { maxFailuresPerAccount: 3, maxFailuresPerAddress: 6, windowSeconds: 900 }
  /** Node's socket address as @hono/node-server passes it; app.request() has none of its own. */
  const from = (address: string) => ({ incoming: { socket: { remoteAddress: address } } })
  let lh: Harness
  /** Stored hashes each verification was made against (null: the route asked for the dummy). */
  const verified: Array<string | null> = []

  beforeAll(async () => {
    const real = passwordHasher(TEST_SCRYPT)
    lh = await apiHarness({ keys: {}, store: h.store, loginLimits: LIMITS, passwords: { ...real, verify: (pw, stored) => (verified.push(stored), real.verify(pw, stored)) } })
    const ev = eventMaker()
    for (const name of ['ann', 'bob', 'cy', 'dee'])
      lh.state.apply(ev('user.created', { user_id: stableUuid(`user:${name}`), email: `${name}@acme.test`, password_hash: await hashPassword(`${name} password`, TEST_SCRYPT) }))
    // Hashed with a cheaper cost than the one configured: renewed at the next login.
    lh.state.apply(ev('user.created', { user_id: stableUuid('user:old'), email: 'old@acme.test', password_hash: await hashPassword('old password', { N: 512, r: 8, p: 1 }) }))
    lh.state.apply(ev('user.created', { user_id: stableUuid('user:invited'), email: 'invited@acme.test', password_hash: null }))
  })

  const login = (email: string, password: string, address = '198.51.100.1', headers: Record<string, string> = {}) =>
    lh.app.request('/v1/auth/login', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ email, password }) }, from(address))

  it('refuses an account with 429 and Retry-After once it failed its limit, even with the right password and from elsewhere; others are unaffected', async () => {
    for (let i = 0; i < 3; i++) expect((await login('ann@acme.test', 'guess', `198.51.100.${10 + i}`)).status).toBe(401)
    const refused = await login('ANN@acme.test', 'ann password', '198.51.100.99')
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(900)
    expect(await refused.json()).toMatchObject({ error: 'too_many_requests' })
    expect((await login('bob@acme.test', 'bob password', '198.51.100.99')).status).toBe(200)
  })

  it('refuses an address with 429 once it failed its limit, whatever the account; successes do not count', async () => {
    expect((await login('cy@acme.test', 'cy password', '203.0.113.5')).status).toBe(200)
    for (const email of ['x1@acme.test', 'x2@acme.test', 'x3@acme.test', 'x4@acme.test', 'x5@acme.test', 'x6@acme.test'])
      expect((await login(email, 'guess', '203.0.113.5')).status).toBe(401)
    expect((await login('cy@acme.test', 'cy password', '203.0.113.5')).status).toBe(429)
    expect((await login('cy@acme.test', 'cy password', '203.0.113.6')).status).toBe(200)
    // Without trusted proxies, X-Forwarded-For does not move a caller to a fresh address.
    expect((await login('cy@acme.test', 'cy password', '203.0.113.5', { 'x-forwarded-for': '192.0.2.77' })).status).toBe(429)
  })

  it("a success resets the account's count", async () => {
    for (let i = 0; i < 2; i++) expect((await login('dee@acme.test', 'guess', `192.0.2.${i}`)).status).toBe(401)
    expect((await login('dee@acme.test', 'dee password', '192.0.2.50')).status).toBe(200)
    for (let i = 0; i < 3; i++) expect((await login('dee@acme.test', 'guess', `192.0.2.${10 + i}`)).status).toBe(401)
    expect((await login('dee@acme.test', 'guess', '192.0.2.20')).status).toBe(429)
  })

  it('checks a password against a dummy hash of the same cost for an unknown email or an account without a password', async () => {
    verified.length = 0
    expect((await login('nobody@acme.test', 'guess', '192.0.2.200')).status).toBe(401)
    expect((await login('invited@acme.test', 'guess', '192.0.2.201')).status).toBe(401)
    expect((await login('bob@acme.test', 'guess', '192.0.2.202')).status).toBe(401)
    expect(verified).toEqual([null, null, expect.stringMatching(/^scrypt\$1024\$8\$1\$/)])
  })

  it('renews a hash made with older parameters on a successful login, through a control event', async () => {
    const id = stableUuid('user:old')
    expect((await login('old@acme.test', 'old password', '192.0.2.210')).status).toBe(200)
    const renewed = lh.state.users.get(id)!.password_hash!
    expect(renewed.startsWith('scrypt$1024$8$1$')).toBe(true)
    expect((await login('old@acme.test', 'old password', '192.0.2.210')).status).toBe(200)
    expect(lh.state.users.get(id)!.password_hash).toBe(renewed)
  })

  it('counts X-Forwarded-For addresses when the operator trusts a proxy in front', async () => {
    const proxied = await apiHarness({ keys: {}, store: h.store, loginLimits: { ...LIMITS, maxFailuresPerAccount: 100 }, trustedProxyHops: 1 })
    const attempt = (xff: string) =>
      proxied.app.request('/v1/auth/login', { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': xff }, body: JSON.stringify({ email: 'z@acme.test', password: 'guess' }) }, from('10.0.0.1'))
    for (let i = 0; i < 6; i++) expect((await attempt(`spoofed-${i}, 203.0.113.80`)).status).toBe(401)
    expect((await attempt('anything, 203.0.113.80')).status).toBe(429)
    expect((await attempt('203.0.113.81')).status).toBe(401)
  })
})
