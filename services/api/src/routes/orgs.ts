/**
 * Organizations and their members: GET/PATCH the organization, the member list,
 * inviting a member (our addition: the spec leaves issuing credentials open), role
 * changes organization-wide or scoped to one workspace, removal, and the transfer
 * of ownership (the only owner-gated route).
 *
 * Accounts are global, so an organization never sets a credential: adding a member
 * makes an invitation that the person redeems (routes/invitations.ts), choosing a
 * password only when the account has none and no other organization relies on it.
 *
 * Granting is bounded by what the caller holds, where it holds it: nobody grants a
 * role above their own, and an API key (whose authority is its workspace's) grants
 * only roles scoped to its own workspace. An organization always keeps an owner.
 */
import { randomUUID } from 'node:crypto'
import { Hono, type Context } from 'hono'
import { z } from 'zod'
import { ENGINE_NAMES } from '@svc/shared/bus/topics'
import type { ControlWriter, NewControlEvent } from '@svc/shared/control/control-plane'
import { ROLE_RANK, RoleSchema, type Role } from '@svc/shared/control/events'
import { hashInvitationToken, newInvitationToken } from '@svc/shared/control/secrets'
import type { ControlState, Org } from '@svc/shared/control/state'
import { badRequest, conflict, forbidden, notFound, unprocessable } from '@svc/shared/http/errors'
import { mount, ROUTES, targetOrg } from '../access.js'
import { actorOf } from '../actor.js'
import { describeRoute } from '../openapi/registry.js'
import { IsoTime, RoleOut, Uuid } from '../openapi/schemas.js'
import { jsonBody } from './auth.js'

const PatchOrgBody = z.object({
  name: z.string().trim().min(1).max(200).nullish(),
  contact_email: z.string().email().max(320).nullish(),
  team_count: z.string().max(64).nullish(),
  // Beyond the spec: the organization-level engine gate (docs/api.md).
  engines: z.record(z.boolean()).optional().describe('organization-level engine gate: engine name -> allowed, merged into the stored gate'),
})
const AddMemberBody = z.object({
  email: z.string().email().max(320),
  role: RoleSchema,
  workspace_id: z.string().uuid().nullish(),
  // Refused with 422: an organization never sets the password of a (global) account.
  password: z.unknown().optional().describe('not accepted (422): the invited person chooses a password when redeeming the invitation'),
})
const PatchMemberBody = z.object({ new_role: RoleSchema, target_workspace_id: z.string().uuid().nullish() })
const TransferBody = z.object({ to_user_id: z.string().uuid() })
const UserParams = z.object({ user_id: z.string().describe('user UUID') })

const OrgOut = z.object({
  id: Uuid,
  slug: z.string(),
  name: z.string(),
  contact_email: z.string().nullable(),
  team_count: z.string().nullable(),
  engines: z.record(z.boolean()).describe('every engine name -> allowed by the organization'),
  created_at: IsoTime,
  updated_at: IsoTime,
})
const MemberOut = z.object({
  user_id: Uuid,
  email: z.string().nullable(),
  role: RoleOut.nullable().describe('organization-wide role, or null'),
  workspace_roles: z.array(z.object({ workspace_id: Uuid, slug: z.string(), role: RoleOut })),
  status: z.enum(['active', 'invited', 'expired']).describe('invited/expired: the roles shown wait for the invitation to be redeemed and give nothing yet'),
  invitation_expires_at: IsoTime.nullable().describe('while invited or expired'),
})
const InvitationOut = z.object({
  user_id: Uuid,
  email: z.string(),
  role: RoleOut,
  workspace_id: Uuid.nullable(),
  status: z.literal('invited'),
  existing_user: z.boolean().describe('the address already had an account: its credentials are untouched'),
  invitation_token: z.string().describe('single use; deliver it to the person out of band. Shown in this response only'),
  invitation_expires_at: IsoTime,
})

