/** Usage, cost and latency panels over the roll-ups, fed by real spans_v1 inserts (the views run inside them). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { settingEvent } from '@svc/shared/control/settings'
import type { ControlEvent } from '@svc/shared/control/events'
import { apiHarness, ORG, WS, type Harness } from '../test-support/harness.js'
import type { TestJson } from '@svc/shared/test-support/json'

const KEY = `dr_${'u'.repeat(40)}`
const HOUR = 3_600_000
let h: Harness

let n = 0
// One clock reading for every span: durations between spans must not depend on how busy the machine is.
const NOW = Date.now()
/** One span; `agoMs` before now; an llm span has a model and tokens. */
const span = (o: { trace: string; root?: boolean; type: string; agoMs: number; ms: number; model?: string; project?: string; cost?: number; error?: boolean; unpriced?: boolean; first?: 0 | 1 }) => {
  const start = BigInt(NOW - o.agoMs) * 1_000_000n
  return {
    org_id: ORG, workspace_id: WS, project_id: o.project ?? 'p1', trace_id: o.trace, span_id: String(++n).padStart(16, '0'), parent_span_id: o.root ? '' : 'f'.repeat(16),
    name: o.type, kind: 'INTERNAL', start_time: start.toString(), end_time: (start + BigInt(o.ms) * 1_000_000n).toString(), duration_ns: String(o.ms * 1_000_000),
    status_code: o.error ? 'ERROR' : 'OK', model: o.model ?? '', provider: o.model ? 'openai' : '', span_type: o.type,
    input_tokens: o.model ? 100 : 0, output_tokens: o.model ? 10 : 0, cost_usd: o.cost ?? 0, cost_source: o.unpriced ? 'unpriced' : o.model ? 'priced' : '',
    is_llm: o.model ? 1 : 0, received_at: String(NOW), expires_at: Math.floor(NOW / 1000) + 86400 * 60, first_delivery: o.first ?? 1,
  }
}
const T = (i: number) => String(i).padStart(32, 'a')

beforeAll(async () => {
  h = await apiHarness({ keys: { [KEY]: 'viewer' } })
  await h.store.insert('spans_v1', [
    // Last hour: two traces in p1 and one in p2.
    span({ trace: T(1), root: true, type: 'agent', agoMs: 60_000, ms: 900 }),
    span({ trace: T(1), type: 'llm', agoMs: 59_000, ms: 400, model: 'gpt-4o', cost: 0.01 }),
    span({ trace: T(1), type: 'tool', agoMs: 58_000, ms: 50, error: true }),
    span({ trace: T(2), root: true, type: 'chain', agoMs: 30_000, ms: 3000 }),
    span({ trace: T(2), type: 'llm', agoMs: 29_000, ms: 2500, model: 'gpt-4o', cost: 0.03 }),
    span({ trace: T(3), root: true, type: 'llm', agoMs: 10_000, ms: 100, model: 'in-house', unpriced: true, project: 'p2' }),
    // A redelivered copy counts nothing.
    { ...span({ trace: T(2), type: 'llm', agoMs: 29_000, ms: 2500, model: 'gpt-4o', cost: 0.03 }), span_id: String(n).padStart(16, '0'), first_delivery: 0 },
    // Three days ago: in the week, not the day.
    span({ trace: T(4), root: true, type: 'llm', agoMs: 3 * 24 * HOUR, ms: 200, model: 'gpt-4o-mini', cost: 1 }),
  ])
}, 60_000)
afterAll(() => h?.close())

const get = async (path: string) => {
  const res = await h.app.request(`/v1/observ/orgs/acme/workspaces/agents${path}`, { headers: { 'x-svc-api-key': KEY } })
  return { status: res.status, body: (await res.json()) as TestJson }
}

describe('usage summary', () => {
  it('totals, by model (unpriced counted) and by project for the last day; the week adds older traffic', async () => {
    const day = await get('/usage/summary')
    expect(day.status).toBe(200)
    expect(day.body.meta).toMatchObject({ scorer_version: expect.any(String), request_id: expect.any(String) })
    expect(day.body.data).toMatchObject({ period: 'day', workspace_id: WS })
    expect(day.body.data.totals).toMatchObject({ trace_count: 3, span_count: 6, llm_calls: 3, unpriced_calls: 1, input_tokens: 300, output_tokens: 30 })
    expect(day.body.data.totals.cost_usd).toBeCloseTo(0.04, 9)
    expect(day.body.data.by_model).toEqual([
      { model: 'gpt-4o', provider: 'openai', llm_calls: 2, unpriced_calls: 0, input_tokens: 200, output_tokens: 20, cost_usd: 0.04 },
      { model: 'in-house', provider: 'openai', llm_calls: 1, unpriced_calls: 1, input_tokens: 100, output_tokens: 10, cost_usd: 0 },
    ])
    expect(day.body.data.by_project).toEqual([
      { project_id: 'p1', trace_count: 2, llm_calls: 2, cost_usd: 0.04 },
      { project_id: 'p2', trace_count: 1, llm_calls: 1, cost_usd: 0 },
    ])
    const week = await get('/usage/summary?period=week')
    expect(week.body.data.totals).toMatchObject({ trace_count: 4 })
    expect(week.body.data.totals.cost_usd).toBeCloseTo(1.04, 9)
    const bad = await get('/usage/summary?period=year')
    expect(bad.status).toBe(400)
    expect(bad.body.detail.accepted).toEqual(['day', 'week', 'month'])
  })
})

