/**
 * Walks the access table (ROUTES) for every role, as an API key and as a logged-in
 * user, and for credentials of another workspace and another organization, against
 * the real app on embedded ClickHouse.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '@svc/shared/config'
import { ROLE_RANK, ROLES, type ControlEvent, type Role } from '@svc/shared/control/events'
import { hashApiKey, stableUuid } from '@svc/shared/control/secrets'
import { createMemoryCache } from '@svc/shared/cache/memory'
import { foldingWriter } from '@svc/shared/control/control-plane'
import { masterKeyFrom } from '@svc/shared/control/envelope'
import { ControlState } from '@svc/shared/control/state'
import { issueAccessToken } from '@svc/shared/control/tokens'
import { createLogger } from '@svc/shared/log'
import { createStore } from '@svc/shared/store/index'
import { migrate } from '@svc/shared/store/migrate'
import type { Store } from '@svc/shared/store/types'
import { ROUTES, type RouteSpec } from './access.js'
import { createApiApp } from './app.js'

const SECRET = 'test-secret'
const ORG = stableUuid('org:acme')
const OTHER_ORG = stableUuid('org:globex')
const WS = stableUuid('ws:agents')
const OTHER_WS = stableUuid('ws:other')
const FOREIGN_ORG_WS = stableUuid('ws:globex')
const TRACE = 'ab'.repeat(16)

let n = 0
const ev = (type: ControlEvent['type'], payload: unknown) => ({ type, payload, actor: 'test', at_ms: 1, event_id: String(n++) }) as ControlEvent
const keyFor = (name: string) => `dr_${name.padEnd(40, '0')}`

const keys: Record<string, string> = {}
const tokens: Record<string, string> = {}
let store: Store
let app: ReturnType<typeof createApiApp>
const log = createLogger({ level: 'silent' })

/** The test organizations, workspaces, keys and users, folded into a new state. */
function seededState(): ControlState {
  const state = new ControlState()
  // A key holds no more than its creator (by default the organization's owner) holds now.
  const addKey = (name: string, org: string, ws: string, role: Role, creator = org === ORG ? 'org-owner' : 'admin-of-other-org') => {
    keys[name] = keyFor(name)
    state.apply({ ...ev('api_key.created', { key_id: name, org_id: org, workspace_id: ws, project_id: 'p', role, name, key_hash: hashApiKey(keys[name]), key_last4: '0000' }), actor: `user:${stableUuid(`user:${creator}`)}` })
  }
  const addUser = (name: string, org: string, role: Role, workspace: string | null) => {
    const id = stableUuid(`user:${name}`)
    state.apply(ev('user.created', { user_id: id, email: `${name}@test`, password_hash: null }))
    state.apply(ev('member.role_set', { org_id: org, user_id: id, role, workspace_id: workspace }))
  }
  state.apply(ev('org.created', { org_id: ORG, slug: 'acme', name: 'Acme' }))
  state.apply(ev('org.created', { org_id: OTHER_ORG, slug: 'globex', name: 'Globex' }))
  state.apply(ev('workspace.created', { workspace_id: WS, org_id: ORG, slug: 'agents', name: 'Agents' }))
  state.apply(ev('workspace.created', { workspace_id: OTHER_WS, org_id: ORG, slug: 'other', name: 'Other' }))
  state.apply(ev('workspace.created', { workspace_id: FOREIGN_ORG_WS, org_id: OTHER_ORG, slug: 'agents', name: 'Globex agents' }))
  for (const role of ROLES) {
    if (role !== 'owner') addKey(`key-${role}`, ORG, WS, role)
    // Made by a member whose role is scoped to the workspace: no authority on organization routes.
    if (role !== 'owner') addKey(`key-by-ws-${role}`, ORG, WS, role, `ws-${role}`)
    addUser(`org-${role}`, ORG, role, null)
    addUser(`ws-${role}`, ORG, role, WS)
  }
  addKey('key-other-ws', ORG, OTHER_WS, 'admin')
  addKey('key-other-org', OTHER_ORG, FOREIGN_ORG_WS, 'admin')
  addUser('admin-of-other-ws', ORG, 'admin', OTHER_WS)
  addUser('admin-of-other-org', OTHER_ORG, 'owner', null)
  return state
}
const appOver = (state: ControlState) =>
  createApiApp({ store, cache: createMemoryCache(), control: foldingWriter(state), jwtSecret: SECRET, jwtTtlSeconds: 600, defaultRetentionHours: 720, defaultCostProvider: 'openai', driftBaselineDays: 7, engineStallMs: 15 * 60_000, masterKey: masterKeyFrom(randomBytes(32)), log })

