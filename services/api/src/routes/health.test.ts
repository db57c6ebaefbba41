/** Ingestion health over embedded ClickHouse: arrival, dead letters, engines ok or stalled, their sampling. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { publishSamplingStatus } from '@svc/shared/domain/engine-sampling'
import { publishSemanticStatus } from '@svc/shared/domain/semantic-model'
import { recordEngineJobCounts, recordEngineRuns } from '@svc/shared/store/queries/ingestion-health'
import { apiHarness, ORG, WS, type Harness } from '../test-support/harness.js'
import type { TestJson } from '@svc/shared/test-support/json'

const KEY = `dr_${'h'.repeat(40)}`
const VIEWER = `dr_${'v'.repeat(40)}`
let h: Harness

const get = async (key = KEY) => {
  const res = await h.app.request('/v1/observ/orgs/acme/workspaces/agents/health/ingestion', { headers: { 'x-svc-api-key': key } })
  return { status: res.status, body: (await res.json()) as TestJson }
}
const span = (trace: string, agoMs: number) => {
  const start = BigInt(Date.now() - agoMs) * 1_000_000n
  return { org_id: ORG, workspace_id: WS, project_id: 'p', trace_id: trace, span_id: trace.slice(0, 16), parent_span_id: '', name: 'root', kind: 'SERVER', start_time: start.toString(), end_time: start.toString(), span_type: 'agent', received_at: String(Date.now() - agoMs + 50), expires_at: Math.floor(Date.now() / 1000) + 86400 }
}

beforeAll(async () => {
  h = await apiHarness({ keys: { [KEY]: 'admin', [VIEWER]: 'viewer' } })
}, 60_000)
afterAll(() => h?.close())

describe('ingestion health', () => {
  it('is admin-only and idle before anything arrives', async () => {
    expect((await get(VIEWER)).status).toBe(403)
    const r = await get()
    expect(r.body).toMatchObject({ status: 'idle', last_span_at: null, spans_last_hour: 0, dead_letter_count_last_hour: 0 })
    // No engine worker has reported: no sample rate to show.
    expect(r.body.engines.content_reliability).toEqual({ status: 'ok', last_run_at: null, sample_rate: null, sample_reason: null, backlog_seconds: null, analysed_last_hour: 0, skipped_last_hour: 0 })
    expect(r.body.engines.external_crosscheck).toBeUndefined() // off by default
    expect(r.body.semantic_model).toEqual({ status: 'not_loaded', model: null, reason: null, checked_at: null })
  })

  it("reports the engines' sentence model as an engine process last published it, with the reason when unavailable", async () => {
    const at = Date.now()
    await publishSemanticStatus(h.cache, { status: 'unavailable', model: 'local:m@1', reason: 'no such file (model directory /x)', checked_at_ms: at })
    expect((await get()).body.semantic_model).toEqual({ status: 'unavailable', model: 'local:m@1', reason: 'no such file (model directory /x)', checked_at: new Date(at).toISOString() })
    await publishSemanticStatus(h.cache, { status: 'loaded', model: 'local:m@1', reason: '', checked_at_ms: at + 1 })
    expect((await get()).body.semantic_model).toMatchObject({ status: 'loaded', reason: null })
  })

  it('counts spans and dead letters of the last hour', async () => {
    await h.store.insert('spans_v1', [span('1'.repeat(32), 60_000), span('2'.repeat(32), 30_000), span('3'.repeat(32), 3 * 3_600_000)])
    await h.store.insert('dead_letters_v1', [{ org_id: ORG, workspace_id: WS, source: 'ingest.otlp', reason: 'bad span id', payload: '{}', received_at: String(Date.now() - 1000), dlq_topic: 'spans.raw.v1.dlq', dlq_partition: 0, dlq_offset: 7 }])
    const r = await get()
    expect(r.body).toMatchObject({ status: 'degraded', spans_last_hour: 2, dead_letter_count_last_hour: 1 })
    expect(Date.now() - Date.parse(r.body.last_span_at)).toBeLessThan(60_000)
  })

  it('shows an engine stalled when its jobs wait past the threshold with spans arriving, ok once it runs', async () => {
    await h.store.insert('trace_completions_v1', [{ workspace_id: WS, trace_id: '1'.repeat(32), last_received_at: String(Date.now() - 40 * 60_000), span_count: 1, completed_at: String(Date.now() - 30 * 60_000) }])
    expect((await get()).body.engines.decomposition).toMatchObject({ status: 'stalled', last_run_at: null })
    const failedAt = Date.now() - 10 * 60_000
    await recordEngineRuns(h.store, [{ workspace_id: WS, engine: 'decomposition', finished_at_ms: failedAt, ok: false }])
    expect((await get()).body.engines.decomposition).toMatchObject({ status: 'stalled', last_run_at: new Date(failedAt).toISOString() })
    await recordEngineRuns(h.store, [{ workspace_id: WS, engine: 'decomposition', finished_at_ms: Date.now(), ok: true }])
    const r = await get()
    expect(r.body.engines.decomposition.status).toBe('ok')
    expect(r.body.engines.content_reliability.status).toBe('stalled')
  })

  it('shows an engine stalled at once when its last run failed (jobs dead-lettered), ok again after a success', async () => {
    await recordEngineRuns(h.store, [{ workspace_id: WS, engine: 'sources', finished_at_ms: Date.now() - 1000, ok: true }])
    expect((await get()).body.engines.sources.status).toBe('ok')
    await recordEngineRuns(h.store, [{ workspace_id: WS, engine: 'sources', finished_at_ms: Date.now(), ok: false }])
    expect((await get()).body.engines.sources.status).toBe('stalled')
    await recordEngineRuns(h.store, [{ workspace_id: WS, engine: 'sources', finished_at_ms: Date.now() + 1, ok: true }])
    expect((await get()).body.engines.sources.status).toBe('ok')
  })

  it("shows each engine's sample as its workers published it, its backlog, and the jobs analysed and skipped since the previous hour", async () => {
    await publishSamplingStatus(h.cache, 'content_reliability', { rate: 0.125, reason: 'backlog', lag_ms: 312_340, measured_at_ms: Date.now() }, 60_000)
    await publishSamplingStatus(h.cache, 'decision_trace', { rate: 1, reason: null, lag_ms: 0, measured_at_ms: Date.now() }, 60_000)
    const now = Date.now()
    await recordEngineJobCounts(h.store, [
      { workspace_id: WS, engine: 'content_reliability', at_ms: now, analysed: 40, skipped: 260, failed: 1 },
      { workspace_id: WS, engine: 'content_reliability', at_ms: now, analysed: 10, skipped: 90, failed: 0 },
      // Three hours ago: outside the window.
      { workspace_id: WS, engine: 'content_reliability', at_ms: now - 3 * 3_600_000, analysed: 1000, skipped: 1000, failed: 0 },
      { workspace_id: WS, engine: 'decision_trace', at_ms: now, analysed: 400, skipped: 0, failed: 0 },
    ])
    const { engines } = (await get()).body
    expect(engines.content_reliability).toMatchObject({ sample_rate: 0.125, sample_reason: 'backlog', backlog_seconds: 312.3, analysed_last_hour: 50, skipped_last_hour: 350 })
    expect(engines.decision_trace).toMatchObject({ sample_rate: 1, sample_reason: null, backlog_seconds: 0, analysed_last_hour: 400, skipped_last_hour: 0 })
    expect(engines.decomposition).toMatchObject({ sample_rate: null, analysed_last_hour: 0 })
  })

  it('lists fleet_monitor, stalled only when its last roll-up failed', async () => {
    expect((await get()).body.engines.fleet_monitor).toEqual({ status: 'ok', last_run_at: null })
    const at = Date.now()
    await recordEngineRuns(h.store, [{ workspace_id: WS, engine: 'fleet_monitor', finished_at_ms: at, ok: false }])
    expect((await get()).body.engines.fleet_monitor).toEqual({ status: 'stalled', last_run_at: new Date(at).toISOString() })
  })
})
