/**
 * POST /v1/auth/login (our design: the spec leaves JWT acquisition open), public,
 * and the browser's form of it, POST /v1/auth/session (the same token in an
 * httpOnly cookie, session-cookie.ts) with DELETE /v1/auth/session to sign out.
 * - Rate limits per account and per client address (login-throttle.ts), checked
 *   before the password, so a refused guess learns nothing: 429 + Retry-After.
 * - The same work whether or not the account exists (a dummy hash of the same cost).
 * - A password hashed with older scrypt parameters is renewed after a success, through
 *   a control event, so every replica and a restart see the new hash.
 */
import { Hono, type Context } from 'hono'
import { z } from 'zod'
import type { Cache } from '@svc/shared/cache/types'
import type { ControlWriter } from '@svc/shared/control/control-plane'
import type { PasswordHasher } from '@svc/shared/control/passwords'
import type { User } from '@svc/shared/control/state'
import { issueAccessToken } from '@svc/shared/control/tokens'
import { badRequest, HttpError, unauthorized } from '@svc/shared/http/errors'
import type { Logger } from '@svc/shared/log'
import { PUBLIC_ROUTES } from '../access.js'
import { clientAddress } from '../client-address.js'
import { loginThrottle, type LoginAttempt, type LoginLimits } from '../login-throttle.js'
import { describeRoute } from '../openapi/registry.js'
import { clearSessionCookies, csrfTokenFor, refuseCrossOrigin, setSessionCookies } from '../session-cookie.js'
import { jsonBody } from './auth.js'

const LoginBody = z.object({ email: z.string().min(1).max(320), password: z.string().min(1).max(1024) })

describeRoute({
  route: PUBLIC_ROUTES.login,
  operationId: 'login',
  auth: 'none',
  summary: 'Log in with email and password',
  description:
    'Issues an access token (JWT) to send as `Authorization: Bearer <JWT>`. A wrong email or password answers 401 (the same for both). ' +
    'Too many failed attempts for the account, or from the client address, answer 429 with Retry-After until the window ends.',
  tags: ['Identity'],
  body: LoginBody,
  responses: {
    200: {
      description: 'An access token',
      schema: z.object({ access_token: z.string(), token_type: z.literal('bearer'), expires_in: z.number().int().describe('seconds') }),
    },
  },
  errors: [401, 429, 503],
})
describeRoute({
  route: PUBLIC_ROUTES.createSession,
  operationId: 'createSession',
  auth: 'none',
  summary: 'Sign in a browser (session cookie)',
  description:
    'The same check and limits as login, for browsers (the web console): the access token is set as the httpOnly, SameSite=Strict cookie `svc_session` ' +
    '(Secure over HTTPS), never in the body, so no script can read it. The read API accepts that cookie in place of a credential header; ' +
    'a state-changing request it authenticates must send `x-svc-csrf` with this answer\'s `csrf_token` (also in the readable cookie `svc_csrf`) and come from the same origin. ' +
    'The body must be `application/json`; a request the browser marks cross-site (Sec-Fetch-Site, Origin) answers 403.',
  tags: ['Identity'],
  body: LoginBody,
  responses: {
    200: {
      description: 'Signed in; Set-Cookie svc_session (httpOnly) and svc_csrf',
      schema: z.object({ token_type: z.literal('cookie'), expires_in: z.number().int().describe('seconds'), csrf_token: z.string() }),
    },
  },
  errors: [401, 403, 429, 503],
})
describeRoute({
  route: PUBLIC_ROUTES.deleteSession,
  operationId: 'deleteSession',
  auth: 'none',
  summary: 'Sign a browser out',
  description: 'Clears the session cookies (204, also when none was set). A cross-site request answers 403.',
  tags: ['Identity'],
  responses: { 204: { description: 'Signed out' } },
  errors: [403],
})

