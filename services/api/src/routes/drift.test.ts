/**
 * Drift over the roll-ups: a baseline week of steady traffic, then a day that costs
 * more and changes model; later a fleet of agents where one spikes (fleet_monitor).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { measureDrift, saveDrift } from '@svc/shared/store/queries/drift'
import { apiHarness, eventMaker, ORG, WS, type Harness } from '../test-support/harness.js'
import type { TestJson } from '@svc/shared/test-support/json'

const KEY = `dr_${'d'.repeat(40)}`
const HOUR = 3_600_000
let h: Harness
let n = 0

const ev = eventMaker()
const llm = (agoMs: number, model: string, cost: number, project = 'p') => {
  const start = BigInt(Date.now() - agoMs) * 1_000_000n
  const id = String(++n).padStart(32, '0')
  return {
    org_id: ORG, workspace_id: WS, project_id: project, trace_id: id, span_id: id.slice(0, 16), parent_span_id: '', name: 'chat', kind: 'CLIENT',
    start_time: start.toString(), end_time: (start + 500_000_000n).toString(), duration_ns: '500000000', status_code: 'OK', model, provider: 'openai', span_type: 'llm',
    input_tokens: 1000, output_tokens: 100, cost_usd: cost, cost_source: 'priced', is_llm: 1, received_at: String(Date.now()), expires_at: Math.floor(Date.now() / 1000) + 86400 * 30,
  }
}
const get = async (path: string) => {
  const res = await h.app.request(`/v1/observ/orgs/acme/workspaces/agents${path}`, { headers: { 'x-svc-api-key': KEY } })
  return { status: res.status, body: (await res.json()) as TestJson }
}

beforeAll(async () => {
  h = await apiHarness({ keys: { [KEY]: 'viewer' } })
  const rows = []
  // Baseline: 2 to 8 days ago, gpt-4o-mini at $0.01 a trace.
  for (let d = 2; d <= 7; d++) for (let i = 0; i < 5; i++) rows.push(llm(d * 24 * HOUR + i * HOUR, 'gpt-4o-mini', 0.01))
  // The last day: gpt-4o at $0.05 a trace.
  for (let i = 0; i < 5; i++) rows.push(llm(i * HOUR + 60_000, 'gpt-4o', 0.05))
  await h.store.insert('spans_v1', rows)
}, 60_000)
afterAll(() => h?.close())

describe('drift', () => {
  it('measures the last day against the baseline before it when no roll-up is stored yet', async () => {
    const r = await get('/drift/current')
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ status: 'alert', baseline_window_days: 7 })
    const by = Object.fromEntries(r.body.dimensions.map((d: TestJson) => [d.name, d]))
    expect(by.cost_per_trace).toMatchObject({ delta: 4, direction: 'worse' })
    expect(by.tokens_per_trace).toMatchObject({ delta: 0, direction: 'unchanged' })
    expect(by.model_mix).toMatchObject({ delta: 1, direction: 'changed' })
    expect(by.reliability_score).toBeUndefined() // nothing scored yet
    expect(r.body.anomalies).toEqual([]) // one agent, five traces a day: too little to call anything
  })

  it('serves stored roll-ups as current and as history', async () => {
    const now = Date.now()
    await saveDrift(h.store, WS, await measureDrift(h.store, WS, now - 2 * 24 * HOUR, 7))
    await saveDrift(h.store, WS, await measureDrift(h.store, WS, now, 7))
    const history = await get('/drift/history?days=7')
    expect(history.body.days).toBe(7)
    expect(history.body.points.map((p: TestJson) => p.day)).toEqual([new Date(now - 2 * 24 * HOUR).toISOString().slice(0, 10), new Date(now).toISOString().slice(0, 10)])
    expect(history.body.points[1]).toMatchObject({ status: 'alert', as_of: new Date(now).toISOString() })
    expect((await get('/drift/current')).body.as_of).toBe(new Date(now).toISOString())
    expect((await get('/drift/history')).body.days).toBe(30)
    for (const q of ['?days=0', '?days=367', '?days=x']) expect((await get(`/drift/history${q}`)).status).toBe(400)
  })

  it('carries the anomalies of the stored roll-up: the agent that spiked', async () => {
    // Three more agents, ten traces a day; on the last day `spiky` costs five times as much a trace.
    const rows = []
    for (const p of ['steady-a', 'steady-b', 'spiky'])
      for (let d = 0; d <= 7; d++) for (let i = 0; i < 10; i++) rows.push(llm(d * 24 * HOUR + (i + 1) * HOUR + 120_000, 'gpt-4o-mini', d === 0 && p === 'spiky' ? 0.05 : 0.01, p))
    await h.store.insert('spans_v1', rows)
    const now = Date.now()
    await saveDrift(h.store, WS, await measureDrift(h.store, WS, now, 7))
    const r = await get('/drift/current')
    expect(r.body.as_of).toBe(new Date(now).toISOString())
    expect(r.body.anomalies.map((a: TestJson) => a.agent)).toContain('spiky')
    expect(r.body.anomalies.every((a: TestJson) => a.agent === 'spiky')).toBe(true)
    expect(r.body.anomalies.find((a: TestJson) => a.dimension === 'cost_per_trace')).toEqual({
      agent: 'spiky', dimension: 'cost_per_trace', recent: 0.05, baseline: 0.01, delta: 4, z_score: expect.any(Number), direction: 'worse', basis: 'own_history',
    })
  })

  it('with fleet_monitor off, still serves what was stored, and measures without anomalies when nothing is', async () => {
    h.state.apply(ev('workspace.setting_set', { workspace_id: WS, name: 'engines', value: { fleet_monitor: false } }))
    const stored = (await get('/drift/current')).body
    expect(stored.anomalies.length).toBeGreaterThan(0)
    const points = (await get('/drift/history?days=7')).body.points
    expect(points).toHaveLength(2)
    // Without today's row, the newest stored day stands.
    await h.store.command('DELETE FROM drift_daily_v1 WHERE workspace_id = {ws:UUID} AND day = toDate({d:String})', { ws: WS, d: points[1].day })
    expect((await get('/drift/current')).body.as_of).toBe(points[0].as_of)
    // Nothing stored: a drift on the spot, without the engine's anomaly detection.
    await h.store.command('DELETE FROM drift_daily_v1 WHERE workspace_id = {ws:UUID}', { ws: WS })
    const spot = (await get('/drift/current')).body
    expect(spot.dimensions.length).toBeGreaterThan(0)
    expect(spot.anomalies).toEqual([])
    // Back on, the same request finds the spike.
    h.state.apply(ev('workspace.setting_set', { workspace_id: WS, name: 'engines', value: {} }))
    expect((await get('/drift/current')).body.anomalies.map((a: TestJson) => a.agent)).toContain('spiky')
  })
})
