import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { sign, verify } from 'hono/jwt'
import { randomToken } from './secrets.js'

export interface AccessClaims { sub: string; email: string; iat: number; exp: number }

/**
 * Login tokens are HS256 JWTs. The secret comes from SVC_JWT_SECRET, or is generated
 * once into the data dir (mode 0600); several API replicas must share the env value.
 */
export function loadJwtSecret(configured: string | undefined, dataDir: string): string {
  if (configured) return configured
  const file = join(dataDir, 'jwt-secret')
  if (existsSync(file)) return readFileSync(file, 'utf8').trim()
  mkdirSync(dataDir, { recursive: true })
  const secret = randomToken(64)
  writeFileSync(file, secret, { mode: 0o600, flag: 'wx' })
  return secret
}

export async function issueAccessToken(secret: string, user: { id: string; email: string }, ttlSeconds: number): Promise<string> {
  const now = Math.floor(Date.now() / 1000)
  return sign({ sub: user.id, email: user.email, iat: now, exp: now + ttlSeconds }, secret, 'HS256')
}

/** The claims of a valid, unexpired token; null for anything else. */
export async function verifyAccessToken(secret: string, token: string): Promise<AccessClaims | null> {
  try {
    const claims = (await verify(token, secret, 'HS256')) as Partial<Record<keyof AccessClaims, unknown>>
    // hono checks exp only when present: a token without one would never expire.
    if (typeof claims.sub !== 'string' || typeof claims.email !== 'string' || typeof claims.exp !== 'number' || !Number.isFinite(claims.exp)) return null
    return claims as AccessClaims
  } catch {
    return null
  }
}
