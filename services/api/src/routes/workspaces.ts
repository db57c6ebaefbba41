/**
 * Workspaces: create (by organization id, or by organization slug with an explicit
 * slug), list, get, rename or re-slug, soft delete. Slugs are unique among an
 * organization's active workspaces; the control state's fold decides races (the
 * first event wins), so two concurrent creations of one slug give one 201 and one
 * 409 on any number of API replicas.
 */
import { randomUUID } from 'node:crypto'
import { Hono, type Context } from 'hono'
import { z } from 'zod'
import type { ControlWriter } from '@svc/shared/control/control-plane'
import type { Workspace } from '@svc/shared/control/state'
import { badRequest, conflict } from '@svc/shared/http/errors'
import { mount, ROUTES, targetOrg, targetWorkspace } from '../access.js'
import { actorOf } from '../actor.js'
import { describeRoute } from '../openapi/registry.js'
import { IsoTime, Uuid } from '../openapi/schemas.js'
import { jsonBody } from './auth.js'

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/
const Slug = z.string().regex(SLUG, 'lower-case letters, digits and inner dashes, 1-63 characters')
const Name = z.string().trim().min(1).max(200)

const CreateWorkspaceBody = z.object({ name: Name, slug: Slug.nullish().describe('derived from the name when omitted') })
const CreateWorkspaceBySlugBody = z.object({ name: Name, slug: Slug })
const PatchWorkspaceBody = z.object({ name: Name.nullish(), slug: Slug.nullish() })

const WorkspaceOut = z.object({ id: Uuid, org_id: Uuid, slug: z.string(), name: z.string(), created_at: IsoTime, updated_at: IsoTime })

const TAGS = ['Workspaces']
describeRoute({
  route: ROUTES.createWorkspace,
  summary: 'Create a workspace',
  description: 'A slug taken among the organization\'s active workspaces answers 409.',
  tags: TAGS,
  body: CreateWorkspaceBody,
  responses: { 201: { description: 'The workspace', schema: WorkspaceOut } },
  errors: [409],
})
describeRoute({
  route: ROUTES.createWorkspaceBySlug,
  summary: 'Create a workspace (organization by slug)',
  tags: TAGS,
  body: CreateWorkspaceBySlugBody,
  responses: { 201: { description: 'The workspace', schema: WorkspaceOut } },
  errors: [409],
})
describeRoute({ route: ROUTES.listWorkspaces, summary: 'List active workspaces', tags: TAGS, responses: { 200: { description: 'The workspaces', schema: z.array(WorkspaceOut) } } })
describeRoute({ route: ROUTES.getWorkspace, summary: 'Get a workspace', tags: TAGS, responses: { 200: { description: 'The workspace', schema: WorkspaceOut } } })
describeRoute({
  route: ROUTES.patchWorkspace,
  summary: 'Rename or re-slug a workspace',
  description: 'Paths with the old slug answer 404 at once.',
  tags: TAGS,
  body: PatchWorkspaceBody,
  responses: { 200: { description: 'The workspace', schema: WorkspaceOut } },
  errors: [409],
})
describeRoute({
  route: ROUTES.deleteWorkspace,
  summary: 'Delete a workspace (soft)',
  description: 'The workspace leaves listings and its API keys stop working at once; there is no undelete.',
  tags: TAGS,
  responses: { 204: { description: 'Deleted' } },
})

/** A URL slug from a display name: "Support Bot (EU)" -> "support-bot-eu". */
export function slugFromName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '')
}

export const describeWorkspace = (w: Workspace) => ({
  id: w.id,
  org_id: w.org_id,
  slug: w.slug,
  name: w.name,
  created_at: new Date(w.created_at_ms).toISOString(),
  updated_at: new Date(w.updated_at_ms).toISOString(),
})

export function workspaceRoutes(control: ControlWriter): Hono {
  const app = new Hono()
  const { state } = control

  const create = async (c: Context, orgId: string, slug: string, name: string) => {
    if (state.workspaceBySlug(orgId, slug)) throw conflict(`slug ${slug} is already used in this organization`)
    const id = randomUUID()
    await control.append([{ type: 'workspace.created', payload: { workspace_id: id, org_id: orgId, slug, name } }], actorOf(c))
    const ws = state.workspaces.get(id)
    // Another creation of the slug was folded first.
    if (!ws) throw conflict(`slug ${slug} is already used in this organization`)
    return c.json(describeWorkspace(ws), 201)
  }

  mount(app, ROUTES.createWorkspace, state, async (c) => {
    const body = await jsonBody(c, CreateWorkspaceBody)
    const slug = body.slug ?? slugFromName(body.name)
    if (!SLUG.test(slug)) throw badRequest(`cannot derive a slug from the name ${JSON.stringify(body.name)}; send one`)
    return create(c, targetOrg(c).id, slug, body.name)
  })

  mount(app, ROUTES.createWorkspaceBySlug, state, async (c) => {
    const body = await jsonBody(c, CreateWorkspaceBySlugBody)
    return create(c, targetOrg(c).id, body.slug, body.name)
  })

  mount(app, ROUTES.listWorkspaces, state, (c) => c.json(state.activeWorkspaces(targetOrg(c).id).map(describeWorkspace)))

  mount(app, ROUTES.getWorkspace, state, (c) => c.json(describeWorkspace(targetWorkspace(c))))

  mount(app, ROUTES.patchWorkspace, state, async (c) => {
    const ws = targetWorkspace(c)
    const body = await jsonBody(c, PatchWorkspaceBody)
    const change = { ...(body.name ? { name: body.name } : {}), ...(body.slug && body.slug !== ws.slug ? { slug: body.slug } : {}) }
    if (change.slug && state.workspaceBySlug(ws.org_id, change.slug)) throw conflict(`slug ${change.slug} is already used in this organization`)
    if (Object.keys(change).length) {
      await control.append([{ type: 'workspace.updated', payload: { workspace_id: ws.id, ...change } }], actorOf(c))
      const now = state.workspaces.get(ws.id)!
      if (change.slug && now.slug !== change.slug) throw conflict(`slug ${change.slug} is already used in this organization`)
    }
    return c.json(describeWorkspace(state.workspaces.get(ws.id)!))
  })

  mount(app, ROUTES.deleteWorkspace, state, async (c) => {
    const ws = targetWorkspace(c)
    await control.append([{ type: 'workspace.deleted', payload: { workspace_id: ws.id } }], actorOf(c))
    return c.body(null, 204)
  })

  return app
}