const TAGS = ['Organizations']
describeRoute({ route: ROUTES.getOrg, summary: 'Get the organization', tags: TAGS, responses: { 200: { description: 'The organization', schema: OrgOut } } })
describeRoute({
  route: ROUTES.patchOrg,
  summary: 'Update the organization',
  description: 'Send only what changes; null clears contact_email or team_count. Unknown engine names answer 400.',
  tags: TAGS,
  body: PatchOrgBody,
  responses: { 200: { description: 'The organization', schema: OrgOut } },
})
describeRoute({ route: ROUTES.listMembers, summary: 'List members', tags: TAGS, responses: { 200: { description: 'One entry per user', schema: z.object({ members: z.array(MemberOut) }) } } })
describeRoute({
  route: ROUTES.addMember,
  summary: 'Invite a member',
  description:
    'Makes an invitation: the role (organization-wide, or scoped to workspace_id) takes effect once the person redeems the token with POST /v1/auth/invitations/accept. ' +
    'A new address gets an account without a password (chosen when redeeming); an existing account keeps its credentials. ' +
    'A password in the body answers 422; an address that is already an active member with a password answers 409. Nobody grants a role above their own.',
  tags: TAGS,
  body: AddMemberBody,
  responses: { 201: { description: 'The pending membership and its one-time token', schema: InvitationOut } },
  errors: [409, 422],
})
describeRoute({
  route: ROUTES.patchMember,
  summary: "Change a member's role",
  description: 'Promoting to owner adds an owner; demoting the last owner answers 409.',
  tags: TAGS,
  params: UserParams,
  body: PatchMemberBody,
  responses: { 200: { description: 'The member', schema: MemberOut } },
  errors: [409],
})
describeRoute({
  route: ROUTES.removeMember,
  summary: 'Remove a member',
  description: 'Removes every role of the user in the organization, and cancels a pending invitation; the last owner answers 409.',
  tags: TAGS,
  params: UserParams,
  responses: { 204: { description: 'Removed' } },
  errors: [409],
})
describeRoute({
  route: ROUTES.transferOwnership,
  summary: 'Transfer ownership',
  description: 'By a logged-in owner: the target (a member) becomes owner, the caller admin.',
  tags: TAGS,
  body: TransferBody,
  responses: { 200: { description: 'Both members after the transfer', schema: z.object({ org_id: Uuid, owner: MemberOut, previous_owner: MemberOut }) } },
})

export const describeOrg = (o: Org) => ({
  id: o.id,
  slug: o.slug,
  name: o.name,
  contact_email: o.contact_email,
  team_count: o.team_count,
  engines: Object.fromEntries(ENGINE_NAMES.map((n) => [n, o.engine_gates[n] !== false])),
  created_at: new Date(o.created_at_ms).toISOString(),
  updated_at: new Date(o.updated_at_ms).toISOString(),
})

/**
 * One entry per user: the organization-wide role (or null) and roles scoped to single
 * workspaces; for a person who only has a pending invitation, the roles it offers.
 */
function describeMember(state: ControlState, orgId: string, userId: string) {
  const user = state.users.get(userId)
  const active = state.membersOf(orgId).filter((m) => m.user_id === userId)
  const invitation = active.length ? undefined : state.pendingInvitationsOf(orgId).find((i) => i.user_id === userId)
  const ms = invitation ? [invitation] : active
  return {
    user_id: userId,
    email: user?.email ?? null,
    role: ms.find((m) => m.workspace_id === null)?.role ?? null,
    workspace_roles: ms
      .filter((m) => m.workspace_id !== null)
      .flatMap((m) => {
        const ws = state.workspaces.get(m.workspace_id!)
        return ws && ws.deleted_at_ms === null ? [{ workspace_id: ws.id, slug: ws.slug, role: m.role }] : []
      }),
    status: !invitation ? ('active' as const) : invitation.expires_at_ms < Date.now() ? ('expired' as const) : ('invited' as const),
    invitation_expires_at: invitation ? new Date(invitation.expires_at_ms).toISOString() : null,
  }
}

