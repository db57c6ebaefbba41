/**
 * The engine runtime on real adapters (embedded log, embedded ClickHouse): jobs in,
 * results through the sink into ClickHouse, gates, retries and the dead letters.
 * The engine under test is a small definition of the test's own, so what is
 * checked is the runtime, not an algorithm.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEmbeddedBus } from '@svc/shared/bus/embedded/index'
import { engineJobFailedV1, engineResultV1, traceCompletedV1, type EngineResultRecord } from '@svc/shared/bus/records'
import { consumerBatchHandler, runConsumer } from '@svc/shared/bus/run-consumer'
import { engineGroup, engineJobsDlqTopic, engineJobsTopic, TOPICS, type TraceEngine } from '@svc/shared/bus/topics'
import type { Bus, ConsumedRecord } from '@svc/shared/bus/types'
import { loadConfig } from '@svc/shared/config'
import type { ControlEvent } from '@svc/shared/control/events'
import { stableUuid } from '@svc/shared/control/secrets'
import { ControlState } from '@svc/shared/control/state'
import { loadPriceTable } from '@svc/shared/domain/pricing'
import { createLogger } from '@svc/shared/log'
import { latestEngineResults, latestEngineSkips } from '@svc/shared/store/queries/engine-results'
import { ingestionFigures } from '@svc/shared/store/queries/ingestion-health'
import { createStore } from '@svc/shared/store/index'
import { migrate } from '@svc/shared/store/migrate'
import type { Store } from '@svc/shared/store/types'
import { resultSinkConsumer } from './result-sink.js'
import { BacklogSampler, samplePoint } from './sampling.js'
import type { EngineDefinition } from './types.js'
import { engineConsumer } from './worker.js'

const ORG = stableUuid('org:engines')
const WS = stableUuid('ws:engines')
const OTHER_ORG = stableUuid('org:engines-gated')
const GATED_WS = stableUuid('ws:engines-gated')
const log = createLogger({ level: 'silent' })
let n = 0
const ev = (type: ControlEvent['type'], payload: unknown) => ({ type, payload, actor: 't', at_ms: 1, event_id: String(n++) }) as ControlEvent
const state = new ControlState()
let store: Store
let bus: Bus
const prices = loadPriceTable()

const traceId = (i: number) => i.toString(16).padStart(32, 'a')
async function storeTrace(ws: string, id: string, spans = 3) {
  const start = BigInt(Date.now() - 60_000) * 1_000_000n
  await store.insert(
    'spans_v1',
    Array.from({ length: spans }, (_, i) => ({
      org_id: ws === WS ? ORG : OTHER_ORG, workspace_id: ws, project_id: 'p', trace_id: id, span_id: (i + 1).toString(16).padStart(16, '0'),
      parent_span_id: i === 0 ? '' : '0000000000000001', name: `s${i}`, kind: 'INTERNAL',
      start_time: (start + BigInt(i) * 1_000_000n).toString(), end_time: (start + BigInt(i + 1) * 1_000_000n).toString(),
      attributes: { n: String(i) }, received_at: String(Date.now()), expires_at: Math.floor(Date.now() / 1000) + 3600,
    })),
  )
}
const job = (ws: string, id: string, completedAt = Date.now(), engine: TraceEngine = 'decision_trace') =>
  ({
    topic: engineJobsTopic(engine), partition: 0, offset: String(n++), key: null, timestamp: Date.now(),
    value: traceCompletedV1.encode({ org_id: ws === WS ? ORG : OTHER_ORG, workspace_id: ws, project_id: 'p', trace_id: id, span_count: 3, trace_start_unix_nano: 1, trace_end_unix_nano: 2, last_span_received_at_ms: 1, completed_at_ms: completedAt, engine }),
  }) as ConsumedRecord

async function readAll(topic: string): Promise<ConsumedRecord[]> {
  const out: ConsumedRecord[] = []
  const ends = await bus.endOffsets(topic)
  const total = [...ends.values()].reduce((a, b) => a + Number(b), 0)
  if (total === 0) return out
  const sub = await bus.subscribe({ group: `read-${n++}`, topics: [topic], ephemeral: true, fromBeginning: true, onBatch: async (rs) => void out.push(...rs) })
  while (out.length < total) await new Promise((r) => setTimeout(r, 10))
  await sub.close()
  return out
}

/** A runtime-test engine: counts its runs; fails while `failing` is set. */
function countingEngine(name: EngineDefinition['name']) {
  const calls: string[] = []
  const def = {
    failing: false,
    calls,
    definition: {
      name,
      version: 't1',
      async run(view) {
        calls.push(view.trace_id)
        if (def.failing) throw new Error('provider unreachable (test)')
        return { payload: { trace_id: view.trace_id, nodes: view.spans.map((s) => s.span_id), edges: [] }, mode: 'deterministic' as const }
      },
    } satisfies EngineDefinition,
  }
  return def
}

