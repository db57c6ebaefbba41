/**
 * The access table: every read-API route, its minimum role and how the path names
 * the organization and workspace it acts on. Routes are mounted only through this
 * table (see mount()), and access.test.ts walks it for every role and for a foreign
 * workspace's key, so a route cannot be added without a role.
 */
import type { Context, Handler, Hono, MiddlewareHandler } from 'hono'
import { ROLE_RANK, type Role } from '@svc/shared/control/events'
import type { ControlState, Org, Workspace } from '@svc/shared/control/state'
import { forbidden, notFound } from '@svc/shared/http/errors'

/** How a route's path identifies what it acts on. */
export type Scope =
  /** /v1/observ/orgs/:org/workspaces/:ws/...: slugs */
  | 'workspace-slug'
  /** /v1/observ/orgs/:org/...: organization slug */
  | 'org-slug'
  /** /v1/orgs/:org_id/...: organization UUID */
  | 'org-id'
  /** /v1/workspaces/:ws_id/...: workspace UUID */
  | 'workspace-id'
  /** Nothing: the caller's own principal (/v1/auth/me). */
  | 'principal'

export interface RouteSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  path: string
  /** Minimum role; null = any authenticated principal. */
  role: Role | null
  scope: Scope
}

const OBSERV_ORG = '/v1/observ/orgs/:org'
const WS = `${OBSERV_ORG}/workspaces/:ws`

const ORG = '/v1/orgs/:org_id'

