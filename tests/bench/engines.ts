/**
 * pnpm bench:engines [--traces 2000] [--engines all]
 *
 * Engine throughput on this machine, two ways:
 * 1. compute: each engine's deterministic algorithm over the labelled fixture
 *    traces (tests/fixtures/engines), cycled, in this process: traces/s and
 *    per-trace latency percentiles.
 * 2. pipeline: the same traces stored in embedded ClickHouse under fresh ids, one
 *    job per trace on each engine's topic (embedded log), then the real workers and
 *    results sink started: traces/s from start until every result is in
 *    engine_results_v1, per engine and all engines together.
 * Ceilings: the bare store work of the same traces (the batched span loads alone,
 * and one insert of the same result rows), with the pipeline as a ratio of them.
 * Both run in the default mode, with the local sentence model (loaded before the
 * clock starts); `--lexical` runs the fallback without it. The compute part gives
 * alignment an enabled policy (tests/fixtures/alignment/refunds.json, searched in
 * memory); the pipeline's workspace has none, so alignment only checks its setting there.
 * First, with the model: the main thread's event-loop delay while 200 new sentences
 * are embedded in this thread (the model called directly) and in the model's worker
 * thread (semantic/threaded-model.ts, what the engines use).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { spanRow } from '@svc/assembler/assemble'
import { ENGINE_DEFINITIONS } from '@svc/engines/registry'
import { loadAlignmentFixtures } from '@svc/engines/alignment/eval-fixtures'
import { memorySearch } from '@svc/engines/alignment/memory-search'
import { semanticLayer } from '@svc/engines/semantic/layer'
import { modelDir } from '@svc/engines/semantic/model-files'
import { SentenceModel } from '@svc/engines/semantic/sentence-model'
import { startEngines } from '@svc/engines/service'
import { FIXTURE_WORKSPACE, fixtureView, loadFixtures } from '@svc/engines/test-support/fixtures'
import { decodeTraceRequest } from '@svc/ingest/otlp/decode'
import { createEmbeddedBus } from '@svc/shared/bus/embedded/index'
import { traceCompletedV1, traceKey } from '@svc/shared/bus/records'
import { allTopicSpecs, engineJobsTopic, TRACE_ENGINES, type TraceEngine } from '@svc/shared/bus/topics'
import { createMemoryCache } from '@svc/shared/cache/memory'
import { loadConfig } from '@svc/shared/config'
import type { ControlEvent } from '@svc/shared/control/events'
import { ControlState } from '@svc/shared/control/state'
import { loadPriceTable } from '@svc/shared/domain/pricing'
import { createLogger } from '@svc/shared/log'
import { spansOfTraces } from '@svc/shared/store/queries/engine-results'
import { createStore } from '@svc/shared/store/index'
import { migrate } from '@svc/shared/store/migrate'
import { REPO_ROOT } from '../support/process.js'
import { hex } from '../support/traces.js'
import { fmt, progress, summarize, table } from './stats.js'

const { values: args } = parseArgs({ options: { traces: { type: 'string', default: '2000' }, engines: { type: 'string', default: 'all' }, lexical: { type: 'boolean', default: false } } })
const TRACES = Number(args.traces)
const engines: TraceEngine[] = args.engines === 'all' ? TRACE_ENGINES.filter((e) => ENGINE_DEFINITIONS.has(e)) : (args.engines!.split(',') as TraceEngine[])
const ORG = '00000000-0000-4000-8000-0000000000e0'
const prices = loadPriceTable()
const log = createLogger({ level: 'warn' })
const fixtures = loadFixtures()
const views = fixtures.map(fixtureView)

// The sentence model, loaded once before any clock starts (as a process does on its first trace); --lexical: without it.
const modelDirectory = args.lexical ? join(REPO_ROOT, '.bench-no-model') : modelDir(process.env.SVC_MODEL_DIR)
const sentenceModel = await semanticLayer(modelDirectory).embedder()
process.stdout.write(`\nmode: ${sentenceModel ? `deterministic (${sentenceModel.model})` : 'deterministic-lexical (no sentence model)'}\n`)

// 0. The model off the event loop: what a burst of embeddings does to everything else on the main thread.
if (sentenceModel) {
  const loopDelay = async (embed: (texts: string[]) => Promise<unknown>, tag: string) => {
    const texts = Array.from({ length: 200 }, (_, i) => `${tag} sentence ${i}: the refund of $${i}.50 was approved on day ${i} and reaches the card within ${i % 9} days.`)
    const h = monitorEventLoopDelay({ resolution: 1 })
    h.enable()
    const t0 = performance.now()
    await embed(texts)
    const ms = performance.now() - t0
    h.disable()
    return `${fmt(ms / texts.length, 2)} ms per sentence; event-loop delay p50 ${fmt(h.percentile(50) / 1e6, 1)} ms, p99 ${fmt(h.percentile(99) / 1e6, 1)} ms, max ${fmt(h.max / 1e6, 1)} ms`
  }
  const inThread = await SentenceModel.load(modelDirectory)
  process.stdout.write('\nsentence model: 200 new sentences embedded while the event loop is watched\n')
  table([
    ['in this thread (SentenceModel)', await loopDelay((t) => inThread.embed(t), 'a')],
    ['in the model thread (the engines)', await loopDelay((t) => sentenceModel.embed(t), 'b')],
  ])
  await inThread.release()
}

const policy = loadAlignmentFixtures().find((f) => f.file === 'refunds.json')!.policy
const searchPolicy = memorySearch([{ doc_id: policy.id, text: policy.document }], sentenceModel ?? undefined)

// 1. compute
process.stdout.write(`\nengines: compute only (${views.length} labelled traces, cycled; ${fmt(TRACES)} runs per engine)\n`)
const computeRows: Array<[string, string]> = []
/** Seconds of pure compute for TRACES traces, per engine: part of the one-thread ceiling below. */
const computeSecs = new Map<TraceEngine, number>()
for (const name of engines) {
  const def = ENGINE_DEFINITIONS.get(name)!
  const ctx = {
    orgId: ORG, workspaceId: FIXTURE_WORKSPACE, prices, llm: null, search: null, broadenSources: false, priorOf: () => 0.5,
    semantic: async () => sentenceModel,
    alignmentPolicy: { enabled: true, description: policy.description },
    searchPolicy,
  }
  const lat: number[] = []
  const t0 = performance.now()
  for (let i = 0; i < TRACES; i++) {
    const s = performance.now()
    // A fresh trace id per run: per-trace caches (the shared claim judgement) must not turn repeats into hits.
    await def.run({ ...views[i % views.length]!, trace_id: `bench-${i}` }, ctx)
    lat.push(performance.now() - s)
  }
  const secs = (performance.now() - t0) / 1000
  computeSecs.set(name, secs)
  const l = summarize(lat)
  computeRows.push([name, `${fmt(TRACES / secs)} traces/s   per trace p50 ${fmt(l.p50, 3)} ms  p95 ${fmt(l.p95, 3)} ms  p99 ${fmt(l.p99, 3)} ms`])
}
table(computeRows)