/** One batch through the worker as the consumer runner runs it (decode, analyse, dead letters). */
const engineBatchHandler = (d: ReturnType<typeof deps>) => consumerBatchHandler(bus, engineConsumer(d))

const deps = (engine: EngineDefinition) => ({
  bus, store, state, engine, log, concurrency: 4,
  retry: { attempts: 3, baseDelayMs: 5 },
  contextFor: async (orgId: string, workspaceId: string) => ({ orgId, workspaceId, prices, llm: null, search: null, broadenSources: false, priorOf: () => 0.5 }),
})

beforeAll(async () => {
  state.apply(ev('org.created', { org_id: ORG, slug: 'e', name: 'e' }))
  state.apply(ev('workspace.created', { workspace_id: WS, org_id: ORG, slug: 'e', name: 'e' }))
  state.apply(ev('org.created', { org_id: OTHER_ORG, slug: 'g', name: 'g' }))
  state.apply(ev('workspace.created', { workspace_id: GATED_WS, org_id: OTHER_ORG, slug: 'g', name: 'g' }))
  const dir = mkdtempSync(join(tmpdir(), 'engine-worker-'))
  store = await createStore(loadConfig({ SVC_DATA_DIR: dir }), log)
  await migrate(store, log)
  bus = await createEmbeddedBus({ dir: join(dir, 'log') })
  await bus.ensureTopics([TOPICS.engineResults, engineJobsTopic('decision_trace'), engineJobsDlqTopic('decision_trace'), engineJobsDlqTopic('savings')].map((name) => ({ name, partitions: 1 })))
})
afterAll(async () => {
  await bus?.close()
  await store?.close()
})

