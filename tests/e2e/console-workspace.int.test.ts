/**
 * The console's workspace dashboards and admin settings end to end, in Debian's
 * Chromium (playwright-core) against the service as `pnpm start` runs it: traces
 * from the OpenTelemetry JS exporter and coding-agent activity first, then every
 * dashboard with that data (the latency drill-down opening a trace), settings changed
 * through the forms and read back from the API, an API key created (shown once, it
 * works on ingest) and revoked (it stops), a member invited, and that member, a
 * viewer, signed in and kept out of the admin pages. No console error in any step
 * but the API's own refusals the steps provoke.
 *
 * CONSOLE_SCREENSHOTS=<dir> saves each page at 1280×800 and at a phone's 390×844.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, type BrowserSession } from '../support/browser.js'
import { CONSOLE_KEY, sendAgentTrace, signIn, startConsoleService, WS_API, type ConsoleService } from '../support/console.js'
import { freePort } from '../support/process.js'
import { eventually } from '../support/stack.js'

const SHOTS = process.env.CONSOLE_SCREENSHOTS
const W = '/o/acme/w/agents'
const VIEWER_EMAIL = 'viewer@acme.test'
const VIEWER_PASSWORD = 'a viewer of many traces'
let svc: ConsoleService
let browser: BrowserSession
let page: Page
const traceIds: string[] = []

/** Saves the page at the desktop size and, when asked for, at a phone's. */
async function shot(name: string, opts: { phone?: boolean } = {}) {
  if (!SHOTS) return
  mkdirSync(SHOTS, { recursive: true })
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true })
  if (opts.phone === false) return
  await page.setViewportSize({ width: 390, height: 844 })
  await page.waitForTimeout(150) // charts redraw at the new width (ResizeObserver)
  await page.screenshot({ path: join(SHOTS, `phone-${name}.png`), fullPage: true })
  await page.setViewportSize({ width: 1280, height: 800 })
}

async function json<T>(path: string, init?: RequestInit): Promise<T> {
  const res = await svc.api(path, init)
  expect(res.status, `${init?.method ?? 'GET'} ${path}`).toBeLessThan(300)
  return (await res.json()) as T
}

/** Forgets the console lines a step provoked on purpose (the browser logs every 4xx answer), then expects none other. */
function noProblems(...expected: RegExp[]) {
  const left = browser.problems.filter((p) => !expected.some((e) => e.test(p)))
  browser.problems.length = 0
  expect(left).toEqual([])
}

/** A console page, loaded and rendered (its heading shown). */
async function open(path: string, heading: string) {
  await page.goto(`${svc.base}${W}${path}`)
  await page.getByRole('heading', { level: 1, name: heading }).waitFor()
}

