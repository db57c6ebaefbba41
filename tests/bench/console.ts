/**
 * pnpm bench:console [--spans 1000000] [--runs 20] [--trace-spans 2000]
 *
 * The web console in Debian's Chromium (tests/support/browser.ts) over the
 * all-in-one service with `--spans` spans stored (seeded as in bench:query, 20 per
 * trace over a day) and one trace of `--trace-spans` spans sent through ingest.
 * Signed in once, then per run a fresh tab, timed by the page's own clock from its
 * navigation start to the User Timing mark the page sets once it has drawn:
 * - the trace list's first rows (/o/bench/w/bench/traces);
 * - the waterfall of the big trace (its legend then counts every span);
 * and, on the drawn waterfall, the frames of a scroll from top to bottom in 40 steps.
 * Ceilings, in the same run: the API call each page waits for (the first page of
 * GET /traces, GET /traces/{id}), timed from Node with the same session; the page's
 * figure is shown as a ratio of it. Prints p50/p95 per figure.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { loadConfig } from '@svc/shared/config'
import { stableUuid } from '@svc/shared/control/secrets'
import { createLogger } from '@svc/shared/log'
import { createStore } from '@svc/shared/store/index'
import { migrate } from '@svc/shared/store/migrate'
import { launchBrowser } from '../support/browser.js'
import { exited, freePort, REPO_ROOT, spawnAllInOne, waitForHealth } from '../support/process.js'
import { seedSpans } from './seed-spans.js'
import { fmt, progress, summarize, table } from './stats.js'

const { values: args } = parseArgs({ options: { spans: { type: 'string', default: '1000000' }, runs: { type: 'string', default: '20' }, 'trace-spans': { type: 'string', default: '2000' } } })
const SPANS = Number(args.spans)
const RUNS = Number(args.runs)
const TRACE_SPANS = Number(args['trace-spans'])
const KEY = 'dr_benchConsoleKey0000000000000000000000001'
const EMAIL = 'bench@bench.test'
const PASSWORD = 'bench-password'

const dataDir = mkdtempSync(join(REPO_ROOT, '.bench-data-'))
const env = {
  SVC_BUS: 'embedded', SVC_DATA_DIR: dataDir, SVC_HOST: '127.0.0.1', LOG_LEVEL: 'warn', SVC_QUIET_BOOTSTRAP: 'true',
  SVC_INIT_ORG_SLUG: 'bench', SVC_INIT_WORKSPACE_SLUG: 'bench', SVC_INIT_API_KEY: KEY, SVC_INIT_USER_EMAIL: EMAIL, SVC_INIT_USER_PASSWORD: PASSWORD,
}
const workspaceId = stableUuid(`workspace:${stableUuid('org:bench')}:bench`)

/** One trace of `n` spans in the flat form: a root, agent steps of ~50 spans each, LLM, tool and retrieval calls under them, one in fifty failing. */
function bigTrace(n: number): { traceId: string; spans: unknown[] } {
  const hex = (i: number, len: number) => i.toString(16).padStart(len, '0')
  const traceId = hex(Date.now(), 32)
  const t0 = BigInt(Date.now() - 120_000) * 1_000_000n
  const spans: unknown[] = []
  const add = (i: number, parent: number | null, name: string, startMs: number, durMs: number, attributes: Record<string, unknown>) =>
    spans.push({
      trace_id: traceId,
      span_id: hex(i + 1, 16),
      ...(parent === null ? {} : { parent_span_id: hex(parent + 1, 16) }),
      name,
      start_time_unix_ns: String(t0 + BigInt(Math.round(startMs * 1e6))),
      end_time_unix_ns: String(t0 + BigInt(Math.round((startMs + durMs) * 1e6))),
      status_code: i % 50 === 7 ? 'ERROR' : 'OK',
      attributes,
    })
  add(0, null, 'invoke_agent research-bot', 0, n * 20 + 100, { 'gen_ai.operation.name': 'invoke_agent' })
  let step = 0
  for (let i = 1; i < n; i++) {
    const start = i * 20
    if (i % 50 === 1) {
      step = i
      add(i, 0, `agent step ${Math.ceil(i / 50)}`, start, 50 * 20 - 5, { 'openinference.span.kind': 'CHAIN' })
    } else if (i % 3 === 0) add(i, step, 'chat gpt-4o-mini', start, 18, { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o-mini', 'gen_ai.usage.input_tokens': 800, 'gen_ai.usage.output_tokens': 120 })
    else if (i % 3 === 1) add(i, step, 'execute_tool search', start, 12, { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search' })
    else add(i, step, 'retrieve docs', start, 9, { 'openinference.span.kind': 'RETRIEVER' })
  }
  return { traceId, spans }
}

/**
 * Scrolls the waterfall top to bottom in 40 steps, timing each to the second animation
 * frame after it (rendered and painted). Text, not a function: tsx's transform would
 * add helpers to a function that the page does not have.
 */
const SCROLL_STEPS = `(async () => {
  const el = document.querySelector('[data-testid=waterfall]')
  const out = []
  for (let i = 1; i <= 40; i++) {
    const t = performance.now()
    el.scrollTop = ((el.scrollHeight - el.clientHeight) * i) / 40
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))
    out.push(performance.now() - t)
  }
  return out
})()`

progress(`seeding ${fmt(SPANS)} spans into ${dataDir}`)
{
  const log = createLogger({ level: 'warn' })
  const store = await createStore(loadConfig(env), log)
  await migrate(store, log)
  const t0 = performance.now()
  await seedSpans(store, { workspaceId, spans: SPANS })
  progress(`seeded in ${fmt((performance.now() - t0) / 1000, 1)} s`)
  await store.close()
}

const [ingestPort, apiPort] = [await freePort(), await freePort()]
const child = spawnAllInOne({ ...env, SVC_INGEST_PORT: String(ingestPort), SVC_API_PORT: String(apiPort) })
const browser = await launchBrowser()
try {
  const base = `http://127.0.0.1:${apiPort}`
  await waitForHealth(`${base}/health`, child, 120_000)
  const big = bigTrace(TRACE_SPANS)
  const sent = await fetch(`http://127.0.0.1:${ingestPort}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-api-key': KEY }, body: JSON.stringify(big.spans) })
  if (sent.status !== 202) throw new Error(`ingest answered ${sent.status}: ${await sent.text()}`)
  const detailPath = `/v1/observ/orgs/bench/workspaces/bench/traces/${big.traceId}`
  for (let i = 0; ; i++) {
    // A connection the server closed as idle just as it was reused is asked again, like any other miss.
    const r = await fetch(base + detailPath, { headers: { 'x-svc-api-key': KEY } }).catch(() => null)
    if (r?.ok && ((await r.json()) as { spans: unknown[] }).spans.length === TRACE_SPANS) break
    if (i > 600) throw new Error('the big trace never arrived whole')
    await new Promise((res) => setTimeout(res, 100))
  }
  progress(`${fmt(TRACE_SPANS)}-span trace ${big.traceId} stored`)

  // Sign in once through the page; every run's tab shares the session cookie.
  const login = await browser.newPage()
  await login.goto(`${base}/sign-in`)
  await login.fill('input[name=email]', EMAIL)
  await login.fill('input[name=password]', PASSWORD)
  await login.click('button[type=submit]')
  await login.waitForSelector('[data-testid=trace-table]')
  const cookieHeader = (await browser.context.cookies(base)).map((c) => `${c.name}=${c.value}`).join('; ')
  await login.close()

  // The page marks when its rows were first on screen (performance.mark in traces.tsx and waterfall.tsx); read that, not when a poll noticed.
  const sinceNavigation = async (path: string, mark: string, until?: string) => {
    const page = await browser.newPage()
    await page.goto(base + path, { waitUntil: 'commit' })
    // Polled with evaluate: waitForFunction compiles its predicate in the page, which the console's CSP (no 'unsafe-eval') refuses.
    let ms: number | undefined
    for (const t0 = Date.now(); ms === undefined; await new Promise((r) => setTimeout(r, 20))) {
      ms = (await page.evaluate(`performance.getEntriesByName(${JSON.stringify(mark)})[0]?.startTime`)) as number | undefined
      if (Date.now() - t0 > 60_000) throw new Error(`${path}: no ${mark} within 60 s`)
    }
    if (until && !(await page.evaluate(`document.body.textContent.includes(${JSON.stringify(until)})`))) throw new Error(`${path}: not every span drawn`)
    return { page, ms }
  }
  const apiMs = async (path: string) => {
    const t0 = performance.now()
    const r = await fetch(base + path, { headers: { cookie: cookieHeader } })
    await r.arrayBuffer()
    if (!r.ok) throw new Error(`${path}: ${r.status}`)
    return performance.now() - t0
  }

  const listMs: number[] = []
  const listApi: number[] = []
  const wfMs: number[] = []
  const wfApi: number[] = []
  const frames: number[] = []
  const shown = `${fmt(TRACE_SPANS)} of ${fmt(TRACE_SPANS)} spans shown`.replace(/,/g, '')
  for (let run = 0; run <= RUNS; run++) {
    // Run 0 warms the browser's cache of the hashed assets and the service's caches; it is not counted.
    const list = await sinceNavigation('/o/bench/w/bench/traces', 'svc:trace-list-rendered')
    await list.page.close()
    const wf = await sinceNavigation(`/o/bench/w/bench/traces/${big.traceId}`, 'svc:waterfall-rendered', shown)
    if (run > 0) {
      listMs.push(list.ms)
      wfMs.push(wf.ms)
      listApi.push(await apiMs('/v1/observ/orgs/bench/workspaces/bench/traces?page_size=50'))
      wfApi.push(await apiMs(detailPath))
      // Scroll the waterfall top to bottom in 40 steps; each step timed to the second animation frame after it (rendered and painted).
      frames.push(...((await wf.page.evaluate(SCROLL_STEPS)) as number[]))
    }
    await wf.page.close()
    if (run > 0 && run % 5 === 0) progress(`${run}/${RUNS} runs`)
  }

  const row = (name: string, xs: number[], ceiling?: number[]) => {
    const s = summarize(xs)
    const c = ceiling ? summarize(ceiling) : null
    return [name, `p50 ${fmt(s.p50, 1)} ms  p95 ${fmt(s.p95, 1)} ms${c ? `   (its API call: p50 ${fmt(c.p50, 1)} ms; page/API ${fmt(s.p50 / c.p50, 1)}x)` : ''}`] as [string, string]
  }
  process.stdout.write(`\nconsole in Chromium, ${fmt(SPANS)} spans stored, ${RUNS} runs (from navigation start, warm asset cache)\n`)
  table([
    row('trace list: first row rendered', listMs, listApi),
    row(`waterfall: ${fmt(TRACE_SPANS)} spans rendered`, wfMs, wfApi),
    row('waterfall scroll: one step to painted frame', frames),
  ])
  process.stdout.write(`  (${SPANS > 0 ? 'seeded spans are 20 per trace over the last day' : ''}; the machine's other load makes these figures noisy)\n`)
} finally {
  await browser.close()
  child.kill('SIGTERM')
  await exited(child)
  rmSync(dataDir, { recursive: true, force: true })
}