/** Holds a role in the organization (a pending invitation does not count). */
const isMember = (state: ControlState, orgId: string, userId: string) => state.membersOf(orgId).some((m) => m.user_id === userId)
const isInvited = (state: ControlState, orgId: string, userId: string) => state.pendingInvitationsOf(orgId).some((i) => i.user_id === userId)

export interface OrgRouteOptions {
  /** SVC_INVITATION_TTL_HOURS: how long an invitation can be redeemed. */
  invitationTtlHours: number
}

export function orgRoutes(control: ControlWriter, opts: OrgRouteOptions): Hono {
  const app = new Hono()
  const { state } = control

  /** 403 unless the caller may grant `role` at this scope (null = organization-wide). */
  const assertCanGrant = (c: Context, org: Org, role: Role, workspaceId: string | null) => {
    if (workspaceId !== null) {
      const ws = state.workspaces.get(workspaceId)
      if (!ws || ws.org_id !== org.id || ws.deleted_at_ms !== null) throw badRequest(`workspace ${workspaceId} is not an active workspace of this organization`)
    }
    const p = c.get('principal')
    if (p.kind === 'api_key' && workspaceId !== p.workspace_id) throw forbidden('an API key grants roles only within its own workspace (send target_workspace_id)')
    const mine = state.roleFor(p, org.id, workspaceId)
    if (mine === null || ROLE_RANK[mine] < ROLE_RANK[role]) throw forbidden(`you cannot grant ${role}: it is above your role ${mine ?? '(none)'} here`)
  }

  /** 403 when the member's organization-wide role is above the caller's. */
  const assertNotAbove = (c: Context, org: Org, userId: string, action: string) => {
    const theirs = state.roleFor({ kind: 'user', user_id: userId, email: '' }, org.id, null)
    const mine = state.roleFor(c.get('principal'), org.id, null)
    if (theirs && (!mine || ROLE_RANK[theirs] > ROLE_RANK[mine])) throw forbidden(`you cannot ${action} a member whose role (${theirs}) is above yours`)
  }

  /** 409 when this change would leave the organization without an owner. */
  const assertKeepsOwner = (org: Org, userId: string) => {
    const owners = state.ownersOf(org.id)
    if (owners.length === 1 && owners[0] === userId) throw conflict('the organization must keep an owner: transfer ownership first')
  }

  mount(app, ROUTES.getOrg, state, (c) => c.json(describeOrg(targetOrg(c))))

  mount(app, ROUTES.patchOrg, state, async (c) => {
    const org = targetOrg(c)
    const body = await jsonBody(c, PatchOrgBody)
    const unknownEngines = Object.keys(body.engines ?? {}).filter((n) => !(ENGINE_NAMES as readonly string[]).includes(n))
    if (unknownEngines.length) throw badRequest(`unknown engine ${unknownEngines.join(', ')}`, { accepted: ENGINE_NAMES })
    const change = {
      ...(body.name ? { name: body.name } : {}),
      ...(body.contact_email !== undefined ? { contact_email: body.contact_email } : {}),
      ...(body.team_count !== undefined ? { team_count: body.team_count } : {}),
      ...(body.engines ? { engine_gates: body.engines } : {}),
    }
    if (Object.keys(change).length) await control.append([{ type: 'org.updated', payload: { org_id: org.id, ...change } }], actorOf(c))
    return c.json(describeOrg(state.orgs.get(org.id)!))
  })

  mount(app, ROUTES.listMembers, state, (c) => {
    const org = targetOrg(c)
    const users = [...new Set([...state.membersOf(org.id), ...state.pendingInvitationsOf(org.id)].map((m) => m.user_id))]
    return c.json({ members: users.map((u) => describeMember(state, org.id, u)) })
  })

  mount(app, ROUTES.addMember, state, async (c) => {
    const org = targetOrg(c)
    const body = await jsonBody(c, AddMemberBody)
    if (body.password !== undefined)
      throw unprocessable('an organization never sets a member\'s password: send the invitation_token of the answer to the person, who chooses a password when redeeming it')
    const workspaceId = body.workspace_id ?? null
    assertCanGrant(c, org, body.role, workspaceId)
    const existing = state.userByEmail(body.email)
    // A member without a password (added before invitations) may be invited again to choose one.
    if (existing?.password_hash && isMember(state, org.id, existing.id))
      throw conflict(`${existing.email} is already a member: change the role with PATCH /v1/orgs/${org.id}/members/${existing.id}`)
    const events: NewControlEvent[] = []
    const userId = existing?.id ?? randomUUID()
    if (!existing) events.push({ type: 'user.created', payload: { user_id: userId, email: body.email.toLowerCase(), password_hash: null } })
    const token = newInvitationToken()
    const invitationId = randomUUID()
    const expiresAtMs = Date.now() + opts.invitationTtlHours * 3_600_000
    events.push({
      type: 'member.invited',
      payload: { invitation_id: invitationId, org_id: org.id, user_id: userId, role: body.role, workspace_id: workspaceId, token_hash: hashInvitationToken(token), expires_at_ms: expiresAtMs },
    })
    await control.append(events, actorOf(c))
    const user = state.users.get(userId)
    // Another replica created the account first (the fold kept theirs and ignored ours), or replaced this invitation.
    if (!user || state.invitations.get(invitationId)?.status !== 'pending') throw conflict(`${body.email} was invited by another request at the same moment: try again`)
    return c.json(
      { user_id: user.id, email: user.email, role: body.role, workspace_id: workspaceId, status: 'invited' as const, existing_user: existing !== undefined, invitation_token: token, invitation_expires_at: new Date(expiresAtMs).toISOString() },
      201,
    )
  })

  mount(app, ROUTES.patchMember, state, async (c) => {
    const org = targetOrg(c)
    const userId = c.req.param('user_id') ?? ''
    if (!isMember(state, org.id, userId)) throw notFound(`user ${userId} is not a member of this organization`)
    const body = await jsonBody(c, PatchMemberBody)
    const workspaceId = body.target_workspace_id ?? null
    assertCanGrant(c, org, body.new_role, workspaceId)
    assertNotAbove(c, org, userId, 'change the role of')
    // Promoting to owner adds an owner; demoting the last one is refused.
    if (workspaceId === null && body.new_role !== 'owner') assertKeepsOwner(org, userId)
    await control.append([{ type: 'member.role_set', payload: { org_id: org.id, user_id: userId, role: body.new_role, workspace_id: workspaceId } }], actorOf(c))
    return c.json(describeMember(state, org.id, userId))
  })

  mount(app, ROUTES.removeMember, state, async (c) => {
    const org = targetOrg(c)
    const userId = c.req.param('user_id') ?? ''
    // Removing an invited person cancels the invitation.
    if (!isMember(state, org.id, userId) && !isInvited(state, org.id, userId)) throw notFound(`user ${userId} is not a member of this organization`)
    assertNotAbove(c, org, userId, 'remove')
    assertKeepsOwner(org, userId)
    await control.append([{ type: 'member.removed', payload: { org_id: org.id, user_id: userId } }], actorOf(c))
    return c.body(null, 204)
  })

  mount(app, ROUTES.transferOwnership, state, async (c) => {
    const org = targetOrg(c)
    const p = c.get('principal')
    const body = await jsonBody(c, TransferBody)
    if (p.kind !== 'user') throw forbidden('ownership is transferred by a logged-in owner')
    if (body.to_user_id === p.user_id) throw badRequest('you already own this organization')
    if (!isMember(state, org.id, body.to_user_id)) throw notFound(`user ${body.to_user_id} is not a member of this organization`)
    await control.append(
      [
        { type: 'member.role_set', payload: { org_id: org.id, user_id: body.to_user_id, role: 'owner', workspace_id: null } },
        { type: 'member.role_set', payload: { org_id: org.id, user_id: p.user_id, role: 'admin', workspace_id: null } },
      ],
      actorOf(c),
    )
    return c.json({ org_id: org.id, owner: describeMember(state, org.id, body.to_user_id), previous_owner: describeMember(state, org.id, p.user_id) })
  })

  return app
}
