/**
 * Browser sessions over the real app: POST /v1/auth/session sets the httpOnly
 * cookie, the read API accepts it, writes it authenticates need the CSRF token and
 * a same-origin browser, a cross-site form post is refused, and sign-out clears it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hashPassword, stableUuid } from '@svc/shared/control/secrets'
import { apiHarness, eventMaker, ORG, TEST_SCRYPT, type Harness } from './test-support/harness.js'

const ADMIN = stableUuid('user:session-admin')
const WS_PATH = '/v1/observ/orgs/acme/workspaces/agents'
const HOST = '127.0.0.1:8080'
let h: Harness

beforeAll(async () => {
  h = await apiHarness({ keys: {} })
  const ev = eventMaker()
  h.state.apply(ev('user.created', { user_id: ADMIN, email: 'admin@acme.test', password_hash: await hashPassword('admin password', TEST_SCRYPT) }))
  h.state.apply(ev('member.role_set', { org_id: ORG, user_id: ADMIN, role: 'admin', workspace_id: null }))
}, 60_000)
afterAll(() => h.close())

const url = (path: string) => `http://${HOST}${path}`

/** The cookies a response sets, by name: value and attributes. */
function setCookies(res: Response): Map<string, { value: string; attrs: string }> {
  const out = new Map<string, { value: string; attrs: string }>()
  for (const line of res.headers.getSetCookie()) {
    const [pair, ...attrs] = line.split(';')
    const [name, ...value] = pair!.split('=')
    out.set(name!.trim(), { value: value.join('='), attrs: attrs.join(';').trim() })
  }
  return out
}

async function signIn(headers: Record<string, string> = {}) {
  const res = await h.app.request(url('/v1/auth/session'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', host: HOST, ...headers },
    body: JSON.stringify({ email: 'admin@acme.test', password: 'admin password' }),
  })
  return { res, cookies: setCookies(res) }
}