// 2. pipeline
const dataDir = mkdtempSync(join(REPO_ROOT, '.bench-data-'))
try {
  // No sampling: the pipeline is measured until every trace has a result (the jobs wait longer than the lag bound by design).
  const config = loadConfig({ SVC_DATA_DIR: dataDir, SVC_ENGINES: engines.join(','), LOG_LEVEL: 'warn', SVC_MODEL_DIR: modelDirectory, SVC_ENGINE_MAX_LAG_SECONDS: '0' })
  const store = await createStore(config, log)
  await migrate(store, log)
  const bus = await createEmbeddedBus({ dir: join(dataDir, 'log') })
  await bus.ensureTopics(allTopicSpecs({ partitions: 2, replicationFactor: 1 }))
  const state = new ControlState()
  let n = 0
  const ev = (type: ControlEvent['type'], payload: unknown) => ({ type, payload, actor: 'bench', at_ms: 1, event_id: String(n++) }) as ControlEvent
  state.apply(ev('org.created', { org_id: ORG, slug: 'bench', name: 'bench' }))
  state.apply(ev('workspace.created', { workspace_id: FIXTURE_WORKSPACE, org_id: ORG, slug: 'bench', name: 'bench' }))
  state.apply(ev('workspace.setting_set', { workspace_id: FIXTURE_WORKSPACE, name: 'engines', value: Object.fromEntries(engines.map((e) => [e, true])) }))

  progress(`storing ${fmt(TRACES)} traces`)
  const ids: string[] = []
  const anHourAgoNs = BigInt(Date.now() - 3600_000) * 1_000_000n
  let rows = []
  for (let i = 0; i < TRACES; i++) {
    const f = fixtures[i % fixtures.length]!
    const id = hex(16)
    ids.push(id)
    const spans = (f.spans as Array<Record<string, unknown>>).map((s) => ({ ...s, trace_id: id }))
    const decoded = decodeTraceRequest(spans, { principal: { org_id: ORG, workspace_id: FIXTURE_WORKSPACE, project_id: 'bench' }, receivedAtMs: Date.now() })
    if (!decoded.ok) throw new Error(decoded.message)
    // Moved to an hour ago, so the traces are inside retention.
    const first = decoded.spans.reduce((m, s) => (BigInt(s.start_time_unix_nano) < m ? BigInt(s.start_time_unix_nano) : m), BigInt(decoded.spans[0]!.start_time_unix_nano))
    const by = anHourAgoNs - first
    for (const s of decoded.spans)
      rows.push(spanRow({ ...s, start_time_unix_nano: BigInt(s.start_time_unix_nano) + by, end_time_unix_nano: BigInt(s.end_time_unix_nano) + by }, { retentionHours: 720, costProvider: 'openai', prices }))
    if (rows.length >= 20_000) {
      await store.insert('spans_v1', rows)
      rows = []
    }
  }
  if (rows.length) await store.insert('spans_v1', rows)

  progress('writing the jobs')
  for (const engine of engines)
    await bus.produce(
      engineJobsTopic(engine),
      ids.map((id) => ({ key: traceKey(FIXTURE_WORKSPACE, id), value: traceCompletedV1.encode({ org_id: ORG, workspace_id: FIXTURE_WORKSPACE, project_id: 'bench', trace_id: id, span_count: 1, trace_start_unix_nano: 1, trace_end_unix_nano: 2, last_span_received_at_ms: 1, completed_at_ms: Date.now(), engine }) })),
    )

  const landed = async () => {
    const r = await store.query<{ engine: string; n: number }>(`SELECT engine, uniqExact(trace_id) AS n FROM engine_results_v1 WHERE workspace_id = {ws:UUID} GROUP BY engine`, { ws: FIXTURE_WORKSPACE })
    return new Map(r.map((x) => [x.engine, Number(x.n)]))
  }
  progress(`running ${engines.length} engines over ${fmt(TRACES)} traces each`)
  const t0 = performance.now()
  const running = await startEngines({ bus, store, control: { state }, cache: createMemoryCache(), config, log })
  const doneAt = new Map<string, number>()
  while (doneAt.size < engines.length) {
    const counts = await landed()
    for (const e of engines) if (!doneAt.has(e) && (counts.get(e) ?? 0) >= TRACES) doneAt.set(e, performance.now() - t0)
    if (performance.now() - t0 > 600_000) throw new Error(`timed out; landed ${JSON.stringify([...counts])}`)
    await new Promise((r) => setTimeout(r, 100))
  }
  const total = (performance.now() - t0) / 1000
  await running.close()

  process.stdout.write(`\nengines: pipeline (jobs topic → worker → engine.results.v1 → sink → engine_results_v1; all engines at once on this machine)\n`)
  table([
    ...engines.map((e): [string, string] => [e, `all ${fmt(TRACES)} results landed after ${fmt(doneAt.get(e)! / 1000, 2)} s → ${fmt(TRACES / (doneAt.get(e)! / 1000))} traces/s`]),
    ['all engines', `${fmt((TRACES * engines.length) / total)} results/s (${fmt(TRACES / total)} traces/s through every engine)`],
  ])

  // Ceilings: the store work alone for the same traces.
  const t1 = performance.now()
  for (let i = 0; i < ids.length; i += 200) await spansOfTraces(store, FIXTURE_WORKSPACE, ids.slice(i, i + 200))
  const loadSecs = (performance.now() - t1) / 1000
  const sample = await store.query<Record<string, unknown>>(`SELECT * FROM engine_results_v1 WHERE workspace_id = {ws:UUID} LIMIT {n:UInt32}`, { ws: FIXTURE_WORKSPACE, n: TRACES })
  const t2 = performance.now()
  await store.insert('engine_results_v1', sample.map((r) => ({ ...r, computed_at: String(Date.now()) })))
  const insertSecs = (performance.now() - t2) / 1000
  // One process, one JS thread: every engine's compute plus every engine's own span
  // load and result insert, done back to back, is what the pipeline cannot beat.
  const serialSecs = [...computeSecs.values()].reduce((a, b) => a + b, 0) + engines.length * (loadSecs + insertSecs)
  process.stdout.write(`\nceilings (bare work for ${fmt(TRACES)} traces)\n`)
  table([
    ['span loads (200 traces per query)', `${fmt(loadSecs * 1000)} ms → ${fmt(TRACES / loadSecs)} traces/s`],
    ['insert of the same result rows', `${fmt(insertSecs * 1000)} ms → ${fmt(TRACES / insertSecs)} rows/s`],
    ['compute + load + insert, every engine, back to back', `${fmt(serialSecs, 2)} s → ${fmt((TRACES * engines.length) / serialSecs)} results/s`],
    ['pipeline / that ceiling', `${fmt((100 * serialSecs) / total, 1)}%`],
  ])
  await bus.close()
  await store.close()
} finally {
  rmSync(dataDir, { recursive: true, force: true })
}