describe('usage timeseries', () => {
  it('one point per calendar day including days without traffic; day only', async () => {
    const r = await get('/usage/timeseries?days=5')
    expect(r.body).toMatchObject({ period: 'day', days: 5 })
    expect(r.body.points).toHaveLength(5)
    const today = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000).toISOString()
    expect(r.body.points[4].ts).toBe(today)
    expect(r.body.points.reduce((a: number, p: TestJson) => a + p.trace_count, 0)).toBe(4)
    expect(r.body.points.filter((p: TestJson) => p.trace_count === 0).length).toBeGreaterThanOrEqual(3)
    expect((await get('/usage/timeseries')).body.points).toHaveLength(30)
    for (const q of ['?period=week', '?period=month', '?days=0', '?days=x']) expect((await get(`/usage/timeseries${q}`)).status).toBe(400)
  })
})

describe('latency by phase and its drill-down', () => {
  it('reports phases with percentiles, calls and errors (chains count as agent)', async () => {
    const r = await get('/usage/latency')
    const byPhase = Object.fromEntries(r.body.phases.map((p: TestJson) => [p.phase, p]))
    expect(Object.keys(byPhase).sort()).toEqual(['agent', 'llm', 'tool'])
    expect(byPhase.llm).toMatchObject({ call_count: 3, error_count: 0 })
    expect(byPhase.tool).toMatchObject({ call_count: 1, error_count: 1, p50_ms: 50 })
    expect(byPhase.agent.call_count).toBe(2)
    expect(byPhase.llm.p99_ms).toBeGreaterThanOrEqual(byPhase.llm.p50_ms)
  })

  it('lists slow traces against the panel\'s own percentile, and errored ones', async () => {
    const latency = (await get('/usage/latency')).body.phases.find((p: TestJson) => p.phase === 'llm')
    const slow = await get('/usage/latency/phase/traces?phase=llm&metric=slow&percentile=p95')
    expect(slow.status).toBe(200)
    expect(slow.body).toMatchObject({ phase: 'llm', metric: 'slow', percentile: 'p95', threshold_ms: latency.p95_ms })
    expect(slow.body.traces.map((t: TestJson) => t.trace_id)).toEqual([T(2)])
    // The trace runs from its root's start to its llm span's end.
    expect(slow.body.traces[0]).toMatchObject({ duration_ms: 3500, status: 'OK' })
    const errors = await get('/usage/latency/phase/traces?phase=tool&metric=errors')
    expect(errors.body.traces).toEqual([expect.objectContaining({ trace_id: T(1), status: 'ERROR' })])
    expect((await get('/usage/latency/phase/traces?phase=embedding&metric=slow')).body.traces).toEqual([])
  })

  it("lists only traces inside the workspace's retention window, whole: not one that started before it", async () => {
    await h.store.insert('spans_v1', [
      // Both errored within the last day, in traces that started three days ago and an hour ago.
      span({ trace: T(5), root: true, type: 'agent', agoMs: 3 * 24 * HOUR, ms: 100 }),
      span({ trace: T(5), type: 'tool', agoMs: HOUR, ms: 10, error: true }),
      span({ trace: T(6), root: true, type: 'agent', agoMs: HOUR, ms: 100 }),
      span({ trace: T(6), type: 'tool', agoMs: HOUR - 1000, ms: 10, error: true }),
    ])
    const errored = async () => ((await get('/usage/latency/phase/traces?phase=tool&metric=errors&period=week')).body.traces as TestJson[]).map((t) => t.trace_id)
    expect(await errored()).toEqual([T(1), T(6), T(5)])
    const retention = (value: { enabled: boolean; hours: number; updated_at_ms: number }) => h.state.apply({ ...settingEvent(WS, 'retention', value), actor: 't', at_ms: 1, event_id: `r${value.hours}` } as ControlEvent)
    retention({ enabled: true, hours: 48, updated_at_ms: 1 })
    expect(await errored()).toEqual([T(1), T(6)])
    retention({ enabled: false, hours: 48, updated_at_ms: 2 })
  })

  it('422 without phase or metric; 400 with the accepted values for bad ones', async () => {
    expect((await get('/usage/latency/phase/traces?metric=slow')).status).toBe(422)
    expect((await get('/usage/latency/phase/traces?phase=llm')).status).toBe(422)
    for (const [q, accepted] of [['phase=llm&metric=fast', ['errors', 'slow']], ['phase=llm&metric=slow&percentile=p50', ['p95', 'p99']], ['phase=llm&metric=slow&period=year', ['day', 'week', 'month']], ['phase=teleport&metric=slow', ['llm', 'tool', 'retrieval', 'embedding', 'agent', 'other']]] as const) {
      const r = await get(`/usage/latency/phase/traces?${q}`)
      expect(r.status).toBe(400)
      expect(r.body.detail.accepted).toEqual(accepted)
    }
    for (const limit of ['0', '501', 'x']) expect((await get(`/usage/latency/phase/traces?phase=llm&metric=slow&limit=${limit}`)).status).toBe(400)
  })
})