export interface LoginRouteDeps {
  control: ControlWriter
  cache: Cache
  jwtSecret: string
  ttlSeconds: number
  passwords: PasswordHasher
  limits: LoginLimits
  /** SVC_TRUSTED_PROXY_HOPS: proxies in front whose X-Forwarded-For is believed. */
  trustedProxyHops: number
  log: Logger
}

export function loginRoutes(deps: LoginRouteDeps): Hono {
  const app = new Hono()
  const { state } = deps.control
  const throttle = loginThrottle(deps.cache, deps.limits)

  const admit = async (email: string, address: string): Promise<LoginAttempt> => {
    let attempt: LoginAttempt
    try {
      attempt = await throttle.attempt(email, address)
    } catch (err) {
      // Without the shared counters nothing bounds guessing: refuse rather than check passwords unlimited.
      deps.log.error({ err }, 'login limits unavailable (cache)')
      throw new HttpError(503, 'unavailable', 'login is unavailable right now', undefined, { 'Retry-After': '5' })
    }
    if (attempt.retryAfterSeconds !== null)
      throw new HttpError(429, 'too_many_requests', `too many failed logins for this account or from this address: retry in ${attempt.retryAfterSeconds} s`, undefined, {
        'Retry-After': String(attempt.retryAfterSeconds),
      })
    return attempt
  }

  /** Stores the password's hash at the current parameters; a failure only leaves the old hash in place. */
  const renewHash = async (user: User, password: string) => {
    try {
      await deps.control.append([{ type: 'user.password_rehashed', payload: { user_id: user.id, password_hash: await deps.passwords.hash(password) } }], `user:${user.id}`)
    } catch (err) {
      deps.log.warn({ err, user_id: user.id }, 'could not renew a password hash')
    }
  }

  /** The body's email and password checked, under the limits; the access token of the account. */
  const checkLogin = async (c: Context): Promise<string> => {
    const { email, password } = await jsonBody(c, LoginBody)
    const attempt = await admit(email, clientAddress(c, deps.trustedProxyHops))
    const user = state.userByEmail(email)
    // Same answer, and the same work, for an unknown user and a wrong password, so logins cannot probe for accounts.
    const stored = user?.password_hash ?? null
    const matches = await deps.passwords.verify(password, stored)
    if (!user || !matches) throw unauthorized('invalid email or password')
    await throttle.succeeded(attempt).catch((err: unknown) => deps.log.warn({ err }, 'could not reset login counters'))
    if (stored !== null && deps.passwords.needsRehash(stored)) await renewHash(user, password)
    return issueAccessToken(deps.jwtSecret, user, deps.ttlSeconds)
  }

  app.on(PUBLIC_ROUTES.login.method, PUBLIC_ROUTES.login.path, async (c) => {
    const access_token = await checkLogin(c)
    return c.json({ access_token, token_type: 'bearer', expires_in: deps.ttlSeconds })
  })

  app.on(PUBLIC_ROUTES.createSession.method, PUBLIC_ROUTES.createSession.path, async (c) => {
    refuseCrossOrigin(c, deps.trustedProxyHops)
    // A cross-site form can post text/plain that reads as JSON (login CSRF); it cannot post application/json without a preflight.
    if (!/^application\/json\b/i.test(c.req.header('content-type') ?? '')) throw badRequest('send the body as application/json')
    const token = await checkLogin(c)
    const csrf_token = csrfTokenFor(deps.jwtSecret, token)
    setSessionCookies(c, token, csrf_token, deps.ttlSeconds, deps.trustedProxyHops)
    c.header('cache-control', 'no-store')
    return c.json({ token_type: 'cookie', expires_in: deps.ttlSeconds, csrf_token })
  })

  app.on(PUBLIC_ROUTES.deleteSession.method, PUBLIC_ROUTES.deleteSession.path, (c) => {
    refuseCrossOrigin(c, deps.trustedProxyHops)
    clearSessionCookies(c, deps.trustedProxyHops)
    return c.body(null, 204)
  })
  return app
}
