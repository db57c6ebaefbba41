/**
 * Read-API authentication: an API key (x-svc-api-key, or Bearer dr_...) or a login
 * JWT (Bearer <jwt>). Either becomes a Principal; what it may do is decided per
 * route by the access table (access.ts), not here.
 */
import type { MiddlewareHandler } from 'hono'
import type { ControlState, Principal } from '@svc/shared/control/state'
import { looksLikeApiKey } from '@svc/shared/control/secrets'
import { verifyAccessToken } from '@svc/shared/control/tokens'
import { credentialFrom } from '@svc/shared/http/credentials'
import { unauthorized } from '@svc/shared/http/errors'

export type AuthMethod = 'api_key' | 'jwt'

declare module 'hono' {
  interface ContextVariableMap {
    // Declared identically by the ingest service; one tsc program sees both.
    principal: Principal
    authMethod: AuthMethod
  }
}

/** `onKeyUsed` hears of every accepted API key (last_used_at); it must not block. */
export function authenticate(state: ControlState, jwtSecret: string, onKeyUsed?: (keyId: string) => void): MiddlewareHandler {
  return async (c, next) => {
    const cred = credentialFrom(c.req)
    if (!cred) throw unauthorized('missing credentials: send x-svc-api-key, or Authorization: Bearer <API key or access token>')
    if (cred.via === 'x-svc-api-key' || looksLikeApiKey(cred.token)) {
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