describe('sources', () => {
  it('lists cited sources with a neutral prior that moves with the engine\'s feedback', async () => {
    const { recordTraceSources, sourceDomain, traceSources } = await import('@svc/shared/store/queries/sources')
    expect((await get('/sources')).body).toEqual({ sources: [] })
    expect(sourceDomain('https://www.KB.example.com/refunds#s2')).toBe('kb.example.com')
    expect(sourceDomain('kb/refunds.md')).toBe('kb')
    const seen = Date.now() - 5000
    const expires_at_s = Math.floor(Date.now() / 1000) + 3600
    const cite = (domain: string, kind: 'internal_kb' | 'web', at: number) => ({ workspace_id: WS, domain, kind, seen_at_ms: at })
    const analysis = (trace: string, at: number, cited: ReturnType<typeof cite>[], verdicts: Array<{ domain: string; kind: 'internal_kb' | 'web'; supported: number; unsupported: number }> = []) =>
      traceSources({ workspace_id: WS, trace_id: trace.repeat(32), analysed_at_ms: at, expires_at_s }, cited, verdicts.map((v) => ({ workspace_id: WS, ...v })))
    // The analysed traces; 'c' started 40 days ago, outside the default 30-day window.
    await h.store.insert('spans_v1', [
      span({ trace: 'a'.repeat(32), root: true, type: 'agent', agoMs: 7000, ms: 10 }),
      span({ trace: 'b'.repeat(32), root: true, type: 'agent', agoMs: 6000, ms: 10 }),
      span({ trace: 'c'.repeat(32), root: true, type: 'agent', agoMs: 40 * 24 * HOUR, ms: 10 }),
    ])
    await recordTraceSources(h.store, [
      analysis('a', seen - 1000, [cite('kb.example.com', 'internal_kb', seen - 1000)]),
      analysis('b', seen, [cite('kb.example.com', 'internal_kb', seen), cite('blog.example.org', 'web', seen)]),
      analysis('c', seen, [cite('old.example.net', 'web', seen - 40 * 24 * HOUR)]),
      // A trace the workspace does not know.
      analysis('d', seen, [cite('kb.example.com', 'internal_kb', seen)]),
    ])
    const before = (await get('/sources')).body.sources
    expect(before).toEqual([
      { domain: 'kb.example.com', kind: 'internal_kb', authority_prior: 0.5, citation_count: 2, last_seen: new Date(seen).toISOString() },
      { domain: 'blog.example.org', kind: 'web', authority_prior: 0.5, citation_count: 1, last_seen: new Date(seen).toISOString() },
    ])
    // The sources engine's verdicts arrive with trace b's analysis (a newer one replaces the older).
    await recordTraceSources(h.store, [
      analysis('b', seen + 1, [cite('kb.example.com', 'internal_kb', seen), cite('blog.example.org', 'web', seen)], [
        { domain: 'kb.example.com', kind: 'internal_kb', supported: 8, unsupported: 0 },
        { domain: 'blog.example.org', kind: 'web', supported: 0, unsupported: 3 },
      ]),
    ])
    const after = Object.fromEntries((await get('/sources')).body.sources.map((s: TestJson) => [s.domain, s]))
    expect(after['kb.example.com']).toMatchObject({ authority_prior: 0.9, citation_count: 2, last_seen: new Date(seen).toISOString() })
    expect(after['blog.example.org'].authority_prior).toBe(0.2)
  })
})
