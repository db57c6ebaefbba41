/**
 * A real browser for the console's tests and benchmarks: Debian's Chromium
 * (`apt-get install chromium`, installed by .ci/run) driven by playwright-core,
 * headless, in a fresh profile. Chromium's own background traffic (updates, sync,
 * QUIC probes) is switched off: this network refuses it, and a test must not
 * depend on the internet. Every console message of level error, every page error
 * and every failed request is recorded, for tests to assert there are none.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'

export const CHROMIUM = process.env.SVC_CHROMIUM ?? '/usr/bin/chromium'

export interface BrowserSession {
  context: BrowserContext
  /** A new tab whose problems are recorded in `problems`. */
  newPage(): Promise<Page>
  problems: string[]
  close(): Promise<void>
}

export async function launchBrowser(opts: { viewport?: { width: number; height: number } } = {}): Promise<BrowserSession> {
  const profile = mkdtempSync(join(tmpdir(), 'svc-chromium-'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: opts.viewport ?? { width: 1280, height: 800 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  })
  const problems: string[] = []
  const watch = (page: Page) => {
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console error: ${m.text()} (${m.location().url})`)
    })
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`))
    page.on('requestfailed', (r) => {
      // A request the page itself gave up (navigation away, an aborted poll) is not a failure.
      if (r.failure()?.errorText !== 'net::ERR_ABORTED') problems.push(`request failed: ${r.method()} ${r.url()}: ${r.failure()?.errorText}`)
    })
  }
  context.on('page', watch)
  return {
    context,
    problems,
    newPage: async () => context.newPage(),
    close: async () => {
      await context.close()
      rmSync(profile, { recursive: true, force: true })
    },
  }
}

export const FIREFOX = process.env.SVC_FIREFOX ?? '/usr/bin/firefox-esr'

/**
 * Debian's Firefox ESR (`apt-get install firefox-esr`) driven by puppeteer-core over
 * WebDriver BiDi, headless, in a fresh profile, with the services that would call
 * out (updates, telemetry, safe browsing, captive-portal and connectivity checks,
 * remote settings) switched off.
 */
export async function launchFirefox(): Promise<{ browser: import('puppeteer-core').Browser; problems: string[]; newPage(): Promise<import('puppeteer-core').Page>; close(): Promise<void> }> {
  const puppeteer = (await import('puppeteer-core')).default
  const profile = mkdtempSync(join(tmpdir(), 'svc-firefox-'))
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX,
    headless: true,
    userDataDir: profile,
    extraPrefsFirefox: {
      'app.update.enabled': false,
      'browser.safebrowsing.malware.enabled': false,
      'browser.safebrowsing.phishing.enabled': false,
      'browser.search.update': false,
      'datareporting.healthreport.uploadEnabled': false,
      'extensions.update.enabled': false,
      'network.captive-portal-service.enabled': false,
      'network.connectivity-service.enabled': false,
      'services.settings.server': 'http://127.0.0.1:9/',
      'toolkit.telemetry.enabled': false,
    },
  })
  const problems: string[] = []
  return {
    browser,
    problems,
    newPage: async () => {
      const page = await browser.newPage()
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(`console error: ${m.text()}`)
      })
      page.on('pageerror', (e) => problems.push(`page error: ${String(e)}`))
      return page
    },
    close: async () => {
      await browser.close()
      rmSync(profile, { recursive: true, force: true })
    },
  }
}
