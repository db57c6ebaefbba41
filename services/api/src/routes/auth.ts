/**
 * Identity: GET /v1/auth/me (the principal with its memberships, mapping slugs to
 * UUIDs), and jsonBody, the one way routes parse JSON bodies. Login is login.ts.
 */
import { Hono, type Context } from 'hono'
import { z } from 'zod'
import { ROLE_RANK, type Role } from '@svc/shared/control/events'
import type { ControlState, Principal } from '@svc/shared/control/state'
import { badRequest } from '@svc/shared/http/errors'
import { jsonDepthExceeds, MAX_JSON_DEPTH } from '@svc/shared/json-limits'
import { mount, ROUTES } from '../access.js'
import { describeRoute } from '../openapi/registry.js'
import { RoleOut, Uuid } from '../openapi/schemas.js'

const MembershipOut = z.object({
  org_id: Uuid,
  org_slug: z.string(),
  org_name: z.string(),
  role: RoleOut.nullable().describe('organization-wide role, null when only workspace-scoped'),
  workspaces: z.array(z.object({ workspace_id: Uuid, slug: z.string(), name: z.string(), role: RoleOut.nullable() })),
})

describeRoute({
  route: ROUTES.me,
  summary: 'The caller and its memberships',
  description: 'The principal (user or API key) with, per organization, its role and the workspaces it can reach: maps slugs to UUIDs.',
  tags: ['Identity'],
  responses: {
    200: {
      description: 'The principal',
      schema: z.object({
        principal_type: z.enum(['user', 'api_key']),
        key_id: z.string().nullable(),
        user_id: Uuid.nullable(),
        email: z.string().nullable(),
        memberships: z.array(MembershipOut),
        auth_method: z.enum(['api_key', 'jwt', 'session']).describe('session: the browser session cookie (POST /v1/auth/session)'),
      }),
    },
  },
})

/** Parses a JSON body against a schema; 400 with the issues when it does not match. */
export async function jsonBody<S extends z.ZodTypeAny>(c: Context, schema: S): Promise<z.infer<S>> {
  let raw: unknown
  try {
    raw = await c.req.json()
  } catch {
    throw badRequest('body must be JSON')
  }
  // Schemas, control events and responses walk the value recursively; past this it could overflow the stack.
  if (jsonDepthExceeds(raw, MAX_JSON_DEPTH)) throw badRequest(`body is nested deeper than ${MAX_JSON_DEPTH} levels`)
  const parsed = schema.safeParse(raw)
  if (!parsed.success) throw badRequest('invalid body', parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })))
  return parsed.data
}

export function meRoutes(state: ControlState): Hono {
  const app = new Hono()
  mount(app, ROUTES.me, state, (c) => c.json({ ...describePrincipal(state, c.get('principal')), auth_method: c.get('authMethod') }))
  return app
}

const higher = (a: Role | null, b: Role | null): Role | null => (a === null ? b : b === null ? a : ROLE_RANK[b] > ROLE_RANK[a] ? b : a)

/** The principal and, per organization, its organization-wide role and the workspaces it can reach with their roles. */
export function describePrincipal(state: ControlState, p: Principal) {
  if (p.kind === 'api_key') {
    const org = state.orgs.get(p.org_id)
    const ws = state.workspaces.get(p.workspace_id)
    return {
      principal_type: 'api_key' as const,
      key_id: p.key_id,
      user_id: null,
      email: null,
      memberships: [{
        // A key's organization-wide role: what it holds on organization routes (capped by its creator's).
        org_id: p.org_id, org_slug: org?.slug ?? '', org_name: org?.name ?? '', role: state.roleFor(p, p.org_id, null),
        workspaces: ws ? [{ workspace_id: ws.id, slug: ws.slug, name: ws.name, role: p.role }] : [],
      }],
    }
  }
  const byOrg = new Map<string, { orgRole: Role | null; scoped: Map<string, Role> }>()
  for (const m of state.membershipsOf(p.user_id)) {
    const entry = byOrg.get(m.org_id) ?? { orgRole: null, scoped: new Map<string, Role>() }
    if (m.workspace_id === null) entry.orgRole = higher(entry.orgRole, m.role)
    else entry.scoped.set(m.workspace_id, higher(entry.scoped.get(m.workspace_id) ?? null, m.role)!)
    byOrg.set(m.org_id, entry)
  }
  const memberships = [...byOrg].flatMap(([orgId, { orgRole, scoped }]) => {
    const org = state.orgs.get(orgId)
    if (!org) return []
    const workspaces = state
      .activeWorkspaces(orgId)
      .map((w) => ({ workspace_id: w.id, slug: w.slug, name: w.name, role: higher(orgRole, scoped.get(w.id) ?? null) }))
      .filter((w) => w.role !== null)
    return [{ org_id: org.id, org_slug: org.slug, org_name: org.name, role: orgRole, workspaces }]
  })
  return { principal_type: 'user' as const, key_id: null, user_id: p.user_id, email: p.email, memberships }
}