export const ROUTES = {
  me: { method: 'GET', path: '/v1/auth/me', role: null, scope: 'principal' },
  getOrg: { method: 'GET', path: ORG, role: 'dev', scope: 'org-id' },
  patchOrg: { method: 'PATCH', path: ORG, role: 'admin', scope: 'org-id' },
  listMembers: { method: 'GET', path: `${ORG}/members`, role: 'dev', scope: 'org-id' },
  addMember: { method: 'POST', path: `${ORG}/members`, role: 'admin', scope: 'org-id' },
  patchMember: { method: 'PATCH', path: `${ORG}/members/:user_id`, role: 'admin', scope: 'org-id' },
  removeMember: { method: 'DELETE', path: `${ORG}/members/:user_id`, role: 'admin', scope: 'org-id' },
  transferOwnership: { method: 'POST', path: `${ORG}/transfer-ownership`, role: 'owner', scope: 'org-id' },
  createWorkspace: { method: 'POST', path: `${ORG}/workspaces`, role: 'admin', scope: 'org-id' },
  createWorkspaceBySlug: { method: 'POST', path: `${OBSERV_ORG}/workspaces`, role: 'admin', scope: 'org-slug' },
  listWorkspaces: { method: 'GET', path: `${ORG}/workspaces`, role: 'dev', scope: 'org-id' },
  getWorkspace: { method: 'GET', path: '/v1/workspaces/:ws_id', role: 'dev', scope: 'workspace-id' },
  patchWorkspace: { method: 'PATCH', path: '/v1/workspaces/:ws_id', role: 'admin', scope: 'workspace-id' },
  deleteWorkspace: { method: 'DELETE', path: '/v1/workspaces/:ws_id', role: 'admin', scope: 'workspace-id' },
  createApiKey: { method: 'POST', path: `${WS}/api-keys`, role: 'admin', scope: 'workspace-slug' },
  listApiKeys: { method: 'GET', path: `${WS}/api-keys`, role: 'admin', scope: 'workspace-slug' },
  revokeApiKey: { method: 'DELETE', path: `${WS}/api-keys/:key_id`, role: 'admin', scope: 'workspace-slug' },
  getCaptureText: { method: 'GET', path: `${WS}/settings/capture-text`, role: 'viewer', scope: 'workspace-slug' },
  patchCaptureText: { method: 'PATCH', path: `${WS}/settings/capture-text`, role: 'admin', scope: 'workspace-slug' },
  getBroadenSources: { method: 'GET', path: `${WS}/settings/broaden-sources`, role: 'viewer', scope: 'workspace-slug' },
  patchBroadenSources: { method: 'PATCH', path: `${WS}/settings/broaden-sources`, role: 'admin', scope: 'workspace-slug' },
  getCostProvider: { method: 'GET', path: `${WS}/settings/cost-provider`, role: 'viewer', scope: 'workspace-slug' },
  patchCostProvider: { method: 'PATCH', path: `${WS}/settings/cost-provider`, role: 'admin', scope: 'workspace-slug' },
  getRetention: { method: 'GET', path: `${WS}/retention`, role: 'viewer', scope: 'workspace-slug' },
  // A bare ':' would start a parameter: the segment is matched literally as a one-value pattern.
  previewRetention: { method: 'POST', path: `${WS}/:op{retention:preview}`, role: 'admin', scope: 'workspace-slug' },
  putRetention: { method: 'PUT', path: `${WS}/retention`, role: 'admin', scope: 'workspace-slug' },
  usageSummary: { method: 'GET', path: `${WS}/usage/summary`, role: 'viewer', scope: 'workspace-slug' },
  usageTimeseries: { method: 'GET', path: `${WS}/usage/timeseries`, role: 'viewer', scope: 'workspace-slug' },
  usageLatency: { method: 'GET', path: `${WS}/usage/latency`, role: 'viewer', scope: 'workspace-slug' },
  usageLatencyPhaseTraces: { method: 'GET', path: `${WS}/usage/latency/phase/traces`, role: 'viewer', scope: 'workspace-slug' },
  ingestionHealth: { method: 'GET', path: `${WS}/health/ingestion`, role: 'admin', scope: 'workspace-slug' },
  driftCurrent: { method: 'GET', path: `${WS}/drift/current`, role: 'viewer', scope: 'workspace-slug' },
  driftHistory: { method: 'GET', path: `${WS}/drift/history`, role: 'viewer', scope: 'workspace-slug' },
  listSources: { method: 'GET', path: `${WS}/sources`, role: 'viewer', scope: 'workspace-slug' },
  getCostBudget: { method: 'GET', path: `${WS}/cost-budget`, role: 'viewer', scope: 'workspace-slug' },
  putCostBudget: { method: 'PUT', path: `${WS}/cost-budget`, role: 'admin', scope: 'workspace-slug' },
  getEngineSettings: { method: 'GET', path: `${WS}/engine-settings`, role: 'viewer', scope: 'workspace-slug' },
  putEngineSettings: { method: 'PUT', path: `${WS}/engine-settings`, role: 'admin', scope: 'workspace-slug' },
  getLlmCredentials: { method: 'GET', path: `${OBSERV_ORG}/llm-credentials`, role: 'dev', scope: 'org-slug' },
  putLlmCredentials: { method: 'PUT', path: `${OBSERV_ORG}/llm-credentials`, role: 'dev', scope: 'org-slug' },
  deleteLlmCredentials: { method: 'DELETE', path: `${OBSERV_ORG}/llm-credentials`, role: 'dev', scope: 'org-slug' },
  patchLlmFallback: { method: 'PATCH', path: `${OBSERV_ORG}/llm-credentials/fallback`, role: 'dev', scope: 'org-slug' },
  getSearchCredentials: { method: 'GET', path: `${OBSERV_ORG}/search-credentials`, role: 'dev', scope: 'org-slug' },
  putSearchCredentials: { method: 'PUT', path: `${OBSERV_ORG}/search-credentials`, role: 'dev', scope: 'org-slug' },
  deleteSearchCredentials: { method: 'DELETE', path: `${OBSERV_ORG}/search-credentials`, role: 'dev', scope: 'org-slug' },
  listTraces: { method: 'GET', path: `${WS}/traces`, role: 'viewer', scope: 'workspace-slug' },
  getTrace: { method: 'GET', path: `${WS}/traces/:trace_id`, role: 'viewer', scope: 'workspace-slug' },
  traceContentReliability: { method: 'GET', path: `${WS}/traces/:trace_id/content-reliability`, role: 'viewer', scope: 'workspace-slug' },
  traceDecisionTrace: { method: 'GET', path: `${WS}/traces/:trace_id/decision-trace`, role: 'viewer', scope: 'workspace-slug' },
  traceDecomposition: { method: 'GET', path: `${WS}/traces/:trace_id/decomposition`, role: 'viewer', scope: 'workspace-slug' },
  traceSourcesMatrix: { method: 'GET', path: `${WS}/traces/:trace_id/sources-matrix`, role: 'viewer', scope: 'workspace-slug' },
  traceOptimization: { method: 'GET', path: `${WS}/traces/:trace_id/optimization`, role: 'viewer', scope: 'workspace-slug' },
  getAlignmentPolicy: { method: 'GET', path: `${WS}/alignment/policy`, role: 'viewer', scope: 'workspace-slug' },
  putAlignmentPolicy: { method: 'PUT', path: `${WS}/alignment/policy`, role: 'admin', scope: 'workspace-slug' },
  listAlignmentDocs: { method: 'GET', path: `${WS}/alignment/docs`, role: 'viewer', scope: 'workspace-slug' },
  uploadAlignmentDoc: { method: 'POST', path: `${WS}/alignment/docs`, role: 'admin', scope: 'workspace-slug' },
  deleteAlignmentDoc: { method: 'DELETE', path: `${WS}/alignment/docs/:doc_id`, role: 'admin', scope: 'workspace-slug' },
  listAlignmentFlags: { method: 'GET', path: `${WS}/alignment/flags`, role: 'viewer', scope: 'workspace-slug' },
  alignmentByUser: { method: 'GET', path: `${WS}/alignment/by-user`, role: 'viewer', scope: 'workspace-slug' },
  codingAgentUsage: { method: 'GET', path: `${WS}/coding-agent/usage`, role: 'viewer', scope: 'workspace-slug' },
  codingAgentCommits: { method: 'GET', path: `${WS}/coding-agent/commits`, role: 'viewer', scope: 'workspace-slug' },
  codingAgentTopFiles: { method: 'GET', path: `${WS}/coding-agent/top-files`, role: 'viewer', scope: 'workspace-slug' },
} as const satisfies Record<string, RouteSpec>

