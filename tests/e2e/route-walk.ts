import { expect } from 'vitest'
import { ROUTES } from '@svc/api/access'
import type { TestJson } from '@svc/shared/test-support/json'

type RouteName = keyof typeof ROUTES
interface Step {
  route: RouteName
  params?: Record<string, string>
  query?: string
  body?: unknown
  /** A multipart body instead of JSON (uploads). */
  form?: () => FormData
  status: number
  /** Checks the response body; may return values later steps use. */
  check?(body: TestJson, ctx: Record<string, string>): void
}

/**
 * Every route of the access table, called once on a running stack in an order
 * where each call can succeed (creations before the reads and deletions that need
 * them). The walk fails if a route is missing from it, so a new route must be added.
 */
export async function walkAllRoutes(apiUrl: string, auth: Record<string, string>, ids: { org: string; orgId: string; ws: string; traceId: string }) {
  const ctx: Record<string, string> = { org: ids.org, org_id: ids.orgId, ws: ids.ws, trace_id: ids.traceId }
  const steps: Step[] = [
    { route: 'me', status: 200, check: (b, c) => void (c.me = b.user_id) },
    { route: 'getOrg', status: 200, check: (b) => expect(b.id).toBe(ids.orgId) },
    { route: 'patchOrg', body: { team_count: '2-10' }, status: 200 },
    { route: 'listMembers', status: 200 },
    // An invitation, redeemed right after this step (below), so the member can be changed and removed.
    { route: 'addMember', body: { email: 'walker@acme.test', role: 'dev' }, status: 201, check: (b, c) => void ((c.user_id = b.user_id), (c.invitation = b.invitation_token)) },
    { route: 'patchMember', params: { user_id: '$user_id' }, body: { new_role: 'admin' }, status: 200 },
    { route: 'createWorkspace', body: { name: 'Walk One' }, status: 201, check: (b, c) => void (c.ws_id = b.id) },
    { route: 'createWorkspaceBySlug', body: { name: 'Walk Two', slug: 'walk-two' }, status: 201 },
    { route: 'listWorkspaces', status: 200 },
    { route: 'getWorkspace', params: { ws_id: '$ws_id' }, status: 200 },
    { route: 'patchWorkspace', params: { ws_id: '$ws_id' }, body: { name: 'Walk One renamed' }, status: 200 },
    { route: 'createApiKey', body: { name: 'walk' }, status: 201, check: (b, c) => void (c.key_id = b.id) },
    { route: 'listApiKeys', status: 200 },
    { route: 'revokeApiKey', params: { key_id: '$key_id' }, status: 204 },
    { route: 'getCaptureText', status: 200 },
    { route: 'patchCaptureText', body: { capture_text: false }, status: 200 },
    { route: 'getBroadenSources', status: 200 },
    { route: 'patchBroadenSources', body: { broaden_sources: true }, status: 200 },
    { route: 'getCostProvider', status: 200 },
    { route: 'patchCostProvider', body: { cost_provider: 'OpenAI' }, status: 200, check: (b) => expect(b.cost_provider).toBe('openai') },
    { route: 'getRetention', status: 200 },
    { route: 'previewRetention', body: { hours: 8760 }, status: 200 },
    { route: 'putRetention', body: { enabled: true, hours: 8760 }, status: 200 },
    { route: 'getCostBudget', status: 200 },
    { route: 'putCostBudget', body: { budgets: { day: { cap_usd: 100 } } }, status: 200 },
    { route: 'getEngineSettings', status: 200 },
    { route: 'putEngineSettings', body: { engines: { savings: false } }, status: 200 },
    { route: 'putEngineSettings', body: { engines: {} }, status: 200 },
    { route: 'getLlmCredentials', status: 200 },
    { route: 'putLlmCredentials', body: { provider: 'openai', model_id: 'gpt-4o-mini', api_key: 'sk-walk-secret-0000' }, status: 200, check: (b) => expect(b.api_key_last4).toBe('0000') },
    { route: 'patchLlmFallback', body: { enabled: true }, status: 200 },
    { route: 'deleteLlmCredentials', status: 204 },
    { route: 'getSearchCredentials', status: 200 },
    { route: 'putSearchCredentials', body: { api_key: 'search-walk-secret' }, status: 200 },
    { route: 'deleteSearchCredentials', status: 204 },
    { route: 'usageSummary', status: 200, check: (b) => expect(b.data.totals.trace_count).toBeGreaterThan(0) },
    { route: 'usageTimeseries', status: 200 },
    { route: 'usageLatency', status: 200 },
    { route: 'usageLatencyPhaseTraces', query: '?phase=llm&metric=slow&percentile=p99', status: 200 },
    { route: 'ingestionHealth', status: 200, check: (b) => expect(b.spans_last_hour).toBeGreaterThan(0) },
    { route: 'driftCurrent', status: 200, check: (b) => expect(['ok', 'warn', 'alert']).toContain(b.status) },
    { route: 'driftHistory', query: '?days=7', status: 200 },
    { route: 'listSources', status: 200, check: (b) => expect(Array.isArray(b.sources)).toBe(true) },
    { route: 'listTraces', status: 200 },
    { route: 'getTrace', status: 200 },
    { route: 'traceContentReliability', status: 200, check: (b) => expect(Array.isArray(b.claims)).toBe(true) },
    { route: 'traceDecisionTrace', status: 200, check: (b) => expect(Array.isArray(b.nodes)).toBe(true) },
    { route: 'traceDecomposition', status: 200, check: (b) => expect(Array.isArray(b.sub_tasks)).toBe(true) },
    { route: 'traceSourcesMatrix', status: 200, check: (b) => expect(Array.isArray(b.sources)).toBe(true) },
    { route: 'traceOptimization', status: 200, check: (b) => expect(Array.isArray(b.findings)).toBe(true) },
    { route: 'getAlignmentPolicy', status: 200, check: (b) => expect(b).toEqual({ enabled: false, description: '' }) },
    { route: 'putAlignmentPolicy', body: { enabled: true, description: 'Never share personal data.' }, status: 200 },
    {
      route: 'uploadAlignmentDoc',
      form: () => {
        const f = new FormData()
        f.append('file', new File(['# Privacy\n\nNever share phone numbers of customers.'], 'privacy.md', { type: 'text/markdown' }))
        return f
      },
      status: 202,
      check: (b, c) => void (c.doc_id = b.doc_id),
    },
    { route: 'listAlignmentDocs', status: 200, check: (b, c) => expect(b.documents.map((d: TestJson) => d.doc_id)).toContain(c.doc_id) },
    { route: 'listAlignmentFlags', query: '?include_unclear=true', status: 200, check: (b) => expect(Array.isArray(b.flags)).toBe(true) },
    { route: 'alignmentByUser', status: 200, check: (b) => expect(Array.isArray(b.users)).toBe(true) },
    { route: 'deleteAlignmentDoc', params: { doc_id: '$doc_id' }, status: 204 },
    { route: 'codingAgentUsage', query: '?period=week', status: 200, check: (b) => expect(Array.isArray(b.employees)).toBe(true) },
    { route: 'codingAgentCommits', query: '?limit=10', status: 200, check: (b) => expect(Array.isArray(b.commits)).toBe(true) },
    { route: 'codingAgentTopFiles', query: '?period=month&limit=5', status: 200, check: (b) => expect(Array.isArray(b.files)).toBe(true) },
    { route: 'removeMember', params: { user_id: '$user_id' }, status: 204 },
    { route: 'deleteWorkspace', params: { ws_id: '$ws_id' }, status: 204 },
    // Last: afterwards the caller is admin.
    { route: 'transferOwnership', body: { to_user_id: '$owner2' }, status: 200 },
  ]
  const walked = new Set(steps.map((s) => s.route))
  expect(Object.keys(ROUTES).filter((r) => !walked.has(r as RouteName))).toEqual([])

  for (const step of steps) {
    const route = ROUTES[step.route]
    if (step.route === 'transferOwnership') {
      const made = await fetch(`${apiUrl}/v1/orgs/${ids.orgId}/members`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ email: 'heir@acme.test', role: 'viewer' }) })
      const invited = (await made.json()) as { user_id: string; invitation_token: string }
      ctx.owner2 = invited.user_id
      await redeem(apiUrl, invited.invitation_token, 'heir password')
    }
    const values = { ...ctx, ...Object.fromEntries(Object.entries(step.params ?? {}).map(([k, v]) => [k, v.startsWith('$') ? ctx[v.slice(1)]! : v])) }
    const path = route.path.replace(/:(\w+)(?:\{([^}]+)\})?/g, (_, p: string, literal?: string) => literal ?? values[p]!)
    const body = step.body === undefined ? undefined : JSON.stringify(step.body).replace(/"\$(\w+)"/g, (_, k: string) => JSON.stringify(ctx[k]))
    const res = step.form
      ? await fetch(apiUrl + path + (step.query ?? ''), { method: route.method, headers: auth, body: step.form() })
      : await fetch(apiUrl + path + (step.query ?? ''), { method: route.method, headers: { ...auth, 'content-type': 'application/json' }, body })
    const text = await res.text()
    expect({ route: step.route, status: res.status }, text).toEqual({ route: step.route, status: step.status })
    step.check?.(text ? JSON.parse(text) : null, ctx)
    if (step.route === 'addMember') await redeem(apiUrl, ctx.invitation!, 'long enough pw')
  }

  // Hand ownership back, so the stack is as it was for whoever runs next.
  const login = await fetch(`${apiUrl}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'heir@acme.test', password: 'heir password' }) })
  const heir = { authorization: `Bearer ${((await login.json()) as { access_token: string }).access_token}`, 'content-type': 'application/json' }
  const back = await fetch(`${apiUrl}/v1/orgs/${ids.orgId}/transfer-ownership`, { method: 'POST', headers: heir, body: JSON.stringify({ to_user_id: ctx.me }) })
  expect(back.status).toBe(200)
}

/** Redeems an invitation as the new account it made, choosing its password. */
async function redeem(apiUrl: string, token: string, password: string) {
  const res = await fetch(`${apiUrl}/v1/auth/invitations/accept`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token, password }) })
  expect(res.status, await res.text()).toBe(200)
}
