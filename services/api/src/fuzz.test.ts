/**
 * Fuzzing the read API over embedded ClickHouse: random query strings on every GET
 * route (every parameter name the OpenAPI document lists, with boundary, broken
 * and repeated values, odd path segments) and mutated JSON bodies on the write
 * routes (test-support/fuzz). No answer may be a 5xx, every error must be the JSON
 * error body, nothing may reject unhandled, and the app must still answer
 * afterwards. The sequence is fixed by a seed, printed on failure;
 * FUZZ_SEED=<n> runs another.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Bus } from '@svc/shared/bus/types'
import { mapBounded } from '@svc/shared/concurrency'
import { fuzzQuery, fuzzSeed, mutateJson, rng, transport, type Rng } from '@svc/shared/test-support/fuzz'
import { buildOpenApiDocument } from './openapi/document.js'
import { apiHarness, ORG, WS, type Harness } from './test-support/harness.js'

const SEED = fuzzSeed(20261124)
const REQUESTS = 1500
const ADMIN = `dr_${'f'.repeat(40)}`
const VIEWER = `dr_${'v'.repeat(40)}`
const T = (i: number) => String(i).padStart(32, 'a')
const WS_PATH = '/v1/observ/orgs/acme/workspaces/agents'

/** Write routes and a valid body of each, the starting point of the mutations. */
const BODIES: Array<{ method: string; path: string; body: unknown }> = [
  { method: 'PATCH', path: `${WS_PATH}/settings/capture-text`, body: { capture_text: true } },
  { method: 'PATCH', path: `${WS_PATH}/settings/broaden-sources`, body: { broaden_sources: false } },
  { method: 'PATCH', path: `${WS_PATH}/settings/cost-provider`, body: { cost_provider: 'openai' } },
  { method: 'PUT', path: `${WS_PATH}/engine-settings`, body: { engines: { sources: true, decomposition: false } } },
  { method: 'PUT', path: `${WS_PATH}/alignment/policy`, body: { description: 'Never promise refunds.', enabled: true } },
  { method: 'PUT', path: `${WS_PATH}/cost-budget`, body: { budgets: { day: { cap_usd: 10, warn_pct: 0.8 }, month: { cap_usd: 100 } } } },
  { method: 'POST', path: `${WS_PATH}/retention:preview`, body: { hours: 168 } },
  { method: 'PUT', path: `${WS_PATH}/retention`, body: { enabled: true, hours: 8760, confirm_token: null } },
  { method: 'POST', path: `${WS_PATH}/api-keys`, body: { name: 'ci', role: 'viewer', project_id: 'p1' } },
  { method: 'PUT', path: '/v1/observ/orgs/acme/search-credentials', body: { api_key: 'tvly-0123456789' } },
  { method: 'PATCH', path: '/v1/observ/orgs/acme/llm-credentials/fallback', body: { enabled: true } },
  { method: 'PATCH', path: `/v1/orgs/${ORG}`, body: { name: 'Acme', contact_email: 'ops@acme.test', team_count: 5, engines: { sources: true } } },
  { method: 'POST', path: `/v1/orgs/${ORG}/workspaces`, body: { name: 'Support Bot (EU)' } },
  { method: 'PATCH', path: `/v1/workspaces/${WS}`, body: { name: 'Agents' } },
  { method: 'POST', path: '/v1/auth/login', body: { email: 'owner@acme.test', password: 'correct horse battery' } },
]

interface Case {
  i: number
  method: string
  path: string
  body?: Uint8Array | string
  headers: Record<string, string>
  note: string
}

/** A path parameter: mostly the seeded organization, workspace and traces, sometimes something odd. */
function pathValue(name: string, r: Rng): string {
  const odd = () => r.pick(['nope', '%00', '%ZZ', 'x'.repeat(300), '..', '%E2%80%AE', 'null', '0'])
  if (r.chance(0.15)) return odd()
  switch (name) {
    case 'org': return 'acme'
    case 'ws': return 'agents'
    case 'org_id': return ORG
    case 'ws_id': return WS
    case 'trace_id': return r.pick([T(1), T(2), T(3), 'A'.repeat(32), 'g'.repeat(32), T(99)])
    default: return r.pick(['k-1', T(1), 'a'])
  }
}

