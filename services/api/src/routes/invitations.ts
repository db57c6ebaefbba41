/**
 * Redeeming an invitation (POST /v1/auth/invitations/accept, public: the token is the
 * credential). Accounts are global, so the rule that keeps one organization from
 * taking over an account another relies on lives here and in the fold:
 * - an account without a password chooses one here, unless another organization
 *   already relies on it (holds roles there): only its own login could vouch for it;
 * - an account with a password is never given another: the call must carry that
 *   account's own access token, and changes no credential.
 * The fold decides in topic order (state.ts, member.invitation_accepted), so racing
 * redemptions, or a password set meanwhile, cannot slip through between check and write.
 */
import { Hono, type Context } from 'hono'
import { z } from 'zod'
import type { ControlWriter } from '@svc/shared/control/control-plane'
import { hashInvitationToken, looksLikeApiKey } from '@svc/shared/control/secrets'
import type { User } from '@svc/shared/control/state'
import { verifyAccessToken } from '@svc/shared/control/tokens'
import { credentialFrom } from '@svc/shared/http/credentials'
import { conflict, forbidden, HttpError, notFound, unauthorized, unprocessable } from '@svc/shared/http/errors'
import { PUBLIC_ROUTES } from '../access.js'
import { describeRoute } from '../openapi/registry.js'
import { RoleOut, Uuid } from '../openapi/schemas.js'
import { jsonBody } from './auth.js'

const AcceptBody = z.object({
  token: z.string().min(1).max(200),
  password: z.string().min(8).max(1024).optional().describe('only for an account without a password: the password it will log in with'),
})

describeRoute({
  route: PUBLIC_ROUTES.acceptInvitation,
  operationId: 'acceptInvitation',
  auth: 'none',
  summary: 'Redeem an invitation to an organization',
  description:
    'The token from POST /v1/orgs/{org_id}/members activates the membership, once. A new account sends the password it chooses; ' +
    'an account that already has a password sends its own access token (Authorization: Bearer <JWT>) instead, and no credential changes. ' +
    'Unknown, used or cancelled token → 404; expired → 410; an existing account without its token → 401, with another account\'s → 403; ' +
    'a password for an account that has one, or none for one that has none → 422; a password for an account another organization relies on, ' +
    'or an inviter who no longer holds the role offered → 409.',
  tags: ['Identity'],
  body: AcceptBody,
  responses: {
    200: {
      description: 'The membership is active',
      schema: z.object({ org_id: Uuid, user_id: Uuid, email: z.string(), role: RoleOut, workspace_id: Uuid.nullable(), password_set: z.boolean() }),
    },
  },
  errors: [401, 403, 404, 409, 410, 422],
})

export interface InvitationRouteDeps {
  control: ControlWriter
  jwtSecret: string
  /** Hashes the password a new account chooses. */
  hashPassword: (password: string) => Promise<string>
}

/** The user a request's bearer access token names; null without one; 401 for an API key or an invalid token. */
async function callerOf(c: Context, jwtSecret: string): Promise<string | null> {
  const cred = credentialFrom(c.req)
  if (!cred) return null
  if (cred.via === 'x-svc-api-key' || looksLikeApiKey(cred.token)) throw unauthorized('an invitation is redeemed by the account itself: send its access token, not an API key')
  const claims = await verifyAccessToken(jwtSecret, cred.token)
  if (!claims) throw unauthorized('invalid or expired access token')
  return claims.sub
}

/** The password hash the redemption sets (null: none), or the reason it cannot go ahead. */
async function passwordFor(deps: InvitationRouteDeps, user: User, orgId: string, caller: string | null, password: string | undefined): Promise<string | null> {
  if (caller !== null && caller !== user.id) throw forbidden('this invitation is for another account')
  if (user.password_hash !== null) {
    if (password !== undefined) throw unprocessable('this account already has a password; redeeming an invitation never changes it: log in and send the access token instead')
    if (caller === null) throw unauthorized('this account already exists: log in to it and send its access token (Authorization: Bearer) to accept')
    return null
  }
  if (password === undefined) throw unprocessable('choose a password (8 characters or more) for this new account')
  if (deps.control.state.holdsRolesOutside(user.id, orgId)) throw conflict('this account belongs to members of another organization, so an invitation cannot give it a password')
  return deps.hashPassword(password)
}

export function invitationRoutes(deps: InvitationRouteDeps): Hono {
  const app = new Hono()
  const { state } = deps.control
  const route = PUBLIC_ROUTES.acceptInvitation
  app.on(route.method, route.path, async (c) => {
    const body = await jsonBody(c, AcceptBody)
    const caller = await callerOf(c, deps.jwtSecret)
    const inv = state.invitationByTokenHash(hashInvitationToken(body.token))
    if (!inv || inv.status !== 'pending') throw notFound('no pending invitation has this token (unknown, already used, or cancelled)')
    if (Date.now() > inv.expires_at_ms) throw new HttpError(410, 'gone', 'this invitation has expired: ask for a new one')
    if (!state.invitationBacked(inv)) throw conflict('whoever sent this invitation no longer holds the role it offers: ask for a new one')
    const user = state.users.get(inv.user_id)
    if (!user) throw notFound('no pending invitation has this token')
    const password_hash = await passwordFor(deps, user, inv.org_id, caller, body.password)
    await deps.control.append([{ type: 'member.invitation_accepted', payload: { invitation_id: inv.id, user_id: user.id, password_hash } }], `user:${user.id}`)
    // The fold had the last word: another redemption, a cancellation or a password may have come first.
    if (state.invitations.get(inv.id)?.status !== 'accepted' || (password_hash !== null && state.users.get(user.id)?.password_hash !== password_hash))
      throw conflict('the invitation or the account changed meanwhile (redeemed, cancelled, or given a password): try again')
    return c.json({ org_id: inv.org_id, user_id: user.id, email: user.email, role: inv.role, workspace_id: inv.workspace_id, password_set: password_hash !== null })
  })
  return app
}
