/**
 * The web console end to end, in Debian's Chromium (playwright-core) against the
 * service as `pnpm start` runs it: sign in, find a trace the OpenTelemetry JS
 * exporter sent a moment earlier, open it, read a claim's evidence; the page's
 * security headers, no console errors, the session cookie out of scripts' reach, a
 * cross-site form post refused, sign-out.
 *
 * CONSOLE_SCREENSHOTS=<dir> saves a screenshot of each view (1280×800, and a phone's
 * 390×844), to look at the layout.
 */
import { createServer, type Server } from 'node:http'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, type BrowserSession } from '../support/browser.js'
import { ANSWER, sendAgentTrace, signIn, startConsoleService, WS_API, type ConsoleService } from '../support/console.js'
import { freePort } from '../support/process.js'

const SHOTS = process.env.CONSOLE_SCREENSHOTS
let svc: ConsoleService
let browser: BrowserSession
let page: Page
let traceId = ''

async function shot(name: string, p: Page = page) {
  if (!SHOTS) return
  mkdirSync(SHOTS, { recursive: true })
  await p.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false })
}

beforeAll(async () => {
  svc = await startConsoleService()
  // Prompt and completion text is stored only when the workspace captures it: the answer's claims need it.
  expect((await svc.api(`${WS_API}/settings/capture-text`, { method: 'PATCH', body: JSON.stringify({ capture_text: true }) })).status).toBe(200)
  browser = await launchBrowser()
  page = await browser.newPage()
}, 180_000)

afterAll(async () => {
  await browser?.close()
  await svc?.stop()
})

