/**
 * Browser sessions (the web console): the login JWT in an httpOnly, SameSite=Strict
 * cookie, so no script, of this page or any other origin, can read it; and CSRF
 * protection for the requests that cookie authenticates, since a browser attaches
 * it by itself:
 * - a state-changing request must carry `x-svc-csrf`, equal to an HMAC of the session
 *   token under the JWT secret (handed to the page in the login answer and in the
 *   readable `svc_csrf` cookie). Another origin can neither read it nor set a custom
 *   header without a CORS preflight, which this API never grants; and being bound to
 *   the session, a planted csrf cookie is worth nothing;
 * - and, for every cookie-authenticated write and for the session routes themselves,
 *   the browser's own word on where the request comes from must say "this origin":
 *   `Sec-Fetch-Site` when sent, else `Origin` when sent, compared with `Host`.
 * Requests with an API key or `Authorization: Bearer` need none of this: browsers
 * never add those headers on their own.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import type { Context } from 'hono'
import { deleteCookie, getCookie, setCookie } from 'hono/cookie'
import { forbidden } from '@svc/shared/http/errors'

export const SESSION_COOKIE = 'svc_session'
export const CSRF_COOKIE = 'svc_csrf'
export const CSRF_HEADER = 'x-svc-csrf'

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

export function csrfTokenFor(secret: string, sessionToken: string): string {
  return createHmac('sha256', secret).update(`csrf:${sessionToken}`).digest('base64url')
}

/** Whether the client reached us over TLS (by the URL, or a trusted proxy's X-Forwarded-Proto). */
function isHttps(c: Context, trustedProxyHops: number): boolean {
  if (new URL(c.req.url).protocol === 'https:') return true
  return trustedProxyHops > 0 && (c.req.header('x-forwarded-proto') ?? '').split(',')[0]?.trim() === 'https'
}

export function setSessionCookies(c: Context, token: string, csrf: string, ttlSeconds: number, trustedProxyHops: number): void {
  const common = { path: '/', sameSite: 'Strict' as const, secure: isHttps(c, trustedProxyHops), maxAge: ttlSeconds }
  setCookie(c, SESSION_COOKIE, token, { ...common, httpOnly: true })
  // Readable by the console's own script, which sends it back as x-svc-csrf.
  setCookie(c, CSRF_COOKIE, csrf, common)
}

export function clearSessionCookies(c: Context, trustedProxyHops: number): void {
  const common = { path: '/', sameSite: 'Strict' as const, secure: isHttps(c, trustedProxyHops) }
  deleteCookie(c, SESSION_COOKIE, { ...common, httpOnly: true })
  deleteCookie(c, CSRF_COOKIE, common)
}

export const sessionCookie = (c: Context): string | undefined => getCookie(c, SESSION_COOKIE) || undefined

/**
 * Refuses a request the browser says came from another site or origin. Requests
 * without either header (curl, scripts) are not from a browser page and pass.
 */
export function refuseCrossOrigin(c: Context, trustedProxyHops: number): void {
  const site = c.req.header('sec-fetch-site')
  if (site !== undefined) {
    if (site !== 'same-origin' && site !== 'none') throw forbidden(`cross-site request refused (Sec-Fetch-Site: ${site}): the session cookie only works from the console's own origin`)
    return
  }
  const origin = c.req.header('origin')
  if (origin === undefined) return
  let host: string
  try {
    host = new URL(origin).host
  } catch {
    throw forbidden('cross-origin request refused: unreadable Origin')
  }
  const hosts = [c.req.header('host')]
  if (trustedProxyHops > 0) hosts.push(c.req.header('x-forwarded-host')?.split(',')[0]?.trim())
  if (!hosts.includes(host)) throw forbidden(`cross-origin request refused (Origin: ${origin}): the session cookie only works from the console's own origin`)
}

/** For a request the session cookie authenticated: writes need the CSRF token and a same-origin browser. */
export function checkCsrf(c: Context, secret: string, sessionToken: string, trustedProxyHops: number): void {
  if (SAFE_METHODS.has(c.req.method)) return
  refuseCrossOrigin(c, trustedProxyHops)
  const sent = Buffer.from(c.req.header(CSRF_HEADER) ?? '')
  const expected = Buffer.from(csrfTokenFor(secret, sessionToken))
  if (sent.length !== expected.length || !timingSafeEqual(sent, expected))
    throw forbidden(`missing or wrong ${CSRF_HEADER} header: a write authenticated by the session cookie must send the CSRF token from the sign-in answer (also in the ${CSRF_COOKIE} cookie)`)
}