/**
 * Routes answered without credentials, mounted before authentication (so outside
 * ROUTES and its walk): login (with its browser session form and sign-out), and redeeming an invitation, whose token is the
 * credential (an account that already has a password also sends its access token).
 */
export const PUBLIC_ROUTES = {
  login: { method: 'POST', path: '/v1/auth/login', role: null, scope: 'principal' },
  acceptInvitation: { method: 'POST', path: '/v1/auth/invitations/accept', role: null, scope: 'principal' },
  // The browser's login and sign-out: the token in an httpOnly cookie (session-cookie.ts).
  createSession: { method: 'POST', path: '/v1/auth/session', role: null, scope: 'principal' },
  deleteSession: { method: 'DELETE', path: '/v1/auth/session', role: null, scope: 'principal' },
} as const satisfies Record<string, RouteSpec>

export interface Target {
  org: Org | null
  workspace: Workspace | null
}

declare module 'hono' {
  interface ContextVariableMap {
    target: Target
  }
}

/** The organization and workspace a request's path names; 404 when either is unknown (or deleted). */
export function resolveTarget(scope: Scope, c: Context, state: ControlState): Target {
  switch (scope) {
    case 'principal':
      return { org: null, workspace: null }
    case 'org-slug':
    case 'workspace-slug': {
      const org = state.orgBySlug(c.req.param('org') ?? '')
      if (!org) throw notFound(`organization ${c.req.param('org')} not found`)
      if (scope === 'org-slug') return { org, workspace: null }
      const workspace = state.workspaceBySlug(org.id, c.req.param('ws') ?? '')
      if (!workspace) throw notFound(`workspace ${c.req.param('ws')} not found in organization ${org.slug}`)
      return { org, workspace }
    }
    case 'org-id': {
      const org = state.orgs.get(c.req.param('org_id') ?? '')
      if (!org) throw notFound(`organization ${c.req.param('org_id')} not found`)
      return { org, workspace: null }
    }
    case 'workspace-id': {
      const workspace = state.workspaces.get(c.req.param('ws_id') ?? '')
      if (!workspace || workspace.deleted_at_ms !== null) throw notFound(`workspace ${c.req.param('ws_id')} not found`)
      return { org: state.orgs.get(workspace.org_id) ?? null, workspace }
    }
  }
}

/** Resolves the route's target (404) and checks the caller's role on it (403). */
export function guard(route: RouteSpec, state: ControlState): MiddlewareHandler {
  return async (c, next) => {
    const target = resolveTarget(route.scope, c, state)
    if (route.role !== null && target.org) {
      const p = c.get('principal')
      const role = state.roleFor(p, target.org.id, target.workspace?.id ?? null)
      if (role === null && p.kind === 'api_key')
        throw forbidden(
          p.org_id === target.org.id && (target.workspace === null || target.workspace.id === p.workspace_id)
            ? 'this API key holds no role here: a key never holds more than its creator, who has no organization-wide role'
            : 'this API key belongs to a different workspace',
        )
      if (role === null || ROLE_RANK[role] < ROLE_RANK[route.role])
        throw forbidden(`this requires the ${route.role} role${role ? `; you have ${role}` : ''}`)
    }
    c.set('target', target)
    await next()
  }
}

/** Mounts a handler for a route of the table, behind its guard. */
export function mount(app: Hono, route: RouteSpec, state: ControlState, handler: Handler): void {
  app.on(route.method, route.path, guard(route, state), handler)
}

/** The target set by guard(), for handlers of organization-scoped routes. */
export function targetOrg(c: Context): Org {
  const org = c.get('target').org
  if (!org) throw new Error('route is not organization-scoped')
  return org
}

/** The target set by guard(), for handlers of workspace-scoped routes. */
export function targetWorkspace(c: Context): Workspace {
  const ws = c.get('target').workspace
  if (!ws) throw new Error('route is not workspace-scoped')
  return ws
}