describe('web console (Chromium)', () => {
  it('answers / with the sign-in page, under a content security policy without inline scripts or framing', async () => {
    const res = await page.goto(`${svc.base}/`)
    const csp = res!.headers()['content-security-policy']!
    expect(csp).toContain("script-src 'self'")
    expect(csp).toContain("frame-ancestors 'none'")
    expect(csp).not.toContain('unsafe-inline')
    await page.waitForSelector('input[name=email]')
    expect(new URL(page.url()).pathname).toBe('/sign-in')
    expect(await page.title()).toBe('Sign in · svc')
    await shot('sign-in')
    // A wrong password is a readable message, not a crash.
    await page.fill('input[name=email]', 'owner@acme.test')
    await page.fill('input[name=password]', 'wrong password')
    await page.click('button[type=submit]')
    await expect.poll(() => page.textContent('[role=alert]')).toContain('invalid email or password')
    // The failed sign-in's 401 is the one console line a browser writes for it.
    browser.problems.splice(0, browser.problems.length, ...browser.problems.filter((p) => !p.includes('/v1/auth/session')))
    expect(browser.problems).toEqual([])
  })

  it('signs in and lists a trace the OpenTelemetry JS exporter sent a moment earlier, with its figures', async () => {
    traceId = await sendAgentTrace(svc.ingest)
    await signIn(page, svc.base)
    expect(new URL(page.url()).pathname).toBe('/o/acme/w/agents/traces')
    // Live refresh brings it in if it was not assembled yet when the page loaded.
    const link = page.locator(`[data-testid=trace-link][title="${traceId}"]`)
    await link.waitFor({ timeout: 30_000 })
    const row = page.locator('[data-testid=trace-table] tbody tr', { has: link })
    const cells = await row.locator('td').allTextContents()
    // time, project, duration, spans, tokens, cost, grade
    expect(cells[1]).toBe('checkout-bot')
    expect(cells[3]).toBe('4')
    expect(cells[4]).toBe('375')
    expect(cells[5]).toMatch(/^\$0\.\d+/)
    // The session token is out of every script's reach; only the CSRF token is readable.
    const cookies = await page.evaluate(() => document.cookie)
    expect(cookies).toContain('svc_csrf=')
    expect(cookies).not.toContain('svc_session')
    const stored = await browser.context.cookies(svc.base)
    expect(stored.find((c) => c.name === 'svc_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict' })
    await shot('traces')
    expect(browser.problems).toEqual([])
  })

  it('opens the trace: the waterfall tells the span kinds apart and marks the failed tool call', async () => {
    await page.locator(`[data-testid=trace-link][title="${traceId}"]`).click()
    await page.waitForSelector('[data-testid=waterfall] .wf-row')
    expect(new URL(page.url()).pathname).toBe(`/o/acme/w/agents/traces/${traceId}`)
    const rows = page.locator('[data-testid=waterfall] .wf-row')
    await expect.poll(() => rows.count()).toBe(4)
    const kinds = await page.locator('[data-testid=waterfall] .wf-row .wf-type').allTextContents()
    expect(kinds).toEqual(['Agent', 'Retrieval', 'Tool', 'LLM'])
    expect(await page.locator('.wf-row.error .wf-label').textContent()).toBe('execute_tool lookup_order')
    // Keyboard: focus the timeline, arrow down to the LLM call, and its content shows beside it.
    await page.locator('[data-testid=waterfall]').focus()
    for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowDown')
    await expect.poll(() => page.textContent('[data-testid=span-panel] h2')).toContain('chat gpt-4o')
    expect(await page.textContent('[data-testid=span-panel]')).toContain('Refunds are paid in gold bars')
    await shot('trace-timeline')
    expect(browser.problems).toEqual([])
  })

  it("reads a claim's verdict and opens its evidence span in the waterfall", async () => {
    await page.click('#tab-reliability')
    // The engines run once the trace has been quiet for a moment; the tab polls until then.
    const claims = page.locator('[data-testid=claims] li')
    await expect.poll(() => claims.count(), { timeout: 60_000 }).toBe(3)
    expect(await page.textContent('[data-testid=answer]')).toBe(ANSWER)
    expect(await page.locator('[data-testid=answer] .claim-mark.verdict-supported').count()).toBe(2)
    expect(await page.locator('[data-testid=answer] .claim-mark.verdict-unsupported').textContent()).toBe('Refunds are paid in gold bars')
    const unsupported = claims.filter({ hasText: 'gold bars' })
    expect(await unsupported.textContent()).toContain('No retrieved context backed it')
    await shot('trace-reliability')
    const supported = claims.filter({ hasText: 'within 5 business days' })
    await supported.getByRole('button', { name: 'retrieve refund policy' }).click()
    await page.waitForSelector('#tab-timeline[aria-selected=true]')
    expect(new URL(page.url()).searchParams.get('span')).toBeTruthy()
    expect(await page.locator('.wf-row.selected .wf-label').textContent()).toBe('retrieve refund policy')
    const panel = await page.textContent('[data-testid=span-panel]')
    expect(panel).toContain('Retrieved documents')
    expect(panel).toContain('kb/refunds.md')
    expect(panel).toContain('Refunds are issued within 5 business days')
    await shot('trace-evidence')
    for (const tab of ['decisions', 'decomposition', 'sources', 'optimization', 'alignment']) {
      await page.click(`#tab-${tab}`)
      // The tab's content (or its "not computed yet" note), not its loading line.
      await page.waitForSelector(`#panel-${tab} :is(table, svg, blockquote, .empty, [role=alert])`)
      await shot(`trace-${tab}`)
    }
    expect(browser.problems).toEqual([])
  })

  it('reads well on a phone', async () => {
    if (!SHOTS) return
    const phone = await browser.context.newPage()
    await phone.setViewportSize({ width: 390, height: 844 })
    await phone.goto(`${svc.base}/o/acme/w/agents/traces`)
    await phone.waitForSelector('[data-testid=trace-table]')
    await shot('phone-traces', phone)
    await phone.goto(`${svc.base}/o/acme/w/agents/traces/${traceId}?tab=reliability`)
    await phone.waitForSelector('[data-testid=claims]')
    await shot('phone-trace-reliability', phone)
    await phone.close()
    expect(browser.problems).toEqual([])
  })

  it('refuses a cross-site form post that would ride on the session cookie', async () => {
    // A page on another origin posts a form at the API, as an attacker's page would.
    const port = await freePort()
    const target = `${svc.base}${WS_API}/api-keys`
    const evil: Server = createServer((_, res) => {
      res.setHeader('content-type', 'text/html')
      res.end(`<form method="POST" action="${target}" enctype="text/plain"><input name='{"name":"planted","x":"' value='"}'></form><script>document.forms[0].submit()</script>`)
    })
    await new Promise<void>((r) => evil.listen(port, '127.0.0.2', r))
    try {
      const other = await browser.context.newPage()
      const answered = other.waitForResponse((r) => r.url() === target)
      // Only until it starts: its own script navigates it away to the form's target at once.
      await other.goto(`http://127.0.0.2:${port}/`, { waitUntil: 'commit' })
      const res = await answered
      // Refused whether or not the browser sent the cookie (SameSite=Strict keeps it home; the CSRF check refuses it anyway).
      expect([401, 403]).toContain(res.status())
      await other.close()
    } finally {
      // The browser keeps its connection alive; close it rather than wait for the browser to.
      evil.closeAllConnections()
      await new Promise((r) => evil.close(r))
    }
    const keys = (await (await svc.api(`${WS_API}/api-keys`)).json()) as { keys: Array<{ name: string }> }
    expect(keys.keys.map((k) => k.name)).not.toContain('planted')
    browser.problems.splice(0, browser.problems.length, ...browser.problems.filter((p) => !p.includes('/api-keys')))
    expect(browser.problems).toEqual([])
  })

  it('signs out: the session cookie is cleared and the console asks to sign in again', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForSelector('input[name=email]')
    expect((await browser.context.cookies(svc.base)).map((c) => c.name)).toEqual([])
    await page.goto(`${svc.base}/o/acme/w/agents/traces`)
    await page.waitForSelector('input[name=email]')
    expect(new URL(page.url()).searchParams.get('next')).toBe('/o/acme/w/agents/traces')
    expect(browser.problems).toEqual([])
  })
})