function cases(seed: number): Case[] {
  const r = rng(seed)
  const doc = buildOpenApiDocument()
  const gets = Object.entries(doc.paths).flatMap(([path, item]) => (item.get && path.startsWith('/v1/') ? [{ path, query: item.get.parameters.filter((p) => p.in === 'query').map((p) => p.name) }] : []))
  const allQueryNames = [...new Set(gets.flatMap((g) => g.query))]
  return Array.from({ length: REQUESTS }, (_, i): Case => {
    const auth: Record<string, string> = r.chance(0.03) ? {} : { 'x-svc-api-key': r.chance(0.15) ? VIEWER : ADMIN }
    if (r.chance(0.75)) {
      const g = r.pick(gets)
      const path = g.path.replace(/\{(\w+)\}/g, (_, name: string) => pathValue(name, r))
      // Mostly the route's own parameters; sometimes every parameter any route knows.
      const query = fuzzQuery(r.chance(0.8) ? g.query : allQueryNames, r)
      return { i, method: 'GET', path: path + query, headers: auth, note: 'query' }
    }
    const b = r.pick(BODIES)
    const json = r.chance(0.9) ? mutateJson(b.body, r) : { text: JSON.stringify(b.body), note: 'valid' }
    const sent = transport(json.text, r)
    return { i, method: b.method, path: b.path, body: sent.body, headers: { ...sent.headers, ...auth }, note: `${json.note} | ${sent.note}` }
  })
}

let h: Harness
const produced: unknown[] = []
const bus = { kind: 'embedded', produce: async (_t: string, records: unknown[]) => (produced.push(...records), []) } as unknown as Bus
const unhandled: unknown[] = []
const onUnhandled = (err: unknown) => unhandled.push(err)

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled)
  h = await apiHarness({ keys: { [ADMIN]: 'admin', [VIEWER]: 'viewer' }, bus })
  // A few traces, so the trace, engine-output and usage routes read rows, not just empty tables.
  const now = Date.now()
  const span = (trace: string, id: number, agoMs: number, model: string) => {
    const start = BigInt(now - agoMs) * 1_000_000n
    return {
      org_id: ORG, workspace_id: WS, project_id: 'p1', trace_id: trace, span_id: String(id).padStart(16, '0'), parent_span_id: '', name: model ? 'chat' : 'agent', kind: 'INTERNAL',
      start_time: start.toString(), end_time: (start + 5_000_000n).toString(), duration_ns: '5000000', status_code: 'OK', model, provider: model ? 'openai' : '', span_type: model ? 'llm' : 'agent',
      input_tokens: model ? 10 : 0, output_tokens: model ? 5 : 0, cost_usd: model ? 0.01 : 0, cost_source: model ? 'priced' : '', is_llm: model ? 1 : 0,
      received_at: String(now), expires_at: Math.floor(now / 1000) + 86400 * 30, first_delivery: 1,
    }
  }
  await h.store.insert('spans_v1', [span(T(1), 1, 60_000, 'gpt-4o'), span(T(2), 2, 3_600_000, ''), span(T(3), 3, 3 * 86_400_000, 'gpt-4o-mini')])
}, 60_000)
afterAll(async () => {
  process.off('unhandledRejection', onUnhandled)
  await h?.close()
})

describe(`read API fuzz (seed ${SEED})`, () => {
  it(`${REQUESTS} random query strings and mutated bodies: no 5xx, every error a JSON error body, no unhandled rejection`, async () => {
    const failures: string[] = []
    const statuses = new Map<number, number>()
    await mapBounded(cases(SEED), 4, async (c) => {
      const res = await h.app.request(c.path, { method: c.method, body: c.body as BodyInit | undefined, headers: c.headers })
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
      const text = await res.text()
      let error: unknown
      try {
        error = (JSON.parse(text) as { error?: unknown }).error
      } catch {
        error = undefined
      }
      const what = `#${c.i} ${c.method} ${c.path.slice(0, 160)} [${c.note}] -> ${res.status}`
      if (res.status >= 500) failures.push(`${what} ${text.slice(0, 200)}`)
      else if (res.status >= 400 && typeof error !== 'string') failures.push(`${what} without a JSON error: ${text.slice(0, 200)}`)
    })
    const summary = `seed ${SEED} (rerun with FUZZ_SEED=${SEED}); statuses ${JSON.stringify(Object.fromEntries(statuses))}`
    expect(failures, `${summary}\n${failures.slice(0, 20).join('\n')}`).toEqual([])
    expect(unhandled, summary).toEqual([])
    expect((await h.app.request('/health')).status).toBe(200)
    expect((await h.app.request(`${WS_PATH}/traces`, { headers: { 'x-svc-api-key': ADMIN } })).status).toBe(200)
  }, 120_000)
})
