/**
 * `pnpm start` runs compiled JavaScript (scripts/start.mjs): each service bundled by
 * esbuild into a build directory when its sources changed, then run by node alone.
 * The bundle must still find what the code reads relative to its own source (SQL
 * migrations, Avro schemas, the price table, the console's dist/, package.json for
 * the OpenAPI version) and start the sentence model's thread from the bundle's own
 * entry, so the all-in-one is driven here through a whole round trip.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { modelPresent } from '@svc/engines/semantic/fetch-model'
import { modelDir } from '@svc/engines/semantic/model-files'
import type { TestJson } from '@svc/shared/test-support/json'
import { exited, freePort, REPO_ROOT, spawnCompiled, waitForHealth } from '../support/process.js'
import { eventually } from '../support/stack.js'
import { agentTrace, otlpEnvelope } from '../support/traces.js'

const KEY = 'dr_compiledStartKey00000000000000000000001'
const WS = '/v1/observ/orgs/compiled/workspaces/w'
// Builds go to a directory of the test's own, not the tree's .svc-build/.
const buildDir = mkdtempSync(join(tmpdir(), 'svc-build-'))
const dataDir = mkdtempSync(join(tmpdir(), 'svc-compiled-'))
let child: ReturnType<typeof spawnCompiled> | undefined

afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGKILL')
    await exited(child)
  }
  rmSync(buildDir, { recursive: true, force: true })
  rmSync(dataDir, { recursive: true, force: true })
})

/** `node scripts/start.mjs --build-only <service>`: the line it printed. */
function buildOnly(service: string): string {
  const r = spawnSync(process.execPath, ['scripts/start.mjs', '--build-only', service], { cwd: REPO_ROOT, env: { ...process.env, SVC_BUILD_DIR: buildDir }, encoding: 'utf8' })
  expect(r.status, r.stderr).toBe(0)
  return r.stderr.trim()
}