describe('browser sessions', () => {
  let session = ''
  let csrf = ''
  const cookie = () => `svc_session=${session}; svc_csrf=${csrf}`

  it('sign-in sets the token as an httpOnly, SameSite=Strict cookie and answers only the CSRF token', async () => {
    const { res, cookies } = await signIn({ origin: `http://${HOST}`, 'sec-fetch-site': 'same-origin' })
    expect(res.status).toBe(200)
    const body = (await res.json()) as Record<string, unknown>
    expect(Object.keys(body).sort()).toEqual(['csrf_token', 'expires_in', 'token_type'])
    expect(body.token_type).toBe('cookie')
    const s = cookies.get('svc_session')!
    expect(s.attrs).toMatch(/HttpOnly/)
    expect(s.attrs).toMatch(/SameSite=Strict/)
    expect(s.attrs).toMatch(/Path=\//)
    expect(s.attrs).not.toMatch(/Secure/)
    const c = cookies.get('svc_csrf')!
    expect(c.attrs).not.toMatch(/HttpOnly/)
    expect(c.value).toBe(body.csrf_token)
    session = s.value
    csrf = c.value
  })

  it('the cookie authenticates reads, and /v1/auth/me says it is a session', async () => {
    const res = await h.app.request(url('/v1/auth/me'), { headers: { cookie: cookie(), host: HOST } })
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ email: 'admin@acme.test', auth_method: 'session' })
    expect((await h.app.request(url(`${WS_PATH}/traces`), { headers: { cookie: cookie(), host: HOST } })).status).toBe(200)
  })

  it('a write it authenticates needs the CSRF header and a same-origin browser', async () => {
    const patch = (headers: Record<string, string>) =>
      h.app.request(url(`${WS_PATH}/settings/capture-text`), { method: 'PATCH', headers: { cookie: cookie(), host: HOST, 'content-type': 'application/json', ...headers }, body: JSON.stringify({ capture_text: true }) })
    const missing = await patch({})
    expect(missing.status).toBe(403)
    expect(((await missing.json()) as { message: string }).message).toMatch(/x-svc-csrf/)
    expect((await patch({ 'x-svc-csrf': 'forged' })).status).toBe(403)
    // A token of another session is worth nothing here.
    const other = (await signIn()).cookies.get('svc_csrf')!.value
    if (other !== csrf) expect((await patch({ 'x-svc-csrf': other })).status).toBe(403)
    expect((await patch({ 'x-svc-csrf': csrf, origin: 'https://evil.example' })).status).toBe(403)
    expect((await patch({ 'x-svc-csrf': csrf, 'sec-fetch-site': 'cross-site' })).status).toBe(403)
    const ok = await patch({ 'x-svc-csrf': csrf, origin: `http://${HOST}`, 'sec-fetch-site': 'same-origin' })
    expect(ok.status).toBe(200)
    expect(await ok.json()).toEqual({ capture_text: true })
  })

  it('refuses a cross-site form post carrying the cookie', async () => {
    // What a page elsewhere can make a browser send: a form post, text/plain or urlencoded, the cookie attached (were SameSite ignored), no custom header.
    const res = await h.app.request(url(`${WS_PATH}/api-keys`), {
      method: 'POST',
      headers: { cookie: cookie(), host: HOST, 'content-type': 'text/plain', origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      body: JSON.stringify({ name: 'planted' }),
    })
    expect(res.status).toBe(403)
    const login = await signIn({ 'content-type': 'text/plain', origin: 'https://evil.example' })
    expect(login.res.status).toBe(403)
    expect(login.cookies.size).toBe(0)
    expect((await signIn({ 'content-type': 'text/plain' })).res.status).toBe(400)
  })

  it('headers still win over the cookie, without CSRF checks (browsers never add them by themselves)', async () => {
    const res = await h.app.request(url('/v1/auth/me'), { headers: { cookie: 'svc_session=garbage', host: HOST, authorization: 'Bearer garbage' } })
    expect(res.status).toBe(401)
    expect(((await res.json()) as { message: string }).message).toMatch(/access token/)
  })

  it('an expired or forged cookie is a 401 asking to sign in again', async () => {
    const res = await h.app.request(url('/v1/auth/me'), { headers: { cookie: 'svc_session=eyJhbGciOiJIUzI1NiJ9.e30.x', host: HOST } })
    expect(res.status).toBe(401)
    expect(((await res.json()) as { message: string }).message).toMatch(/sign in again/)
  })

  it('sign-out clears both cookies; a cross-site sign-out is refused', async () => {
    expect((await h.app.request(url('/v1/auth/session'), { method: 'DELETE', headers: { host: HOST, 'sec-fetch-site': 'cross-site' } })).status).toBe(403)
    const res = await h.app.request(url('/v1/auth/session'), { method: 'DELETE', headers: { cookie: cookie(), host: HOST, 'sec-fetch-site': 'same-origin' } })
    expect(res.status).toBe(204)
    const cleared = setCookies(res)
    expect(cleared.get('svc_session')!.attrs).toMatch(/Max-Age=0/)
    expect(cleared.get('svc_csrf')!.attrs).toMatch(/Max-Age=0/)
  })

  it('marks the cookies Secure behind a trusted TLS proxy', async () => {
    const behind = await apiHarness({ keys: {}, store: h.store, trustedProxyHops: 1 })
    const ev = eventMaker()
    behind.state.apply(ev('user.created', { user_id: ADMIN, email: 'admin@acme.test', password_hash: await hashPassword('admin password', TEST_SCRYPT) }))
    const res = await behind.app.request(url('/v1/auth/session'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', host: 'internal:8080', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'console.example', origin: 'https://console.example' },
      body: JSON.stringify({ email: 'admin@acme.test', password: 'admin password' }),
    })
    expect(res.status).toBe(200)
    expect(setCookies(res).get('svc_session')!.attrs).toMatch(/Secure/)
  })
})
