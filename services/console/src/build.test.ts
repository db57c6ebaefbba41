/** The console build for real (esbuild over web/): hashed files, a page without inline script or style, and the freshness check. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildConsole, isFresh, type BuildInfo } from './build.js'

let out: string
let info: BuildInfo

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'console-build-'))
  info = await buildConsole({ outDir: out })
}, 60_000)
afterAll(() => rmSync(out, { recursive: true, force: true }))

describe('console build', () => {
  it('writes a hashed script and stylesheet, and a page that only links them', () => {
    expect(info.script).toMatch(/^main-[A-Z0-9]{8}\.js$/)
    expect(info.stylesheet).toMatch(/^main-[A-Z0-9]{8}\.css$/)
    const html = readFileSync(join(out, 'index.html'), 'utf8')
    expect(html).toContain(`<script type="module" src="/assets/${info.script}"></script>`)
    expect(html).toContain(`<link rel="stylesheet" href="/assets/${info.stylesheet}">`)
    // Nothing a CSP without 'unsafe-inline' would block: no inline script or style, no handlers in markup.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/)
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i)
    expect(readFileSync(join(out, 'assets', info.script), 'utf8')).not.toMatch(/https?:\/\/(?!www\.w3\.org)[a-z0-9.-]+\.[a-z]{2,}\//i)
  })

  it('writes gzip and brotli copies of what compresses beside it, so the api only reads them', () => {
    for (const file of [join(out, 'index.html'), join(out, 'assets', info.script), join(out, 'assets', info.stylesheet)]) {
      const body = readFileSync(file)
      if (body.byteLength <= 1024) continue
      expect(gunzipSync(readFileSync(`${file}.gz`)).equals(body), file).toBe(true)
      expect(brotliDecompressSync(readFileSync(`${file}.br`)).equals(body), file).toBe(true)
    }
    expect(readFileSync(join(out, 'assets', `${info.script}.br`)).byteLength).toBeLessThan(readFileSync(join(out, 'assets', info.script)).byteLength / 2)
  })

  it('records what it read, and is fresh until a build input or its own record changes', () => {
    expect(info.inputs).toEqual(expect.arrayContaining(['services/console/web/main.tsx', 'services/console/src/build.ts', 'services/shared/src/domain/genai.ts']))
    expect(isFresh(out)).toBe(true)
    const file = join(out, 'build-info.json')
    const saved = readFileSync(file, 'utf8')
    writeFileSync(file, JSON.stringify({ ...info, fingerprint: 'stale' }))
    expect(isFresh(out)).toBe(false)
    writeFileSync(file, saved)
    rmSync(join(out, 'assets', info.stylesheet))
    expect(isFresh(out)).toBe(false)
  })
})
