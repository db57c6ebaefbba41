/**
 * Ingest authentication: API keys only (spec "Authentication"). The key comes from
 * `x-svc-api-key` or `Authorization: Bearer dr_...`; a JWT or anything else is 401.
 * The key is resolved against the folded control state on every request, so a
 * revoked key or a soft-deleted workspace stops working as soon as the event folds.
 */
import type { Context, MiddlewareHandler } from 'hono'
import type { ControlState, Principal } from '@svc/shared/control/state'
import { looksLikeApiKey } from '@svc/shared/control/secrets'
import { credentialFrom } from '@svc/shared/http/credentials'
import { unauthorized } from '@svc/shared/http/errors'

export type ApiKeyPrincipal = Extract<Principal, { kind: 'api_key' }>

declare module 'hono' {
  interface ContextVariableMap {
    // The shared Principal union, so the API service can declare the same variable
    // identically (one tsc program sees both declarations). Ingest only ever sets an
    // api_key principal; read it with apiKeyPrincipal().
    principal: Principal
  }
}

/** The raw key of a request, or null when none was sent. */
export const apiKeyFrom = (headers: { header(name: string): string | undefined }): string | null => credentialFrom(headers)?.token ?? null

/**
 * The caller of an ingest request from its headers (HTTP) or metadata (gRPC), or
 * 401. `onUsed` hears of every accepted key (last_used_at); it must not block.
 */
export function authenticate(state: ControlState, headers: { header(name: string): string | undefined }, onUsed?: (keyId: string) => void): ApiKeyPrincipal {
  const raw = apiKeyFrom(headers)
  if (!raw) throw unauthorized('missing API key: send x-svc-api-key or Authorization: Bearer dr_...')
  // Cheap shape check first: a JWT or junk never reaches the hash lookup.
  if (!looksLikeApiKey(raw)) throw unauthorized('invalid API key (ingest accepts API keys only)')
  const principal = state.resolveApiKey(raw)
  if (!principal) throw unauthorized('invalid API key')
  onUsed?.(principal.key_id)
  return principal
}

export function apiKeyAuth(state: ControlState, onUsed?: (keyId: string) => void): MiddlewareHandler {
  return async (c, next) => {
    c.set('principal', authenticate(state, c.req, onUsed))
    await next()
  }
}

/** The api_key principal set by apiKeyAuth (a programming error if absent). */
export function apiKeyPrincipal(c: Context): ApiKeyPrincipal {
  const p = c.get('principal')
  if (p?.kind !== 'api_key') throw new Error('apiKeyAuth must run before this handler')
  return p
}
