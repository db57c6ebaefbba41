/** Cost budgets over the real app and embedded ClickHouse. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { stableUuid } from '@svc/shared/control/secrets'
import { apiHarness, ORG, WS, type Harness } from '../test-support/harness.js'
import type { TestJson } from '@svc/shared/test-support/json'

const KEY = `dr_${'b'.repeat(40)}`
let h: Harness

const costSpan = (ws: string, trace: string, startMs: number, cost: number) => {
  const start = BigInt(startMs) * 1_000_000n
  return {
    org_id: ORG, workspace_id: ws, project_id: 'p', trace_id: trace, span_id: trace.slice(0, 16), parent_span_id: '', name: 'chat', kind: 'CLIENT',
    start_time: start.toString(), end_time: start.toString(), cost_usd: cost, is_llm: 1, received_at: String(Date.now()), expires_at: Math.floor(Date.now() / 1000) + 86400 * 60,
  }
}

beforeAll(async () => {
  h = await apiHarness({ keys: { [KEY]: 'admin' } })
  const now = new Date()
  const startOfDay = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())
  const startOfMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)
  await h.store.insert('spans_v1', [
    costSpan(WS, '1'.repeat(32), Date.now() - 1000, 1.25),
    costSpan(WS, '2'.repeat(32), startOfDay - 1000, startOfDay > startOfMonth ? 3 : 0), // earlier this month, or nothing on the 1st
    costSpan(WS, '3'.repeat(32), startOfMonth - 86_400_000, 100), // last month
    costSpan(stableUuid('ws:other'), '4'.repeat(32), Date.now() - 1000, 50),
  ])
}, 60_000)
afterAll(() => h?.close())

async function req(method: string, body?: unknown) {
  const res = await h.app.request('/v1/observ/orgs/acme/workspaces/agents/cost-budget', { method, headers: { 'content-type': 'application/json', 'x-svc-api-key': KEY }, body: body === undefined ? undefined : JSON.stringify(body) })
  return { status: res.status, body: (await res.json()) as TestJson }
}

describe('cost budget', () => {
  it('has no caps by default and shows this workspace\'s day and month spend', async () => {
    const monthExtra = new Date().getUTCDate() > 1 ? 3 : 0
    expect((await req('GET')).body).toEqual({ budgets: {}, current: { day_spend_usd: 1.25, month_spend_usd: 1.25 + monthExtra } })
  })

  it('PUT replaces the whole object, defaults warn_pct to 0.8, and omitting a period clears it', async () => {
    const put = await req('PUT', { budgets: { day: { cap_usd: 10 }, month: { cap_usd: 200, warn_pct: 0.5 } } })
    expect(put.status).toBe(200)
    expect(put.body.budgets).toEqual({ day: { cap_usd: 10, warn_pct: 0.8 }, month: { cap_usd: 200, warn_pct: 0.5 } })
    expect((await req('PUT', { budgets: { month: { cap_usd: 300 } } })).body.budgets).toEqual({ month: { cap_usd: 300, warn_pct: 0.8 } })
    expect((await req('GET')).body.budgets).toEqual({ month: { cap_usd: 300, warn_pct: 0.8 } })
  })

  it('422 for a non-numeric cap, a warn_pct outside 0.0-1.0, an unknown period or no budgets', async () => {
    for (const bad of [{ budgets: { day: { cap_usd: '10' } } }, { budgets: { day: { cap_usd: 10, warn_pct: 1.5 } } }, { budgets: { day: { cap_usd: 10, warn_pct: -0.1 } } }, { budgets: { week: { cap_usd: 1 } } }, {}, { budgets: { day: {} } }])
      expect((await req('PUT', bad)).status).toBe(422)
    expect((await req('GET')).body.budgets).toEqual({ month: { cap_usd: 300, warn_pct: 0.8 } })
  })
})