describe('engine worker', () => {
  it('analyses each finished trace once (newest job wins), and the sink lands the result in engine_results_v1', async () => {
    const e = countingEngine('decision_trace')
    await storeTrace(WS, traceId(1))
    await storeTrace(WS, traceId(2), 5)
    await engineBatchHandler(deps(e.definition))([job(WS, traceId(1), 1), job(WS, traceId(1), 2), job(WS, traceId(2))])
    expect(e.calls.sort()).toEqual([traceId(1), traceId(2)])

    const results = await readAll(TOPICS.engineResults)
    const decoded = results.map((r) => engineResultV1.decode(r.value)) as EngineResultRecord[]
    expect(decoded.map((d) => d.trace_id).sort()).toEqual([traceId(1), traceId(2)])
    expect(decoded.every((d) => d.engine === 'decision_trace' && d.engine_version === 't1' && d.mode === 'deterministic')).toBe(true)

    await consumerBatchHandler(bus, resultSinkConsumer(store, log))(results)
    const latest = await latestEngineResults(store, WS, traceId(2), ['decision_trace'])
    expect((latest.get('decision_trace')!.payload as { nodes: string[] }).nodes).toHaveLength(5)
    const figures = await ingestionFigures(store, WS, Date.now(), Date.now())
    expect(figures.engines.get('decision_trace')!.lastOkAtMs).toBeGreaterThan(0)
  })

  it('skips jobs of a switched-off engine (workspace setting or organization gate) without loading or running anything', async () => {
    const e = countingEngine('decision_trace')
    await storeTrace(GATED_WS, traceId(3))
    state.apply(ev('org.updated', { org_id: OTHER_ORG, engine_gates: { decision_trace: false } }))
    state.apply(ev('workspace.setting_set', { workspace_id: WS, name: 'engines', value: { decision_trace: false } }))
    const before = (await readAll(TOPICS.engineResults)).length
    await engineBatchHandler(deps(e.definition))([job(GATED_WS, traceId(3)), job(WS, traceId(1))])
    expect(e.calls).toEqual([])
    expect((await readAll(TOPICS.engineResults)).length).toBe(before)

    // Opening both again: the next job runs.
    state.apply(ev('org.updated', { org_id: OTHER_ORG, engine_gates: { decision_trace: true } }))
    state.apply(ev('workspace.setting_set', { workspace_id: WS, name: 'engines', value: {} }))
    await engineBatchHandler(deps(e.definition))([job(GATED_WS, traceId(3))])
    expect(e.calls).toEqual([traceId(3)])
  })

  it('retries a failing job with backoff, then dead-letters it whole and records a failed run', async () => {
    const e = countingEngine('savings')
    e.failing = true
    await storeTrace(WS, traceId(4))
    await engineBatchHandler(deps(e.definition))([job(WS, traceId(4), Date.now(), 'savings')])
    expect(e.calls).toEqual([traceId(4), traceId(4), traceId(4)])
    const dead = (await readAll(engineJobsDlqTopic('savings'))).map((r) => engineJobFailedV1.decode(r.value))
    expect(dead).toHaveLength(1)
    expect(dead[0]).toMatchObject({ engine: 'savings', trace_id: traceId(4), attempts: 3, error: 'provider unreachable (test)' })
    // The original job is kept whole, ready to be replayed onto the jobs topic.
    expect(traceCompletedV1.decode(dead[0]!.job).trace_id).toBe(traceId(4))
    const run = (await ingestionFigures(store, WS, Date.now(), Date.now())).engines.get('savings')!
    expect(run.lastRunAtMs).toBeGreaterThan(0)
    expect(run.lastOkAtMs).toBeNull()
  })

  it('dead-letters a job whose result is too large for one record, once, without producing it', async () => {
    const e = countingEngine('savings')
    const huge: EngineDefinition = { ...e.definition, run: async (view) => (e.calls.push(view.trace_id), { payload: { trace_id: view.trace_id, findings: ['x'.repeat(1 << 20)] }, mode: 'deterministic' }) }
    await storeTrace(WS, traceId(5))
    const results = (await readAll(TOPICS.engineResults)).length
    const dead = (await readAll(engineJobsDlqTopic('savings'))).length
    await engineBatchHandler(deps(huge))([job(WS, traceId(5), Date.now(), 'savings')])
    // Computing it again would make the same result: one run.
    expect(e.calls).toEqual([traceId(5)])
    expect((await readAll(TOPICS.engineResults)).length).toBe(results)
    const letters = (await readAll(engineJobsDlqTopic('savings'))).slice(dead).map((r) => engineJobFailedV1.decode(r.value))
    expect(letters).toHaveLength(1)
    expect(letters[0]!.error).toMatch(/^result of \d+ bytes is over the 921600 one record may carry$/)
  })

  it('dead-letters a job it cannot read, and the jobs of a workspace whose context cannot be built, whole, and commits past them', async () => {
    const e = countingEngine('decision_trace')
    await storeTrace(WS, traceId(5))
    await storeTrace(WS, traceId(6))
    const topic = engineJobsTopic('decision_trace')
    const dlqBefore = (await readAll(engineJobsDlqTopic('decision_trace'))).length
    const good = job(WS, traceId(5))
    await bus.produce(topic, [
      { key: `${WS}:${'e'.repeat(32)}`, value: Buffer.from('not a job') },
      { key: `${WS}:${traceId(5)}`, value: good.value },
    ])
    const sub = await runConsumer(bus, engineConsumer(deps(e.definition)))
    const end = (await bus.endOffsets(topic)).get(0)
    for (let i = 0; i < 2000 && (await bus.committedOffsets(engineGroup('decision_trace'), topic)).get(0) !== end; i++) await new Promise((r) => setTimeout(r, 5))
    expect((await bus.committedOffsets(engineGroup('decision_trace'), topic)).get(0)).toBe(end)
    await sub.close()
    expect(e.calls).toEqual([traceId(5)])
    const dead = (await readAll(engineJobsDlqTopic('decision_trace'))).slice(dlqBefore).map((r) => engineJobFailedV1.decode(r.value))
    expect(dead).toHaveLength(1)
    expect(dead[0]).toMatchObject({ engine: 'decision_trace', workspace_id: WS, trace_id: 'e'.repeat(32), attempts: 0 })
    expect(dead[0]!.error).toMatch(/^undecodable/)
    expect(dead[0]!.job.toString()).toBe('not a job')

    // A context that cannot be built (a credential that no longer unseals) fails its jobs after the retries, not the batch.
    const broken = { ...deps(e.definition), contextFor: async () => Promise.reject(new Error('credential does not unseal (test)')) }
    await consumerBatchHandler(bus, engineConsumer(broken))([job(WS, traceId(6))])
    const failed = (await readAll(engineJobsDlqTopic('decision_trace'))).slice(dlqBefore + 1).map((r) => engineJobFailedV1.decode(r.value))
    expect(failed).toMatchObject([{ trace_id: traceId(6), attempts: 3, error: 'credential does not unseal (test)' }])
    expect(e.calls).toEqual([traceId(5)])
  })

  it('keeps the lag bounded through a burst beyond capacity: the jobs outside the sample are skipped and recorded, the results say their sample, none is lost', async () => {
    // A simulated clock: every job arrives at t0, each analysis takes 250 ms of it, the bound is 10 s.
    const t0 = 1_800_000_000_000
    let t = t0
    let worstWaitMs = 0
    const calls: string[] = []
    const engine: EngineDefinition = {
      name: 'decomposition',
      version: 't1',
      async run(view) {
        calls.push(view.trace_id)
        worstWaitMs = Math.max(worstWaitMs, t - t0)
        t += 250
        return { payload: { trace_id: view.trace_id, sub_tasks: [] }, mode: 'deterministic' }
      },
    }
    const burst = Array.from({ length: 400 }, (_, i) => (0xb000 + i).toString(16).padStart(32, 'b'))
    const start = BigInt(Date.now() - 60_000) * 1_000_000n
    await store.insert(
      'spans_v1',
      burst.map((id) => ({
        org_id: ORG, workspace_id: WS, project_id: 'p', trace_id: id, span_id: '0000000000000001', parent_span_id: '', name: 'root', kind: 'INTERNAL',
        start_time: start.toString(), end_time: (start + 1_000_000n).toString(), attributes: {}, received_at: String(Date.now()), expires_at: Math.floor(Date.now() / 1000) + 3600,
      })),
    )
    const sampler = new BacklogSampler({ configuredRate: 1, maxLagMs: 10_000 })
    const worker = engineConsumer({ ...deps(engine), now: () => t, sampling: { sampler }, defaultRetentionHours: 24 })
    const handle = consumerBatchHandler(bus, worker)
    const resultsBefore = (await readAll(TOPICS.engineResults)).length
    for (let i = 0; i < burst.length; i += 100)
      await handle(burst.slice(i, i + 100).map((id) => ({ ...job(WS, id, t0, 'decomposition'), timestamp: t0, value: traceCompletedV1.encode({ org_id: ORG, workspace_id: WS, project_id: 'p', trace_id: id, span_count: 1, trace_start_unix_nano: start, trace_end_unix_nano: start, last_span_received_at_ms: t0, completed_at_ms: t0, engine: 'decomposition' }) })))

    // Analysing all 400 would have ended 100 s behind; the longest any analysed job waited stays near the bound.
    expect(worstWaitMs).toBeLessThan(15_000)
    expect(worstWaitMs).toBeGreaterThanOrEqual(10_000)
    // Results and skips go to the sink together; it lands the skips in engine_skips_v1.
    const written = (await readAll(TOPICS.engineResults)).slice(resultsBefore)
    await consumerBatchHandler(bus, resultSinkConsumer(store, log))(written)
    await worker.tally.flush(store)
    const results = written.map((r) => engineResultV1.decode(r.value)).filter((r) => r.mode !== 'skipped')
    const analysed = new Set(results.map((r) => r.trace_id))
    expect([...analysed].sort()).toEqual([...calls].sort())
    const rows = await store.query<{ trace_id: string; reason: string; sample_rate: number }>(
      `SELECT trace_id, reason, sample_rate FROM engine_skips_v1 FINAL WHERE workspace_id = {ws:UUID} AND engine = 'decomposition' AND trace_id IN {ids:Array(String)}`,
      { ws: WS, ids: burst },
    )
    const skips = new Map(rows.map((r) => [r.trace_id, r]))
    // What the endpoints read.
    const [one] = skips.keys()
    expect((await latestEngineSkips(store, WS, one!, ['decomposition'])).get('decomposition')).toMatchObject({ reason: 'backlog', sample_rate: skips.get(one!)!.sample_rate })
    // Every job is accounted for: analysed (a result) or skipped (a row), never both, never neither.
    expect(analysed.size + skips.size).toBe(burst.length)
    for (const id of burst) expect(analysed.has(id) !== skips.has(id), id).toBe(true)
    expect(skips.size).toBeGreaterThan(250)
    // Chosen by the trace id's hash: a skipped trace lies outside its sample, an analysed one inside.
    for (const [id, skip] of skips) {
      expect(skip.reason).toBe('backlog')
      expect(samplePoint(id)).toBeGreaterThanOrEqual(skip.sample_rate)
    }
    const sampled = results.map((r) => ({ id: r.trace_id, sampled: (JSON.parse(r.payload_json) as { sampled: { rate: number; reason: string } | null }).sampled }))
    expect(sampled.filter((r) => r.sampled === null).length).toBeGreaterThan(5) // before the bound was reached: every trace
    for (const r of sampled.filter((x) => x.sampled !== null)) {
      expect(r.sampled!.reason).toBe('backlog')
      expect(samplePoint(r.id)).toBeLessThan(r.sampled!.rate)
    }
    // Counted for ingestion health: the hour's analysed and skipped jobs.
    const counts = await store.query<{ analysed: number; skipped: number }>(
      `SELECT sum(analysed) AS analysed, sum(skipped) AS skipped FROM engine_jobs_hourly_v1 WHERE workspace_id = {ws:UUID} AND engine = 'decomposition'`,
      { ws: WS },
    )
    expect({ analysed: Number(counts[0]!.analysed), skipped: Number(counts[0]!.skipped) }).toEqual({ analysed: analysed.size, skipped: skips.size })
    expect(sampler.decision().reason).toBe('backlog')
  }, 60_000)

  it('skips without loading or running the traces outside a configured sample, the same ones every time', async () => {
    const e = countingEngine('decision_trace')
    const ids = Array.from({ length: 40 }, (_, i) => (0xc000 + i).toString(16).padStart(32, 'c'))
    await Promise.all(ids.map((id) => storeTrace(WS, id, 1)))
    const before = (await readAll(TOPICS.engineResults)).length
    const run = () => consumerBatchHandler(bus, engineConsumer({ ...deps(e.definition), sampling: { sampler: new BacklogSampler({ configuredRate: 0.5, maxLagMs: 0 }) }, defaultRetentionHours: 24 }))(ids.map((id) => job(WS, id)))
    await run()
    await consumerBatchHandler(bus, resultSinkConsumer(store, log))((await readAll(TOPICS.engineResults)).slice(before))
    const first = [...e.calls].sort()
    expect(first).toEqual(ids.filter((id) => samplePoint(id) < 0.5).sort())
    expect(first.length).toBeGreaterThan(5)
    expect(first.length).toBeLessThan(35)
    e.calls.length = 0
    await run()
    expect([...e.calls].sort()).toEqual(first)
    const skipped = ids.find((id) => samplePoint(id) >= 0.5)!
    expect((await latestEngineSkips(store, WS, skipped, ['decision_trace'])).get('decision_trace')).toMatchObject({ reason: 'configured', sample_rate: 0.5 })
  }, 60_000)

  it('skips a trace with more stored spans than the bound as too_large, before loading it, and loads the others in parts under it', async () => {
    const e = countingEngine('decision_trace')
    const [small, large, other] = [0xd001, 0xd002, 0xd003].map((n) => n.toString(16).padStart(32, 'd')) as [string, string, string]
    await Promise.all([storeTrace(WS, small, 3), storeTrace(WS, large, 5), storeTrace(WS, other, 3)])
    const before = (await readAll(TOPICS.engineResults)).length
    let loads = 0
    const counted = Object.create(store) as Store
    counted.query = (sql, params, opts) => ((loads += opts?.tag === 'engines.trace-spans' ? 1 : 0), store.query(sql, params, opts))
    // Every job says 3 spans, as a re-opened trace's job counts only the spans since it re-opened: the store is asked.
    await consumerBatchHandler(bus, engineConsumer({ ...deps(e.definition), store: counted, maxTrace: { spans: 4, bytes: 1 << 20 }, defaultRetentionHours: 24 }))([job(WS, small), job(WS, large), job(WS, other)])
    expect([...e.calls].sort()).toEqual([small, other])
    // 3 + 3 spans are over the bound of 4: two loads.
    expect(loads).toBe(2)
    await consumerBatchHandler(bus, resultSinkConsumer(store, log))((await readAll(TOPICS.engineResults)).slice(before))
    expect((await latestEngineSkips(store, WS, large, ['decision_trace'])).get('decision_trace')).toMatchObject({ reason: 'too_large', sample_rate: 1 })
    expect((await latestEngineSkips(store, WS, small, ['decision_trace'])).size).toBe(0)
  }, 60_000)

  it('skips a trace whose stored attributes are over the byte bound as too_large', async () => {
    const e = countingEngine('decision_trace')
    const id = (0xd004).toString(16).padStart(32, 'd')
    await storeTrace(WS, id, 2)
    // Each stored span's attributes ({ n: '0' }) take a few bytes: a bound of one byte is under them.
    await consumerBatchHandler(bus, engineConsumer({ ...deps(e.definition), maxTrace: { spans: 100, bytes: 1 }, defaultRetentionHours: 24 }))([job(WS, id)])
    expect(e.calls).toEqual([])
    await consumerBatchHandler(bus, engineConsumer({ ...deps(e.definition), maxTrace: { spans: 100, bytes: 1 << 20 }, defaultRetentionHours: 24 }))([job(WS, id)])
    expect(e.calls).toEqual([id])
  }, 60_000)

  it('drops a job whose trace has aged out, without failing', async () => {
    const e = countingEngine('decision_trace')
    await engineBatchHandler(deps(e.definition))([job(WS, traceId(99))])
    expect(e.calls).toEqual([])
  })
})