describe('compiled start (scripts/start.mjs)', () => {
  it('builds when no recorded build matches the sources, and reuses one that does', () => {
    expect(buildOnly('clickhouse-http')).toMatch(/^start: built clickhouse-http \(\d+ files\) into \S+clickhouse-http-[0-9a-f]{12} in \d+ ms$/)
    expect(buildOnly('clickhouse-http')).toMatch(/^start: clickhouse-http from \S+clickhouse-http-[0-9a-f]{12} \(current\)$/)
    const info = join(buildDir, 'clickhouse-http.json')
    const recorded = JSON.parse(readFileSync(info, 'utf8')) as { fingerprint: string; inputs: string[]; dir: string }
    expect(recorded.inputs).toEqual(expect.arrayContaining(['services/clickhouse-http/src/main.ts', 'services/shared/src/config.ts', 'services/engines/src/semantic/model-thread.ts']))
    expect(recorded.inputs.some((p) => p.includes('node_modules'))).toBe(false)
    // A record that no longer matches the files (as after an edit) means a new build.
    writeFileSync(info, JSON.stringify({ ...recorded, fingerprint: 'stale' }))
    expect(buildOnly('clickhouse-http')).toMatch(/^start: built clickhouse-http /)
    expect(readdirSync(buildDir).filter((n) => n.startsWith('clickhouse-http-'))).toEqual([recorded.dir])
  })

  it('runs the all-in-one from its bundle: a trace in and read back, the engines with the sentence model, the console', async () => {
    if (!modelPresent(modelDir(process.env.SVC_MODEL_DIR))) throw new Error('the sentence model is not in .svc-models/: run `pnpm fetch:model`')
    const [ingestPort, apiPort, clickhousePort] = [await freePort(), await freePort(), await freePort()]
    child = spawnCompiled('all-in-one', {
      SVC_BUILD_DIR: buildDir, SVC_BUS: 'embedded', KAFKA_BROKERS: '', REDIS_URL: '', CLICKHOUSE_URL: '', SVC_DATA_DIR: dataDir, SVC_HOST: '127.0.0.1',
      SVC_INGEST_PORT: String(ingestPort), SVC_API_PORT: String(apiPort), SVC_CLICKHOUSE_HTTP_PORT: String(clickhousePort),
      SVC_INIT_ORG_SLUG: 'compiled', SVC_INIT_WORKSPACE_SLUG: 'w', SVC_INIT_API_KEY: KEY, SVC_INIT_USER_PASSWORD: 'pw-compiled-test', SVC_QUIET_BOOTSTRAP: 'true',
      LOG_LEVEL: 'info', SVC_TRACE_QUIET_MS: '300',
    })
    const apiUrl = `http://127.0.0.1:${apiPort}`
    const ingestUrl = `http://127.0.0.1:${ingestPort}`
    await waitForHealth(`${apiUrl}/health`, child)
    await waitForHealth(`${ingestUrl}/health`, child)
    expect(child.output()).toMatch(/^start: built all-in-one \(\d+ files\) into \S+ in \d+ ms$/m)
    const api = (path: string, init: RequestInit = {}) => fetch(apiUrl + path, { ...init, headers: { 'x-svc-api-key': KEY, 'content-type': 'application/json', ...(init.headers ?? {}) } })
    const getJson = async (path: string) => (await (await api(path)).json()) as Record<string, TestJson>

    expect((await api(`${WS}/settings/capture-text`, { method: 'PATCH', body: JSON.stringify({ capture_text: true }) })).status).toBe(200)
    const t = agentTrace({ spans: 8, text: true })
    const sent = await fetch(`${ingestUrl}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-api-key': KEY }, body: JSON.stringify(otlpEnvelope(t.spans)) })
    expect(sent.status).toBe(202)
    const detail = await eventually(async () => {
      const d = await getJson(`${WS}/traces/${t.traceId}`)
      return d.spans?.length === t.spanCount ? d : undefined
    }, 30_000, 200)
    expect(detail.trace_id).toBe(t.traceId)
    // A span without a cost of its own is priced from the price table (read next to its source).
    const flatId = t.traceId.replace(/^.{4}/, 'f1a7')
    const now = BigInt(Date.now()) * 1_000_000n
    const flat = [{ trace_id: flatId, span_id: '00f067aa0ba902b7', name: 'chat gpt-4o', start_time_unix_ns: String(now - 2_000_000_000n), end_time_unix_ns: String(now - 1_000_000_000n), status_code: 'OK',
      attributes: { 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 1000, 'gen_ai.usage.output_tokens': 100 } }]
    expect((await fetch(`${ingestUrl}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-api-key': KEY }, body: JSON.stringify(flat) })).status).toBe(202)
    const priced = await eventually(async () => (await getJson(`${WS}/traces?page_size=50`)).data.find((r: TestJson) => r.trace_id === flatId), 30_000, 200)
    expect(priced.cost_usd_total).toBeGreaterThan(0)

    // The engines analyse it; the sentence model loads in its thread, started from the bundle's model-thread.mjs.
    const reliability = await eventually(async () => {
      const b = await getJson(`${WS}/traces/${t.traceId}/content-reliability`)
      return b.computed_at ? b : undefined
    }, 60_000, 250)
    expect(reliability.analysis_mode).toBe('deterministic')
    const semantic = await eventually(async () => {
      const h = await getJson(`${WS}/health/ingestion`)
      return h.semantic_model?.status === 'not_loaded' ? undefined : h.semantic_model
    }, 60_000, 250)
    expect(semantic).toMatchObject({ status: 'loaded' })

    const page = await fetch(`${apiUrl}/`)
    expect(page.status).toBe(200)
    expect(await page.text()).toMatch(/<script type="module" src="\/assets\/main-[A-Z0-9]{8}\.js"><\/script>/)
    const openapi = (await (await fetch(`${apiUrl}/openapi.json`)).json()) as { info: { version: string } }
    expect(openapi.info.version).toBe((JSON.parse(readFileSync(join(REPO_ROOT, 'services/api/package.json'), 'utf8')) as { version: string }).version)

    child.kill('SIGTERM')
    await exited(child)
    expect(child.exitCode, child.output()).toBe(0)
  }, 180_000)
})
