/** The console's files as the api serves them: page on console paths only, hashed assets cached for good, the security headers. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync, gzipSync } from 'node:zlib'
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { jsonNotFound } from '@svc/shared/http/errors'
import { consoleStatic, isConsolePath } from './console.js'

function fakeBuild(): string {
  const dir = mkdtempSync(join(tmpdir(), 'console-dist-'))
  mkdirSync(join(dir, 'assets'))
  writeFileSync(join(dir, 'index.html'), '<!doctype html><script type="module" src="/assets/main-AAAA.js"></script>')
  const script = `console.log(${JSON.stringify('x'.repeat(4000))})`
  writeFileSync(join(dir, 'assets', 'main-AAAA.js'), script)
  // The build writes the compressed copies beside the file (services/console/src/build.ts); this one has gzip only.
  writeFileSync(join(dir, 'assets', 'main-AAAA.js.gz'), gzipSync(script))
  writeFileSync(join(dir, 'assets', 'main-AAAA.js.123.ab.tmp'), 'half written')
  return dir
}

function app(dir: string | null) {
  const a = new Hono()
  a.use(consoleStatic(dir))
  a.get('/v1/ping', (c) => c.json({ ok: true }))
  a.notFound(jsonNotFound)
  return a
}

describe('console files', () => {
  const served = app(fakeBuild())

  it('answers the page on console paths, uncached, with a CSP that allows no inline script and no framing', async () => {
    for (const path of ['/', '/sign-in', '/o/acme/w/agents/traces', '/o/acme/w/agents/traces/abc?tab=reliability']) {
      const res = await served.request(path)
      expect(res.status, path).toBe(200)
      expect(res.headers.get('content-type')).toMatch(/^text\/html/)
      expect(res.headers.get('cache-control')).toBe('no-cache')
      const csp = res.headers.get('content-security-policy')!
      expect(csp).toContain("script-src 'self'")
      expect(csp).toContain("frame-ancestors 'none'")
      expect(csp).not.toContain('unsafe-inline')
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    }
  })

  it('serves hashed assets as immutable, compressed when the client accepts it', async () => {
    const res = await served.request('/assets/main-AAAA.js', { headers: { 'accept-encoding': 'gzip' } })
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(res.headers.get('content-type')).toMatch(/^text\/javascript/)
    expect(res.headers.get('content-encoding')).toBe('gzip')
    expect(gunzipSync(Buffer.from(await res.arrayBuffer())).toString()).toContain('console.log')
    const plain = await served.request('/assets/main-AAAA.js')
    expect(plain.headers.get('content-encoding')).toBeNull()
    // No brotli copy: a client asking for brotli first gets the gzip one.
    const br = await served.request('/assets/main-AAAA.js', { headers: { 'accept-encoding': 'br, gzip' } })
    expect(br.headers.get('content-encoding')).toBe('gzip')
    expect((await plain.text()).length).toBeGreaterThan(4000)
  })

  it('leaves everything else to the API: unknown /v1 paths, unknown assets and writes are its JSON 404', async () => {
    expect(await (await served.request('/v1/ping')).json()).toEqual({ ok: true })
    for (const [method, path] of [['GET', '/v1/nope'], ['GET', '/assets/missing.js'], ['GET', '/assets/main-AAAA.js.123.ab.tmp'], ['GET', '/assets/main-AAAA.js.gz'], ['POST', '/'], ['GET', '/../etc/passwd']] as const) {
      const res = await served.request(path, { method })
      expect(res.status, `${method} ${path}`).toBe(404)
      expect(((await res.json()) as { error: string }).error).toBe('not_found')
    }
  })

  it('without a build, says how to make one on console paths and stays out of the way elsewhere', async () => {
    const bare = app(null)
    const res = await bare.request('/')
    expect(res.status).toBe(503)
    expect(await res.text()).toMatch(/pnpm install/)
    expect((await bare.request('/v1/ping')).status).toBe(200)
    expect((await bare.request('/assets/main-AAAA.js')).status).toBe(404)
  })

  it('answers the icon browsers ask every page for with nothing, not a 404', async () => {
    expect((await served.request('/favicon.ico')).status).toBe(204)
  })

  it('knows its paths', () => {
    expect(['/', '/sign-in', '/o/a', '/o'].every(isConsolePath)).toBe(true)
    expect(['/v1/auth/me', '/docs', '/openapi.json', '/health', '/orgs', '/sign-in/x'].some(isConsolePath)).toBe(false)
  })
})