async function sendCodingActivity() {
  const now = Date.now()
  const res = await fetch(`${svc.ingest}/v1/otlp/coding-agent/v1/activity`, {
    method: 'POST',
    headers: { 'x-svc-api-key': CONSOLE_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({
      agent: 'aider',
      user_email: 'dana@acme.test',
      session_id: 'dana-s1',
      activities: [
        { type: 'api_request', timestamp: new Date(now - 60_000).toISOString(), model: 'gpt-4o', cost_usd: 0.2, input_tokens: 100, output_tokens: 50 },
        {
          type: 'commit',
          timestamp: now - 30_000,
          commit_sha: 'c0ffee12',
          repository: 'acme/api',
          branch: 'main',
          message: 'Add retries to the order lookup',
          files: [{ path: 'src/orders.ts', lines_added: 12, lines_removed: 3 }, { path: 'README.md', lines_added: 1 }],
        },
      ],
    }),
  })
  expect(res.status).toBe(202)
}

beforeAll(async () => {
  // The LLM credential the test stores points at a loopback port nobody listens on (allowed here), so no engine call leaves the machine.
  svc = await startConsoleService({ SVC_EGRESS_ALLOW_PRIVATE: 'true' })
  await json(`${WS_API}/settings/capture-text`, { method: 'PATCH', body: JSON.stringify({ capture_text: true }) })
  for (let i = 0; i < 3; i++) traceIds.push(await sendAgentTrace(svc.ingest))
  await sendCodingActivity()
  // Dashboards read roll-ups and engine results: wait until the data is in, so each page below renders it on first load.
  await eventually(async () => (await json<{ data: { totals: { trace_count: number } } }>(`${WS_API}/usage/summary?period=day`)).data.totals.trace_count === 3, 60_000, 500)
  await eventually(async () => (await json<{ sources: Array<{ domain: string }> }>(`${WS_API}/sources`)).sources.some((s) => s.domain === 'kb'), 60_000, 500)
  await eventually(async () => (await json<{ commits: unknown[] }>(`${WS_API}/coding-agent/commits`)).commits.length === 1, 60_000, 500)
  browser = await launchBrowser()
  page = await browser.newPage()
  await signIn(page, svc.base)
}, 240_000)

afterAll(async () => {
  await browser?.close()
  await svc?.stop()
})

describe('console dashboards (Chromium)', () => {
  it('usage: totals, daily charts and the breakdown by model and project, with their tables', async () => {
    await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Dashboards' }).click()
    await page.getByRole('heading', { level: 1, name: 'Usage' }).waitFor()
    expect(new URL(page.url()).pathname).toBe(`${W}/dashboards/usage`)
    const totals = page.getByTestId('usage-totals')
    await expect.poll(() => totals.textContent()).toContain('Traces3')
    expect(await totals.textContent()).toContain('Spans12')
    // Charts are SVG with an accessible name; each has its figures as a table one click away.
    // The daily charts come from their own request (usage/timeseries): wait for them, not only the totals.
    await page.getByRole('img', { name: 'Cost per day' }).waitFor()
    for (const name of ['Cost per day', 'Tokens per day', 'Traces per day', 'Cost by model', 'Cost by project']) expect(await page.getByRole('img', { name }).count(), name).toBe(1)
    expect(await page.getByRole('img', { name: 'Cost by model' }).textContent()).toContain('gpt-4o')
    const byProject = page.locator('figure', { has: page.getByRole('heading', { name: 'Cost by project' }) })
    await byProject.getByText('Table').click()
    // The table says what the API says.
    const api = (await json<{ data: { by_project: Array<{ project_id: string; trace_count: number; llm_calls: number }> } }>(`${WS_API}/usage/summary?period=week`)).data.by_project
    expect(api).toHaveLength(1)
    expect(await byProject.locator('tbody tr').first().locator('td').allTextContents()).toEqual(['checkout-bot', '3', String(api[0]!.llm_calls), expect.stringMatching(/^\$0\.\d+/)])
    // The measure is in the URL: requests by model.
    await page.getByLabel('Measure').selectOption('requests')
    await page.getByRole('img', { name: 'LLM requests by model' }).waitFor()
    expect(new URL(page.url()).searchParams.get('measure')).toBe('requests')
    await shot('dashboard-usage')
    noProblems()
  })

  it('latency: percentiles by phase, and the failed tool calls drill down to their traces, each opening its trace', async () => {
    await page.getByRole('navigation', { name: 'Dashboards' }).getByRole('link', { name: 'Latency' }).click()
    await page.getByRole('heading', { level: 1, name: 'Latency' }).waitFor()
    await page.getByRole('img', { name: 'Latency by phase' }).waitFor()
    const rows = page.getByTestId('latency-table').locator('tbody tr')
    const phases = await rows.locator('td:first-child').allTextContents()
    expect(phases).toEqual(expect.arrayContaining(['LLM', 'Tool', 'Retrieval', 'Agent / chain']))
    await shot('dashboard-latency', { phone: false })
    await page.getByRole('button', { name: 'Traces with a failed Tool span' }).click()
    const drill = page.getByTestId('latency-drill')
    await expect.poll(() => drill.getByTestId('drill-trace').count()).toBe(3)
    expect(new URL(page.url()).searchParams.get('drill')).toBe('errors')
    await shot('dashboard-latency-drill')
    await drill.getByTestId('drill-trace').first().click()
    await page.waitForSelector('[data-testid=waterfall] .wf-row')
    expect(traceIds.map((id) => `${W}/traces/${id}`)).toContain(new URL(page.url()).pathname)
    noProblems()
  })

  it('drift, sources, alignment flags and coding agents render their data', async () => {
    await open('/dashboards/drift', 'Drift')
    await page.getByTestId('drift-current').waitFor()
    expect(await page.getByTestId('drift-current').textContent()).toMatch(/Status(ok|warn|alert)/)
    await page.getByRole('heading', { name: 'Anomalies' }).waitFor()
    await shot('dashboard-drift')

    await open('/dashboards/sources', 'Sources')
    const source = page.getByTestId('sources-table').locator('tbody tr', { hasText: 'kb' })
    await source.waitFor()
    expect(await source.locator('td').allTextContents()).toEqual(['kb', 'knowledge base', expect.stringMatching(/^0\.\d\d$/), '3', expect.stringMatching(/^\d{4}-/)])
    await page.getByRole('img', { name: 'Most cited sources' }).waitFor()
    await shot('dashboard-sources')

    await open('/dashboards/alignment', 'Alignment flags')
    await page.getByTestId('flags-table').waitFor()
    expect(await page.textContent('.pager')).toMatch(/Page 1 of 1 · \d+ flags/)
    await shot('dashboard-alignment')

    await open('/dashboards/coding-agent', 'Coding agents')
    await expect.poll(() => page.getByTestId('coding-employees').locator('tbody tr').first().locator('td').first().textContent()).toBe('dana@acme.test')
    expect(await page.getByTestId('coding-commits').textContent()).toContain('Add retries to the order lookup')
    expect(await page.getByTestId('coding-files').locator('tbody td:first-child').allTextContents()).toEqual(expect.arrayContaining(['src/orders.ts', 'README.md']))
    await shot('dashboard-coding-agent')
    noProblems()
  })

  it('ingestion health (admin): spans of the last hour and each engine ok', async () => {
    await open('/dashboards/health', 'Ingestion health')
    const summary = page.getByTestId('health-summary')
    await summary.waitFor()
    expect(await summary.textContent()).toContain('Spans, last hour12')
    const engines = page.getByTestId('health-engines').locator('tbody tr')
    await expect.poll(() => engines.count()).toBeGreaterThan(3)
    expect(await page.getByTestId('health-engines').textContent()).toContain('Content reliability')
    await shot('dashboard-health')
    noProblems()
  })
})

describe('console settings (Chromium)', () => {
  it('changes workspace settings, engine switches and budgets through their forms', async () => {
    await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Settings' }).click()
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor()
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Workspace' }).click()
    await page.getByRole('heading', { level: 1, name: 'Workspace settings' }).waitFor()
    const capture = page.locator('form', { has: page.getByRole('heading', { name: 'Capture prompt and completion text' }) })
    await capture.getByLabel('Store prompt and completion text').uncheck()
    await capture.getByRole('button', { name: 'Save' }).click()
    await capture.getByText('Text capture is off.').waitFor()
    expect(await json(`${WS_API}/settings/capture-text`)).toEqual({ capture_text: false })
    const provider = page.locator('form', { has: page.getByRole('heading', { name: 'Cost provider' }) })
    await provider.getByLabel('Provider').fill('Anthropic')
    await provider.getByRole('button', { name: 'Save' }).click()
    await provider.getByText('Costs are priced with anthropic.').waitFor()
    await shot('settings-workspace')

    await open('/settings/engines', 'Engines')
    await page.getByLabel(/^Savings/).uncheck()
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByText('Engine settings saved.').waitFor()
    const engines = await json<{ engines: Record<string, boolean> }>(`${WS_API}/engine-settings`)
    expect(engines.engines).toMatchObject({ savings: false, content_reliability: true, external_crosscheck: false })
    await shot('settings-engines')

    await open('/settings/budgets', 'Cost budgets')
    await page.fill('input[name=day-cap]', '12.5')
    await page.fill('input[name=day-warn]', '50')
    await page.getByRole('button', { name: 'Save budgets' }).click()
    await page.getByText('Budgets saved.').waitFor()
    expect((await json<{ budgets: unknown }>(`${WS_API}/cost-budget`)).budgets).toEqual({ day: { cap_usd: 12.5, warn_pct: 0.5 } })
    // A warning above 100% is the API's 422, shown as it comes.
    await page.fill('input[name=month-cap]', '100')
    await page.fill('input[name=month-warn]', '150')
    await page.getByRole('button', { name: 'Save budgets' }).click()
    await expect.poll(() => page.textContent('[role=alert]')).toContain('(422)')
    await shot('settings-budgets')
    noProblems(/status of 422/)
  })

  it('shortens retention only after a preview, confirmed with its token', async () => {
    await open('/settings/retention', 'Data retention')
    await page.selectOption('select[name=retention]', '168')
    await page.getByRole('button', { name: 'Preview deletion' }).click()
    const preview = page.getByTestId('retention-preview')
    await preview.waitFor()
    expect(await preview.textContent()).toContain('0 spans in 0 traces')
    await shot('settings-retention-preview')
    await preview.getByRole('button', { name: 'Confirm: keep 7 days' }).click()
    await page.getByText('Data is now kept for 7 days.').waitFor()
    expect(await json(`${WS_API}/retention`)).toMatchObject({ enabled: true, hours: 168, effective_hours: 168 })
    // Longer again: no preview needed.
    await page.selectOption('select[name=retention]', '8760')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByText('Data is now kept for 1 year.').waitFor()
    noProblems()
  })

  it('keeps credentials write-only: the last four characters, and the key again to move it', async () => {
    await open('/settings/credentials', 'Credentials of acme')
    await page.fill('input[name=provider]', 'openai')
    await page.fill('input[name=model_id]', 'gpt-4o-mini')
    await page.fill('input[name=api_key]', 'sk-test-secret-9876wxyz')
    await page.fill('input[name=api_base]', `http://127.0.0.1:${await freePort()}/v1`)
    await page.getByRole('button', { name: 'Save' }).first().click()
    await page.getByText('LLM credential saved.').waitFor()
    await expect.poll(() => page.getByTestId('llm-status').textContent()).toContain('key …wxyz')
    expect(await page.content()).not.toContain('sk-test-secret')
    // Another provider without the key: the API refuses (422) and says why.
    await page.fill('input[name=provider]', 'anthropic')
    await page.getByText('enter the key again to move it').waitFor()
    await page.getByRole('button', { name: 'Save' }).first().click()
    await expect.poll(() => page.textContent('[role=alert]')).toContain('(422)')
    expect(await page.textContent('[role=alert]')).toMatch(/api_key/)
    await page.fill('input[name=search_key]', 'search-key-0000lmno')
    await page.getByRole('button', { name: 'Save' }).nth(1).click()
    await expect.poll(() => page.getByTestId('search-status').textContent()).toContain('key …lmno')
    await shot('settings-credentials')
    // Deleted again, so the engines go on without a provider.
    await page.getByRole('button', { name: 'Delete' }).first().click()
    await page.getByRole('button', { name: 'Confirm' }).click()
    await page.getByText('LLM credential deleted.').waitFor()
    await expect.poll(() => page.getByTestId('llm-status').textContent()).toBe('not configured')
    expect(await json(`/v1/observ/orgs/acme/llm-credentials`)).toMatchObject({ configured: false })
    noProblems(/status of 422/)
  })

  it('sets the alignment policy and uploads a document, whose status shows until it is embedded, then deletes it', async () => {
    await open('/settings/alignment', 'Alignment policy')
    await page.getByLabel(/^Check traces against this policy/).check()
    await page.fill('textarea[name=policy_description]', 'Never promise refunds in gold bars.')
    await page.getByRole('button', { name: 'Save policy' }).click()
    await page.getByText('Policy saved.').waitFor()
    expect(await json(`${WS_API}/alignment/policy`)).toEqual({ enabled: true, description: 'Never promise refunds in gold bars.' })
    await page.setInputFiles('input[type=file]', { name: 'refunds.md', mimeType: 'text/markdown', buffer: Buffer.from('# Refunds\n\nRefunds are paid to the original card within 5 business days.\n') })
    await page.getByRole('button', { name: 'Upload' }).click()
    await page.getByText('Uploaded refunds.md').waitFor()
    const row = page.getByTestId('docs-table').locator('tbody tr', { hasText: 'refunds.md' })
    await expect.poll(() => row.locator('td').nth(1).textContent(), { timeout: 30_000 }).toMatch(/^in use \d+ passages/)
    await shot('settings-alignment')
    await row.getByRole('button', { name: 'Delete' }).click()
    await row.getByRole('button', { name: 'Confirm' }).click()
    await page.getByText('Deleted refunds.md.').waitFor()
    expect((await json<{ documents: unknown[] }>(`${WS_API}/alignment/docs`)).documents).toEqual([])
    noProblems()
  })

  it('creates an API key, shown once, that works on ingest, and revokes it', async () => {
    await open('/settings/api-keys', 'API keys')
    await page.fill('input[name=key-name]', 'staging exporter')
    await page.selectOption('select[name=key-role]', 'viewer')
    await page.getByRole('button', { name: 'Create key' }).click()
    const key = await page.getByTestId('new-key').inputValue()
    expect(key).toMatch(/^dr_[A-Za-z0-9_-]{40}$/)
    const whoami = () => fetch(`${svc.ingest}/v1/auth/whoami`, { headers: { 'x-svc-api-key': key } }).then((r) => r.status)
    expect(await whoami()).toBe(200)
    const row = page.getByTestId('keys-table').locator('tbody tr', { hasText: 'staging exporter' })
    expect(await row.locator('td').nth(1).textContent()).toBe(`dr_…${key.slice(-4)}`)
    await shot('settings-api-keys')
    // Shown once: gone when dismissed, and nowhere in the page after a reload.
    await page.getByRole('button', { name: 'Done' }).click()
    await page.reload()
    await row.waitFor()
    expect(await page.content()).not.toContain(key)
    await row.getByRole('button', { name: 'Revoke' }).click()
    await row.getByRole('button', { name: 'Confirm' }).click()
    await page.getByText('Revoked “staging exporter”.').waitFor()
    await expect.poll(() => row.count()).toBe(0)
    await expect.poll(whoami).toBe(401)
    noProblems()
  })

  it('invites a viewer, who redeems the invitation, signs in and finds no admin page or button', async () => {
    await open('/settings/members', 'Members of acme')
    await page.fill('input[name=invite-email]', VIEWER_EMAIL)
    await page.selectOption('select[name=invite-role]', 'viewer')
    await page.getByRole('button', { name: 'Create invitation' }).click()
    const token = await page.getByTestId('invitation-token').inputValue()
    expect(token).toMatch(/^inv_/)
    const invited = page.getByTestId('members-table').locator('tbody tr', { hasText: VIEWER_EMAIL })
    await expect.poll(() => invited.textContent()).toContain('viewer in agents')
    expect(await invited.textContent()).toContain('invited')
    await shot('settings-members')
    const accepted = await fetch(`${svc.base}/v1/auth/invitations/accept`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token, password: VIEWER_PASSWORD }) })
    expect(accepted.status).toBe(200)
    await page.reload()
    await expect.poll(() => invited.textContent()).toContain('active')
    noProblems()

    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForSelector('input[name=email]')
    await signIn(page, svc.base, VIEWER_EMAIL, VIEWER_PASSWORD)
    const nav = page.getByRole('navigation', { name: 'Workspace' })
    expect(await nav.getByRole('link').allTextContents()).toEqual(['Traces', 'Dashboards', 'API'])
    await nav.getByRole('link', { name: 'Dashboards' }).click()
    await page.getByRole('heading', { level: 1, name: 'Usage' }).waitFor()
    expect(await page.getByRole('navigation', { name: 'Dashboards' }).getByRole('link').allTextContents()).toEqual(['Usage', 'Latency', 'Drift', 'Sources', 'Alignment', 'Coding agents'])
    await shot('viewer-usage', { phone: false })
    // By URL, an admin page says which role it needs, and shows no control.
    // The invitation gave a role in this workspace only: organization pages go by the organization-wide role, which the viewer lacks.
    for (const [path, says] of [
      ['/settings/api-keys', 'This page needs the admin role in this workspace; you have viewer.'],
      ['/settings/retention', 'This page needs the admin role in this workspace; you have viewer.'],
      ['/settings/members', 'This page needs the dev role in this organization; you have none there (viewer in this workspace).'],
      ['/dashboards/health', 'This page needs the admin role in this workspace; you have viewer.'],
    ] as const) {
      await page.goto(`${svc.base}${W}${path}`)
      await expect.poll(() => page.textContent('#main'), { message: path }).toContain(says)
      expect(await page.locator('#main button, #main input, #main select').count(), path).toBe(0)
    }
    await shot('viewer-blocked', { phone: false })
    // The API refuses the same (403) to the viewer's own session.
    const csrf = (await browser.context.cookies(svc.base)).find((c) => c.name === 'svc_csrf')!.value
    const refused = await page.evaluate(
      async ([url, token]) => (await fetch(url!, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-csrf': token! }, body: JSON.stringify({ name: 'mine' }) })).status,
      [`${WS_API}/api-keys`, csrf],
    )
    expect(refused).toBe(403)
    // The dashboards a viewer may read offer no admin link either.
    await page.goto(`${svc.base}${W}/dashboards/alignment`)
    await page.getByTestId('flags-table').waitFor()
    expect(await page.getByRole('link', { name: /Edit the policy/ }).count()).toBe(0)
    noProblems(/status of 403/)
  })
})