beforeAll(async () => {
  const state = seededState()
  for (const u of state.users.values()) tokens[u.email.replace('@test', '')] = await issueAccessToken(SECRET, u, 600)
  const dir = mkdtempSync(join(tmpdir(), 'api-access-'))
  store = await createStore(loadConfig({ SVC_DATA_DIR: dir }), log)
  await migrate(store, log)
  app = appOver(state)
}, 60_000)
afterAll(() => store?.close())

const fill = (path: string, over: Record<string, string> = {}) =>
  path.replace(/:(\w+)(?:\{([^}]+)\})?/g, (_, p: string, literal?: string) => literal ?? over[p] ?? ({ org: 'acme', ws: 'agents', trace_id: TRACE, org_id: ORG, ws_id: WS } as Record<string, string>)[p]!)
// A call that may change the state (a DELETE that is allowed succeeds) gets a state of its own.
const call = (r: RouteSpec, headers: Record<string, string>, over?: Record<string, string>) =>
  (r.method === 'GET' ? app : appOver(seededState())).request(fill(r.path, over), {
    method: r.method,
    headers: { 'content-type': 'application/json', ...headers },
    body: r.method === 'GET' || r.method === 'DELETE' ? undefined : '{}',
  })
const asKey = (name: string) => ({ 'x-svc-api-key': keys[name]! })
const asUser = (name: string) => ({ authorization: `Bearer ${tokens[name]}` })

const routes = Object.entries(ROUTES) as Array<[string, RouteSpec]>
const scoped = routes.filter(([, r]) => r.scope !== 'principal')

describe.each(routes)('route %s', (_, route) => {
  it('is 401 without a credential or with a bad one', async () => {
    expect((await call(route, {})).status).toBe(401)
    expect((await call(route, { 'x-svc-api-key': keyFor('unknown') })).status).toBe(401)
    expect((await call(route, { authorization: 'Bearer not.a.jwt' })).status).toBe(401)
  })

  it.each(ROLES)('enforces the minimum role against %s', async (role) => {
    const allowed = route.role === null || ROLE_RANK[role] >= ROLE_RANK[route.role]
    // A role scoped to one workspace reaches that workspace's routes only; API keys act
    // with their role in their own organization (the spec lets any credential create
    // workspaces and manage credentials), but never beyond their creator's reach.
    const orgLevel = route.scope === 'org-id' || route.scope === 'org-slug'
    const callers: Array<[Record<string, string>, boolean]> = [
      [asUser(`org-${role}`), allowed],
      [asUser(`ws-${role}`), allowed && !orgLevel],
      ...(role === 'owner'
        ? []
        : ([
            [asKey(`key-${role}`), allowed],
            [asKey(`key-by-ws-${role}`), allowed && !orgLevel],
          ] as Array<[Record<string, string>, boolean]>)),
    ]
    for (const [headers, ok] of callers) {
      const status = (await call(route, headers)).status
      if (ok) expect([401, 403]).not.toContain(status)
      else expect(status).toBe(403)
    }
  })
})

describe.each(scoped)('tenant isolation on %s', (_, route) => {
  it('is 403 for a key of another workspace or organization, and for a member of only another workspace', async () => {
    expect((await call(route, asKey('key-other-org'))).status).toBe(403)
    expect((await call(route, asUser('admin-of-other-org'))).status).toBe(403)
    // Both hold admin in another workspace of the same organization.
    expect((await call(route, asUser('admin-of-other-ws'))).status).toBe(403)
    if (route.scope === 'workspace-slug' || route.scope === 'workspace-id') expect((await call(route, asKey('key-other-ws'))).status).toBe(403)
  })

  it('is 404 for an unknown organization or workspace', async () => {
    const unknown = { org: 'nope', ws: 'nope', org_id: stableUuid('nope'), ws_id: stableUuid('nope') }
    expect((await call(route, asUser('org-owner'), unknown)).status).toBe(404)
  })
})

describe('trace reads stay in their workspace', () => {
  it('does not list or return another workspace\'s trace', async () => {
    const now = BigInt(Date.now()) * 1_000_000n
    const row = (ws: string) => ({
      org_id: ORG, workspace_id: ws, project_id: 'p', trace_id: TRACE, span_id: 'cd'.repeat(8), parent_span_id: '', name: 'root', kind: 'SERVER',
      start_time: now.toString(), end_time: (now + 1_000_000n).toString(), is_llm: 1, received_at: String(Date.now()), expires_at: Math.floor(Date.now() / 1000) + 3600,
    })
    await store.insert('spans_v1', [row(OTHER_WS)])
    const list = await app.request('/v1/observ/orgs/acme/workspaces/agents/traces', { headers: asKey('key-viewer') })
    expect(((await list.json()) as { data: unknown[] }).data).toEqual([])
    expect((await app.request(`/v1/observ/orgs/acme/workspaces/agents/traces/${TRACE}`, { headers: asKey('key-viewer') })).status).toBe(404)
    const own = await app.request(`/v1/observ/orgs/acme/workspaces/other/traces/${TRACE}`, { headers: asKey('key-other-ws') })
    expect(own.status).toBe(200)
  })
})

