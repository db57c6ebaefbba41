/** Cost budgets over the real app and embedded ClickHouse. */
import { randomBytes } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMemoryCache } from '@svc/shared/cache/memory'
import { loadConfig } from '@svc/shared/config'
import { foldingWriter } from '@svc/shared/control/control-plane'
import { masterKeyFrom } from '@svc/shared/control/envelope'
import type { ControlEvent } from '@svc/shared/control/events'
import { hashApiKey, stableUuid } from '@svc/shared/control/secrets'
import { ControlState } from '@svc/shared/control/state'
import { createLogger } from '@svc/shared/log'
import { createStore } from '@svc/shared/store/index'
import { migrate } from '@svc/shared/store/migrate'
import type { Store } from '@svc/shared/store/types'
import { createApiApp } from '../app.js'

const ORG = stableUuid('org:acme')
const WS = stableUuid('ws:agents')
const KEY = `dr_${'b'.repeat(40)}`
let n = 0
const ev = (type: ControlEvent['type'], payload: unknown) => ({ type, payload, actor: 'test', at_ms: 1, event_id: String(n++) }) as ControlEvent
const state = new ControlState()
let store: Store
let app: ReturnType<typeof createApiApp>

export const costSpan = (ws: string, trace: string, startMs: number, cost: number) => {
  const start = BigInt(startMs) * 1_000_000n
  return {
    org_id: ORG, workspace_id: ws, project_id: 'p', trace_id: trace, span_id: trace.slice(0, 16), parent_span_id: '', name: 'chat', kind: 'CLIENT',
    start_time: start.toString(), end_time: start.toString(), cost_usd: cost, is_llm: 1, received_at: String(Date.now()), expires_at: Math.floor(Date.now() / 1000) + 86400 * 60,
  }
}

beforeAll(async () => {
  state.apply(ev('org.created', { org_id: ORG, slug: 'acme', name: 'Acme' }))
  state.apply(ev('workspace.created', { workspace_id: WS, org_id: ORG, slug: 'agents', name: 'Agents' }))
  state.apply(ev('api_key.created', { key_id: 'k', org_id: ORG, workspace_id: WS, project_id: 'p', role: 'admin', name: 'a', key_hash: hashApiKey(KEY), key_last4: 'bbbb' }))
  const log = createLogger({ level: 'silent' })
  store = await createStore(loadConfig({ SVC_DATA_DIR: mkdtempSync(join(tmpdir(), 'api-budgets-')) }), log)
  await migrate(store, log)
  const now = new Date()
  const startOfDay = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())
  const startOfMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)
  await store.insert('spans_v1', [
    costSpan(WS, '1'.repeat(32), Date.now() - 1000, 1.25),
    costSpan(WS, '2'.repeat(32), startOfDay - 1000, startOfDay > startOfMonth ? 3 : 0), // earlier this month, or nothing on the 1st
    costSpan(WS, '3'.repeat(32), startOfMonth - 86_400_000, 100), // last month
    costSpan(stableUuid('ws:other'), '4'.repeat(32), Date.now() - 1000, 50),
  ])
  app = createApiApp({ store, cache: createMemoryCache(), control: foldingWriter(state), jwtSecret: 's', jwtTtlSeconds: 600, defaultRetentionHours: 720, defaultCostProvider: 'openai', masterKey: masterKeyFrom(randomBytes(32)), log })
}, 60_000)
afterAll(() => store?.close())

async function req(method: string, body?: unknown) {
  const res = await app.request('/v1/observ/orgs/acme/workspaces/agents/cost-budget', { method, headers: { 'content-type': 'application/json', 'x-svc-api-key': KEY }, body: body === undefined ? undefined : JSON.stringify(body) })
  return { status: res.status, body: (await res.json()) as any }
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
