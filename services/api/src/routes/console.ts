/**
 * The web console (services/console), served by the api process beside the REST
 * API: `/`, `/sign-in` and every path under `/o/` answer the console's index.html
 * (the console routes in the browser), `/assets/<file>` its hashed, immutable
 * script and stylesheet. Everything else falls through to the API, so an unknown
 * `/v1/...` path is still the JSON 404.
 *
 * A middleware rather than routes: these are files, not API operations, so they
 * stay out of the access table and the OpenAPI document. The build is read into
 * memory once (a few hundred KB), with the gzip and brotli copies the build wrote
 * beside what compresses (services/console/src/build.ts).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { MiddlewareHandler } from 'hono'

/**
 * What every console response carries: scripts and styles from this origin only (no
 * inline ones, nothing from elsewhere), no framing, no referrer, no sniffing.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
}

interface Asset {
  body: Uint8Array
  gzip: Uint8Array | null
  br: Uint8Array | null
  type: string
}

function asset(path: string, type: string): Asset {
  const copy = (suffix: string) => (existsSync(path + suffix) ? readFileSync(path + suffix) : null)
  return { body: readFileSync(path), type, gzip: copy('.gz'), br: copy('.br') }
}

/** Paths the console answers with its page; the browser-side router (web/routes.tsx) decides which view. */
export function isConsolePath(path: string): boolean {
  return path === '/' || path === '/sign-in' || path === '/o' || path.startsWith('/o/')
}

/** Loads a build (dist/ of services/console) into memory; null when there is none. */
export function loadConsole(dir: string): { index: Asset; assets: Map<string, Asset> } | null {
  let index: Asset
  try {
    index = asset(join(dir, 'index.html'), TYPES['.html']!)
  } catch {
    return null
  }
  const assets = new Map<string, Asset>()
  // The compressed copies (.br, .gz) and half-written files (.tmp) have no type of their own here.
  for (const name of readdirSync(join(dir, 'assets'))) {
    const ext = name.slice(name.lastIndexOf('.'))
    if (TYPES[ext]) assets.set(name, asset(join(dir, 'assets', name), TYPES[ext]))
  }
  return { index, assets }
}

/**
 * Serves the console from `dir`; with no build there (dir null, or not built), the
 * console paths answer 503 with how to build it, and the REST API works as ever.
 */
export function consoleStatic(dir: string | null): MiddlewareHandler {
  const build = dir ? loadConsole(dir) : null
  return async (c, next) => {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return next()
    const path = c.req.path
    // Browsers ask every page of the origin for it (the console's page says data:, but /docs and JSON answers do not): no icon, and no 404 in their consoles.
    if (path === '/favicon.ico') return c.body(null, 204, { 'cache-control': 'public, max-age=86400' })
    const name = path.startsWith('/assets/') ? path.slice('/assets/'.length) : null
    if (name === null && !isConsolePath(path)) return next()
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) c.header(k, v)
    if (!build) {
      if (name !== null) return next()
      return c.text('The web console is not built. Run `pnpm install` (or `pnpm --filter @svc/console build`) and restart; the REST API is under /v1 (reference: /docs).\n', 503)
    }
    const file = name === null ? build.index : build.assets.get(name)
    if (!file) return next()
    // Hashed names never change content; the page itself must be asked for again, so a new build is picked up.
    c.header('cache-control', name === null ? 'no-cache' : 'public, max-age=31536000, immutable')
    c.header('content-type', file.type)
    c.header('vary', 'accept-encoding')
    const accept = c.req.header('accept-encoding') ?? ''
    const [body, encoding] = file.br && /\bbr\b/.test(accept) ? [file.br, 'br'] : file.gzip && /\bgzip\b/.test(accept) ? [file.gzip, 'gzip'] : [file.body, null]
    if (encoding) c.header('content-encoding', encoding)
    c.header('content-length', String(body.byteLength))
    return c.req.method === 'HEAD' ? c.body(null) : c.body(body as Uint8Array<ArrayBuffer>)
  }
}
