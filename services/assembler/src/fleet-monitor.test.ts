/** fleet_monitor over a real embedded store: the gate, the stored anomalies, and the engine runs. */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '@svc/shared/config'
import type { ControlEvent } from '@svc/shared/control/events'
import { stableUuid } from '@svc/shared/control/secrets'
import { ControlState } from '@svc/shared/control/state'
import { createLogger } from '@svc/shared/log'
import { createStore } from '@svc/shared/store/index'
import { migrate } from '@svc/shared/store/migrate'
import { driftHistory } from '@svc/shared/store/queries/drift'
import { ingestionFigures } from '@svc/shared/store/queries/ingestion-health'
import type { Store } from '@svc/shared/store/types'
import { fleetMonitorOnce } from './fleet-monitor.js'

const ORG = stableUuid('org:fleet')
const WS = stableUuid('ws:fleet')
const OTHER = stableUuid('ws:fleet-other')
const HOUR = 3_600_000
const DAY = 24 * HOUR
let n = 0
const ev = (type: ControlEvent['type'], payload: unknown) => ({ type, payload, actor: 't', at_ms: 1, event_id: String(n++) }) as ControlEvent
const log = createLogger({ level: 'silent' })
let state: ControlState
let store: Store
const NOW = Date.now()
const today = new Date(NOW).toISOString().slice(0, 10)

const trace = (ws: string, project: string, agoMs: number, cost: number) => {
  const start = BigInt(NOW - agoMs) * 1_000_000n
  const id = String(++n).padStart(32, '0')
  return {
    org_id: ORG, workspace_id: ws, project_id: project, trace_id: id, span_id: id.slice(0, 16), parent_span_id: '', name: 'chat', kind: 'CLIENT',
    start_time: start.toString(), end_time: start.toString(), model: 'gpt-4o-mini', provider: 'openai', is_llm: 1, input_tokens: 1000, output_tokens: 100,
    cost_usd: cost, cost_source: 'priced', received_at: String(NOW), expires_at: Math.floor(NOW / 1000) + 30 * 86400,
  }
}
const setEngines = (ws: string, engines: Record<string, boolean>) => state.apply(ev('workspace.setting_set', { workspace_id: ws, name: 'engines', value: engines }))
const fleetRun = async (ws: string) => (await ingestionFigures(store, ws, Date.now(), Date.now())).engines.get('fleet_monitor')

beforeAll(async () => {
  state = new ControlState()
  state.apply(ev('org.created', { org_id: ORG, slug: 'f', name: 'f' }))
  state.apply(ev('workspace.created', { workspace_id: WS, org_id: ORG, slug: 'f', name: 'f' }))
  store = await createStore(loadConfig({ SVC_DATA_DIR: mkdtempSync(join(tmpdir(), 'fleet-monitor-')) }), log)
  await migrate(store, log)
  // Three agents, ten traces a day over the seven baseline days at $0.01 (a little
  // noise), then a last day where `spiky` costs five times as much a trace.
  const rows = []
  for (const p of ['steady-a', 'steady-b', 'spiky'])
    for (let d = 0; d <= 7; d++)
      for (let i = 0; i < 10; i++) rows.push(trace(WS, p, d * DAY + (i + 1) * HOUR, d === 0 && p === 'spiky' ? 0.05 : 0.01 + (d % 2) * 0.001))
  await store.insert('spans_v1', rows)
}, 60_000)
afterAll(() => store?.close())

describe('fleet_monitor', () => {
  it('with the engine off, writes no drift row and records no run', async () => {
    setEngines(WS, { fleet_monitor: false })
    expect(await fleetMonitorOnce({ store, state, baselineDays: 7, log }, NOW)).toEqual([])
    expect(await driftHistory(store, WS, today)).toEqual([])
    expect(await fleetRun(WS)).toBeUndefined()
    // An organization gate closes it too, whatever the workspace says.
    setEngines(WS, { fleet_monitor: true })
    state.apply(ev('org.updated', { org_id: ORG, engine_gates: { fleet_monitor: false } }))
    expect(await fleetMonitorOnce({ store, state, baselineDays: 7, log }, NOW)).toEqual([])
    expect(await driftHistory(store, WS, today)).toEqual([])
    state.apply(ev('org.updated', { org_id: ORG, engine_gates: { fleet_monitor: true } }))
  })

  it('with the engine on, stores the day with the spiking agent flagged and records an ok run', async () => {
    setEngines(WS, {})
    const runs = await fleetMonitorOnce({ store, state, baselineDays: 7, log }, NOW)
    expect(runs).toEqual([{ workspace_id: WS, engine: 'fleet_monitor', finished_at_ms: expect.any(Number), ok: true }])
    const [row] = await driftHistory(store, WS, today)
    expect(row).toMatchObject({ day: today, baseline_window_days: 7, computed_at_ms: NOW })
    expect(row!.anomalies.length).toBeGreaterThan(0)
    expect(row!.anomalies.every((a) => a.agent === 'spiky')).toBe(true)
    expect(row!.anomalies.find((a) => a.dimension === 'cost_per_trace')).toMatchObject({ agent: 'spiky', recent: 0.05, direction: 'worse', basis: 'own_history' })
    const run = await fleetRun(WS)
    expect(run?.lastRunAtMs).toBe(runs[0]!.finished_at_ms)
    expect(run?.lastOkAtMs).toBe(runs[0]!.finished_at_ms)
  })

  it('records a failed run for a workspace whose roll-up throws, and goes on with the others', async () => {
    state.apply(ev('workspace.created', { workspace_id: OTHER, org_id: ORG, slug: 'o', name: 'o' }))
    // A store that fails every read of one workspace.
    const failing: Store = new Proxy(store, {
      get: (t, k) => (k === 'query' ? (sql: string, params?: Record<string, unknown>, o?: unknown) => (params?.ws === WS ? Promise.reject(new Error('boom')) : t.query(sql, params as never, o as never)) : Reflect.get(t, k)),
    })
    const later = NOW + HOUR
    const runs = await fleetMonitorOnce({ store: failing, state, baselineDays: 7, log }, later)
    expect(Object.fromEntries(runs.map((r) => [r.workspace_id, r.ok]))).toEqual({ [WS]: false, [OTHER]: true })
    // The failed workspace keeps its last figure; the other got its (empty) day.
    expect((await driftHistory(store, WS, today))[0]!.computed_at_ms).toBe(NOW)
    expect((await driftHistory(store, OTHER, today)).map((r) => r.anomalies)).toEqual([[]])
    const run = await fleetRun(WS)
    expect(run?.lastRunAtMs).toBeGreaterThan(run!.lastOkAtMs!)
  })
})
