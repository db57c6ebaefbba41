/**
 * The engine endpoints' sampling fields over embedded ClickHouse: a trace an engine
 * skipped says so (not "not yet"), a result says the sample it was computed in, and
 * a result is served over a skip, whichever is newer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestJson } from '@svc/shared/test-support/json'
import { recordSkippedTraces, type EngineSkipRow } from '@svc/shared/store/queries/engine-results'
import { apiHarness, ORG, WS, type Harness } from '../test-support/harness.js'

const KEY = `dr_${'e'.repeat(40)}`
let h: Harness
const SKIPPED = 'a'.repeat(32)
const ANALYSED = 'b'.repeat(32)
const later = () => Math.floor(Date.now() / 1000) + 86_400

const get = async (trace: string, sub: string) => {
  const res = await h.app.request(`/v1/observ/orgs/acme/workspaces/agents/traces/${trace}/${sub}`, { headers: { 'x-svc-api-key': KEY } })
  expect(res.status).toBe(200)
  return (await res.json()) as TestJson
}
const skip = (trace: string, engine: string, rate: number, atMs: number, reason = 'backlog'): EngineSkipRow => ({
  workspace_id: WS, trace_id: trace, engine, reason, sample_rate: rate, skipped_at: String(atMs), expires_at: later(),
})
const result = (trace: string, engine: string, payload: object, atMs: number) => ({
  workspace_id: WS, trace_id: trace, engine, engine_version: '1', mode: 'deterministic', payload: JSON.stringify({ trace_id: trace, ...payload }),
  llm_input_tokens: 0, llm_output_tokens: 0, computed_at: String(atMs), expires_at: later(),
})

beforeAll(async () => {
  h = await apiHarness({ keys: { [KEY]: 'viewer' } })
  const start = BigInt(Date.now() - 60_000) * 1_000_000n
  await h.store.insert(
    'spans_v1',
    [SKIPPED, ANALYSED].map((trace) => ({
      org_id: ORG, workspace_id: WS, project_id: 'p', trace_id: trace, span_id: trace.slice(0, 16), parent_span_id: '', name: 'root', kind: 'SERVER',
      start_time: start.toString(), end_time: start.toString(), received_at: String(Date.now()), expires_at: later(),
    })),
  )
}, 60_000)
afterAll(() => h?.close())

describe('engine endpoints: sampling', () => {
  it('a skipped trace is not computed, with why and the sample it fell outside; an engine that did not skip it is only not yet computed', async () => {
    const now = Date.now()
    await recordSkippedTraces(h.store, [skip(SKIPPED, 'content_reliability', 0.25, now), skip(SKIPPED, 'correlation', 0.5, now), skip(SKIPPED, 'savings', 0.125, now, 'configured')])
    expect(await get(SKIPPED, 'content-reliability')).toMatchObject({
      trace_id: SKIPPED, grade: '', score: null, claims: [], computed_at: null, skipped: 'backlog', sampled: { rate: 0.25, reason: 'backlog' }, external_crosscheck: null,
    })
    // optimization is made of two engines: the smaller sample says why.
    expect(await get(SKIPPED, 'optimization')).toMatchObject({ findings: [], computed_at: null, skipped: 'configured', sampled: { rate: 0.125, reason: 'configured' } })
    expect(await get(SKIPPED, 'decision-trace')).toMatchObject({ nodes: [], computed_at: null, skipped: null, sampled: null })
  })

  it('a trace too large to analyse says so, with no sample (it was in every one)', async () => {
    await recordSkippedTraces(h.store, [skip(SKIPPED, 'decision_trace', 1, Date.now(), 'too_large')])
    expect(await get(SKIPPED, 'decision-trace')).toMatchObject({ nodes: [], computed_at: null, skipped: 'too_large', sampled: null })
  })

  it('a result says the sample it was computed in, and is served even when a later analysis of the trace was skipped', async () => {
    const now = Date.now()
    await h.store.insert('engine_results_v1', [
      result(ANALYSED, 'decomposition', { original_query: 'q', sub_tasks: [], coverage: 1, sampled: { rate: 0.5, reason: 'backlog' } }, now - 1000),
      result(ANALYSED, 'decision_trace', { nodes: [], edges: [], sampled: null }, now - 1000),
      result(ANALYSED, 'correlation', { findings: [], sampled: { rate: 0.5, reason: 'backlog' } }, now - 1000),
      result(ANALYSED, 'savings', { findings: [], sampled: { rate: 0.25, reason: 'backlog' } }, now - 1000),
    ])
    await recordSkippedTraces(h.store, [skip(ANALYSED, 'decomposition', 0.1, now)])
    expect(await get(ANALYSED, 'decomposition')).toMatchObject({ original_query: 'q', computed_at: expect.any(String), skipped: null, sampled: { rate: 0.5, reason: 'backlog' } })
    expect(await get(ANALYSED, 'decision-trace')).toMatchObject({ computed_at: expect.any(String), skipped: null, sampled: null })
    expect(await get(ANALYSED, 'optimization')).toMatchObject({ computed_at: expect.any(String), skipped: null, sampled: { rate: 0.25, reason: 'backlog' } })
  })
})