describe('the access table', () => {
  it('gives every route the minimum role of the API document (our additions: members POST and API keys, admin)', () => {
    const W = '/v1/observ/orgs/:org/workspaces/:ws'
    expect(Object.fromEntries(routes.map(([, r]) => [`${r.method} ${r.path}`, r.role]))).toEqual({
      'GET /v1/auth/me': null,
      'GET /v1/orgs/:org_id': 'dev',
      'PATCH /v1/orgs/:org_id': 'admin',
      'GET /v1/orgs/:org_id/members': 'dev',
      'POST /v1/orgs/:org_id/members': 'admin',
      'PATCH /v1/orgs/:org_id/members/:user_id': 'admin',
      'DELETE /v1/orgs/:org_id/members/:user_id': 'admin',
      'POST /v1/orgs/:org_id/transfer-ownership': 'owner',
      'POST /v1/orgs/:org_id/workspaces': 'admin',
      'POST /v1/observ/orgs/:org/workspaces': 'admin',
      'GET /v1/orgs/:org_id/workspaces': 'dev',
      'GET /v1/workspaces/:ws_id': 'dev',
      'PATCH /v1/workspaces/:ws_id': 'admin',
      'DELETE /v1/workspaces/:ws_id': 'admin',
      [`POST ${W}/api-keys`]: 'admin',
      [`GET ${W}/api-keys`]: 'admin',
      [`DELETE ${W}/api-keys/:key_id`]: 'admin',
      [`GET ${W}/settings/capture-text`]: 'viewer',
      [`PATCH ${W}/settings/capture-text`]: 'admin',
      [`GET ${W}/settings/broaden-sources`]: 'viewer',
      [`PATCH ${W}/settings/broaden-sources`]: 'admin',
      [`GET ${W}/settings/cost-provider`]: 'viewer',
      [`PATCH ${W}/settings/cost-provider`]: 'admin',
      [`GET ${W}/engine-settings`]: 'viewer',
      [`PUT ${W}/engine-settings`]: 'admin',
      [`GET ${W}/usage/summary`]: 'viewer',
      [`GET ${W}/usage/timeseries`]: 'viewer',
      [`GET ${W}/usage/latency`]: 'viewer',
      [`GET ${W}/usage/latency/phase/traces`]: 'viewer',
      [`GET ${W}/health/ingestion`]: 'admin',
      [`GET ${W}/drift/current`]: 'viewer',
      [`GET ${W}/drift/history`]: 'viewer',
      [`GET ${W}/sources`]: 'viewer',
      [`GET ${W}/cost-budget`]: 'viewer',
      [`PUT ${W}/cost-budget`]: 'admin',
      [`GET ${W}/retention`]: 'viewer',
      [`POST ${W}/:op{retention:preview}`]: 'admin',
      [`PUT ${W}/retention`]: 'admin',
      'GET /v1/observ/orgs/:org/llm-credentials': 'dev',
      'PUT /v1/observ/orgs/:org/llm-credentials': 'dev',
      'DELETE /v1/observ/orgs/:org/llm-credentials': 'dev',
      'PATCH /v1/observ/orgs/:org/llm-credentials/fallback': 'dev',
      'GET /v1/observ/orgs/:org/search-credentials': 'dev',
      'PUT /v1/observ/orgs/:org/search-credentials': 'dev',
      'DELETE /v1/observ/orgs/:org/search-credentials': 'dev',
      [`GET ${W}/traces`]: 'viewer',
      [`GET ${W}/traces/:trace_id`]: 'viewer',
      [`GET ${W}/traces/:trace_id/content-reliability`]: 'viewer',
      [`GET ${W}/traces/:trace_id/decision-trace`]: 'viewer',
      [`GET ${W}/traces/:trace_id/decomposition`]: 'viewer',
      [`GET ${W}/traces/:trace_id/sources-matrix`]: 'viewer',
      [`GET ${W}/traces/:trace_id/optimization`]: 'viewer',
      [`GET ${W}/alignment/policy`]: 'viewer',
      [`PUT ${W}/alignment/policy`]: 'admin',
      [`GET ${W}/alignment/docs`]: 'viewer',
      [`POST ${W}/alignment/docs`]: 'admin',
      [`DELETE ${W}/alignment/docs/:doc_id`]: 'admin',
      [`GET ${W}/alignment/flags`]: 'viewer',
      [`GET ${W}/alignment/by-user`]: 'viewer',
      [`GET ${W}/coding-agent/usage`]: 'viewer',
      [`GET ${W}/coding-agent/commits`]: 'viewer',
      [`GET ${W}/coding-agent/top-files`]: 'viewer',
    })
  })
})
