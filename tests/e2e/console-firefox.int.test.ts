/**
 * The web console in Firefox (Debian's firefox-esr, puppeteer-core over WebDriver
 * BiDi): a smoke test of the path a person takes, against `pnpm start`'s process.
 * The full walk, with its security checks, is console.int.test.ts in Chromium.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchFirefox } from '../support/browser.js'
import { ANSWER, sendAgentTrace, startConsoleService, OWNER_EMAIL, OWNER_PASSWORD, WS_API, type ConsoleService } from '../support/console.js'

let svc: ConsoleService
let ff: Awaited<ReturnType<typeof launchFirefox>>

beforeAll(async () => {
  svc = await startConsoleService()
  expect((await svc.api(`${WS_API}/settings/capture-text`, { method: 'PATCH', body: JSON.stringify({ capture_text: true }) })).status).toBe(200)
  ff = await launchFirefox()
}, 180_000)

afterAll(async () => {
  await ff?.close()
  await svc?.stop()
})

describe('web console (Firefox)', () => {
  it('signs in, lists a trace the OpenTelemetry JS exporter sent, opens its waterfall and its claims', async () => {
    const traceId = await sendAgentTrace(svc.ingest)
    const page = await ff.newPage()
    const res = await page.goto(`${svc.base}/`)
    expect(res!.headers()['content-security-policy']).toContain("script-src 'self'")
    await page.waitForSelector('input[name=email]')
    await page.type('input[name=email]', OWNER_EMAIL)
    await page.type('input[name=password]', OWNER_PASSWORD)
    await page.click('button[type=submit]')
    const link = `[data-testid=trace-link][title="${traceId}"]`
    await page.waitForSelector(link, { timeout: 30_000 })
    await page.click(link)
    await page.waitForSelector('[data-testid=waterfall] .wf-row')
    expect(await page.$$eval('[data-testid=waterfall] .wf-row .wf-type', (els) => els.map((e) => e.textContent))).toEqual(['Agent', 'Retrieval', 'Tool', 'LLM'])
    await page.click('#tab-reliability')
    await page.waitForSelector('[data-testid=claims] li', { timeout: 60_000 })
    expect(await page.$eval('[data-testid=answer]', (e) => e.textContent)).toBe(ANSWER)
    expect(ff.problems).toEqual([])
  })
})
