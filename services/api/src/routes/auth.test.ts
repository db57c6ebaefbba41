/** Identity routes over the real app: GET /v1/auth/me, and how access tokens are checked. */
import { sign } from 'hono/jwt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { stableUuid } from '@svc/shared/control/secrets'
import { issueAccessToken } from '@svc/shared/control/tokens'
import { apiHarness, eventMaker, ORG, WS, type Harness } from '../test-support/harness.js'

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
