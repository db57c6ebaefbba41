/**
 * Read-API authentication: an API key (x-svc-api-key, or Bearer dr_...), a login
 * JWT (Bearer <jwt>), or, when neither header is sent, the browser session cookie
 * (the same JWT, set by POST /v1/auth/session; its writes are CSRF-checked:
 * session-cookie.ts). Any of them becomes a Principal; what it may do is decided per
 * route by the access table (access.ts), not here.
 */
import type { MiddlewareHandler } from 'hono'
import type { ControlState, Principal } from '@svc/shared/control/state'
import { looksLikeApiKey } from '@svc/shared/control/secrets'
import { verifyAccessToken } from '@svc/shared/control/tokens'
import { credentialFrom } from '@svc/shared/http/credentials'
import { unauthorized } from '@svc/shared/http/errors'
import { checkCsrf, sessionCookie } from '../session-cookie.js'

export type AuthMethod = 'api_key' | 'jwt' | 'session'

declare module 'hono' {
  interface ContextVariableMap {
    // Declared identically by the ingest service; one tsc program sees both.
    principal: Principal
    authMethod: AuthMethod
  }
}

/** `onKeyUsed` hears of every accepted API key (last_used_at); it must not block. */
export function authenticate(state: ControlState, jwtSecret: string, onKeyUsed?: (keyId: string) => void, trustedProxyHops = 0): MiddlewareHandler {
  return async (c, next) => {
    const cred = credentialFrom(c.req)
    const session = cred ? undefined : sessionCookie(c)
    if (!cred && !session) throw unauthorized('missing credentials: send x-svc-api-key, or Authorization: Bearer <API key or access token>')
    if (!cred) {
      const claims = await verifyAccessToken(jwtSecret, session!)
      const user = claims ? state.users.get(claims.sub) : undefined
      if (!user) throw unauthorized('your session has expired: sign in again')
      checkCsrf(c, jwtSecret, session!, trustedProxyHops)
      c.set('principal', { kind: 'user', user_id: user.id, email: user.email })
      c.set('authMethod', 'session')
    } else if (cred.via === 'x-svc-api-key' || looksLikeApiKey(cred.token)) {
      const p = state.resolveApiKey(cred.token)
      if (!p) throw unauthorized('invalid API key')
      onKeyUsed?.(p.key_id)
      c.set('principal', p)
      c.set('authMethod', 'api_key')
    } else {
      const claims = await verifyAccessToken(jwtSecret, cred.token)
      const user = claims ? state.users.get(claims.sub) : undefined
      if (!user) throw unauthorized('invalid or expired access token')
      c.set('principal', { kind: 'user', user_id: user.id, email: user.email })
      c.set('authMethod', 'jwt')
    }
    await next()
  }
}
