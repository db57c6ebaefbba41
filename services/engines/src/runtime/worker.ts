/**
 * One engine's worker: consumes engine.<name>.jobs.v1 as the group engine-<name>
 * (so each engine keeps its own position and scales out by partitions), analyses
 * each finished trace, and writes the results to engine.results.v1 for the sink.
 *
 * A job whose engine is switched off for its workspace (or gated off by its
 * organization) is dropped before anything is loaded or called: it costs nothing.
 * A failing job is retried with exponential backoff, then written whole to
 * engine.<name>.jobs.v1.dlq (by the consumer runner, as is a job that cannot be
 * read); either way engine_runs_v1 records the outcome, which is what ingestion
 * health reads to call an engine stalled.
 *
 * When jobs arrive faster than the engine analyses them, the worker analyses a
 * sample (sampling.ts): the jobs outside it are skipped before anything is loaded,
 * recorded per trace in engine_skips_v1 (the endpoints say "skipped") and counted in
 * engine_jobs_hourly_v1 and on /metrics; the results of the others say which sample
 * they were computed in (`sampled`).
 */
import { engineJobFailedV1, engineResultV1, traceCompletedV1, traceKey, type TraceCompletedRecord } from '@svc/shared/bus/records'
import { runConsumer, type ConsumerSpec, type DeadLetter, type Delivered, type Rejection } from '@svc/shared/bus/run-consumer'
import { engineGroup, engineJobsTopic, TOPICS } from '@svc/shared/bus/topics'
import type { BatchContext, Bus, ConsumedRecord, OutgoingRecord, Subscription } from '@svc/shared/bus/types'
import type { ControlState } from '@svc/shared/control/state'
import type { EngineSamplingStatus, SampleDecision } from '@svc/shared/domain/engine-sampling'
import { engineAllowed } from '@svc/shared/domain/engines'
import { workspaceRetentionHours } from '@svc/shared/domain/retention'
import { mapBounded } from '@svc/shared/concurrency'
import type { Logger } from '@svc/shared/log'
import { engineBacklogSeconds, engineJobsCounter, engineSampleRate } from '@svc/shared/metrics'
import { recordSkippedTraces, spansOfTraces, type EngineInputSpan, type EngineSkipRow } from '@svc/shared/store/queries/engine-results'
import { recordEngineJobCounts, recordEngineRuns, type EngineJobCounts, type EngineRun } from '@svc/shared/store/queries/ingestion-health'
import type { Store } from '@svc/shared/store/types'
import { traceViewFromRows } from '../trace-view.js'
import { inSample, type BacklogSampler } from './sampling.js'
import type { EngineContext, EngineDefinition, EngineOutcome } from './types.js'

export interface RetryPolicy {
  attempts: number
  baseDelayMs: number
}

export interface WorkerDeps {
  bus: Bus
  store: Store
  state: ControlState
  engine: EngineDefinition
  /** The context of one organization's workspace (its LLM and search clients, priors), per batch. */
  contextFor(orgId: string, workspaceId: string): Promise<EngineContext>
  retry: RetryPolicy
  /** Traces analysed at once (bounds concurrent LLM calls per worker). */
  concurrency: number
  log: Logger
  now?: () => number
  /**
   * Beside a hot path (the all-in-one): `busy` says when it is behind, and every
   * engine's batches take turns in one lane, so analysis uses the time assembly
   * leaves free rather than racing it for the cores and the store.
   */
  background?: { busy(): boolean; lane<T>(fn: () => Promise<T>): Promise<T> }
  /** Which sample of the traces to analyse (sampling.ts); absent: every trace, however late. */
  sampling?: {
    sampler: BacklogSampler
    /** The deployment's retention, for the expiry of a skipped trace's row (its workspace's own window wins). */
    defaultRetentionHours: number
  }
}

/** The longest a batch waits for a busy hot path (a Kafka consumer must not hold a batch past its session timeout). */
const MAX_YIELD_MS = 10_000

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function withRetries<T>(fn: () => Promise<T>, policy: RetryPolicy): Promise<{ ok: true; value: T; attempts: number } | { ok: false; error: unknown; attempts: number }> {
  let error: unknown
  for (let attempt = 1; attempt <= policy.attempts; attempt++) {
    try {
      return { ok: true, value: await fn(), attempts: attempt }
    } catch (err) {
      error = err
      if (attempt < policy.attempts) await sleep(policy.baseDelayMs * 4 ** (attempt - 1))
    }
  }
  return { ok: false, error, attempts: policy.attempts }
}

/** The job's trace, from the job itself, else from its key (workspace_id:trace_id). */
function traceIdOf(record: ConsumedRecord): string {
  try {
    return traceCompletedV1.decode(record.value).trace_id
  } catch {
    return record.key?.toString().split(':')[1] ?? ''
  }
}

type Job = { job: TraceCompletedRecord; record: ConsumedRecord }
type Skip = Job & { decision: SampleDecision }

/** One engine's worker as a consumer (group engine-<name>), run by runConsumer. */
export function engineConsumer(deps: WorkerDeps & { maxBatchRecords?: number }): ConsumerSpec<TraceCompletedRecord> {
  const analyse = batchAnalysis(deps)
  const bg = deps.background
  const now = deps.now ?? Date.now
  const sampler = deps.sampling?.sampler
  return {
    group: engineGroup(deps.engine.name),
    topics: { [engineJobsTopic(deps.engine.name)]: traceCompletedV1 },
    maxBatchRecords: deps.maxBatchRecords ?? 100,
    log: deps.log,
    async handle(batch, ctx: BatchContext) {
      sampler?.begin()
      try {
        const { kept, skipped } = planBatch(deps, batch)
        // Skipping takes no turn in the background lane: a worker held there could never shed its backlog.
        if (kept.length === 0) return await analyse([], skipped)
        if (!bg) return await analyse(kept, skipped)
        return await bg.lane(async () => {
          for (const until = Date.now() + MAX_YIELD_MS; bg.busy() && Date.now() < until && !ctx.closing; ) await sleep(100)
          return analyse(kept, skipped)
        })
      } finally {
        sampler?.end(now())
      }
    },
    // The jobs topic's dead letters keep the job whole, ready to be produced back to replay it.
    encodeDeadLetter: (d: DeadLetter) =>
      engineJobFailedV1.encode({
        engine: deps.engine.name,
        job: d.record.value,
        workspace_id: d.workspaceId,
        trace_id: traceIdOf(d.record),
        error: d.reason,
        attempts: d.attempts,
        failed_at_ms: now(),
      }),
  }
}

/**
 * The jobs of a batch to analyse, and those outside the sample. At-least-once
 * delivery and re-opened traces can put one trace in a batch twice: its newest job
 * counts. A job whose engine is off for its workspace is dropped here.
 */
function planBatch(deps: WorkerDeps, batch: Array<Delivered<TraceCompletedRecord>>): { kept: Job[]; skipped: Skip[] } {
  const { engine, state } = deps
  const jobs = new Map<string, Job>()
  for (const { value: job, record } of batch) {
    const key = traceKey(job.workspace_id, job.trace_id)
    const seen = jobs.get(key)
    if (!seen || seen.job.completed_at_ms <= job.completed_at_ms) jobs.set(key, { job, record })
  }
  const live = [...jobs.values()].filter(({ job }) => {
    const ws = state.workspaces.get(job.workspace_id)
    const run = ws !== undefined && ws.deleted_at_ms === null && engineAllowed(state, job.workspace_id, engine.name)
    if (!run) engineJobsCounter.inc({ engine: engine.name, outcome: 'skipped' })
    return run
  })
  const sampler = deps.sampling?.sampler
  if (!sampler || live.length === 0) return { kept: live, skipped: [] }
  // The lag is the wait of the batch's oldest job on the topic (a replayed job waits from its replay).
  const now = (deps.now ?? Date.now)()
  const decision = sampler.observe(now - Math.min(...live.map((j) => j.record.timestamp)), now)
  const kept: Job[] = []
  const skipped: Skip[] = []
  for (const j of live) {
    if (inSample(j.job.trace_id, decision.rate)) kept.push(j)
    else skipped.push({ ...j, decision })
  }
  return { kept, skipped }
}

/** What one batch produced, gathered workspace by workspace and written at its end. */
interface BatchOutput {
  results: OutgoingRecord[]
  failed: Rejection[]
  runs: EngineRun[]
  /** Per workspace: its jobs by outcome. */
  counts: Map<string, EngineJobCounts>
  skipped: Skip[]
}

function countsOf(out: BatchOutput, workspaceId: string, engine: string, atMs: number): EngineJobCounts {
  let c = out.counts.get(workspaceId)
  if (!c) out.counts.set(workspaceId, (c = { workspace_id: workspaceId, engine, at_ms: atMs, analysed: 0, skipped: 0, failed: 0 }))
  return c
}

function batchAnalysis(deps: WorkerDeps) {
  const now = deps.now ?? Date.now
  return async (live: Job[], skipped: Skip[]): Promise<Rejection[]> => {
    const byWorkspace = new Map<string, Job[]>()
    for (const j of live) {
      const list = byWorkspace.get(j.job.workspace_id) ?? []
      list.push(j)
      byWorkspace.set(j.job.workspace_id, list)
    }
    const out: BatchOutput = { results: [], failed: [], runs: [], counts: new Map(), skipped }
    for (const [workspaceId, group] of byWorkspace) await analyseWorkspace(deps, workspaceId, group, out)

    const engine = deps.engine.name
    const skips = skipRows(deps, skipped, now())
    // Skipping every job a workspace had in the batch is handling them: the engine is sampling, not stalled.
    for (const ws of new Set(skips.map((r) => r.workspace_id))) {
      if (!out.runs.some((r) => r.workspace_id === ws)) out.runs.push({ workspace_id: ws, engine, finished_at_ms: now(), ok: true })
    }
    for (const r of skips) countsOf(out, r.workspace_id, engine, now()).skipped++
    if (skips.length) engineJobsCounter.inc({ engine, outcome: 'sampled_out' }, skips.length)
    // Results and skips before the runs that report them, and the failed jobs' dead letters
    // (written by the runner) after all: a crash in between re-runs the batch, never loses it.
    await Promise.all([out.results.length ? deps.bus.produce(TOPICS.engineResults, out.results) : null, recordSkippedTraces(deps.store, skips)])
    await Promise.all([recordEngineRuns(deps.store, out.runs), recordEngineJobCounts(deps.store, [...out.counts.values()])])
    return out.failed
  }
}

/** One workspace's jobs of a batch: their spans in one query, its context once, then each job. */
async function analyseWorkspace(deps: WorkerDeps, workspaceId: string, group: Job[], out: BatchOutput): Promise<void> {
  const { engine, log } = deps
  const now = deps.now ?? Date.now
  const sampler = deps.sampling?.sampler
  const spans = await spansOfTraces(deps.store, workspaceId, group.map((g) => g.job.trace_id))
  const byTrace = new Map<string, EngineInputSpan[]>()
  for (const s of spans) {
    const list = byTrace.get(s.trace_id) ?? []
    list.push(s)
    byTrace.set(s.trace_id, list)
  }
  // A context that cannot be built (a credential that no longer unseals) fails these jobs like a run would.
  const context = await withRetries(() => deps.contextFor(group[0]!.job.org_id, workspaceId), deps.retry)
  if (!context.ok) {
    const error = context.error instanceof Error ? context.error.message : String(context.error)
    log.warn({ workspace_id: workspaceId, jobs: group.length, error }, 'engine context failed; jobs dead-lettered')
    engineJobsCounter.inc({ engine: engine.name, outcome: 'failed' }, group.length)
    for (const { record } of group) out.failed.push({ record, reason: error, cause: 'failed', workspaceId, attempts: context.attempts })
    out.runs.push({ workspace_id: workspaceId, engine: engine.name, finished_at_ms: now(), ok: false })
    countsOf(out, workspaceId, engine.name, now()).failed += group.length
    return
  }
  const ctx = context.value
  let ok = 0
  let failures = 0
  await mapBounded(group, deps.concurrency, async ({ job, record }) => {
    // Checked again as the job starts: a batch that took long must not outlast the lag bound.
    const decision = sampler?.observe(now() - record.timestamp, now())
    if (decision && !inSample(job.trace_id, decision.rate)) return void out.skipped.push({ job, record, decision })
    const rows = byTrace.get(job.trace_id)
    // Aged out (or deleted) before its turn: nothing is left to analyse.
    if (!rows) return engineJobsCounter.inc({ engine: engine.name, outcome: 'gone' })
    const view = traceViewFromRows(workspaceId, job.trace_id, rows)
    const outcome = await withRetries<EngineOutcome>(() => engine.run(view, ctx), deps.retry)
    if (!outcome.ok) {
      failures++
      engineJobsCounter.inc({ engine: engine.name, outcome: 'failed' })
      const error = outcome.error instanceof Error ? outcome.error.message : String(outcome.error)
      log.warn({ workspace_id: workspaceId, trace_id: job.trace_id, attempts: outcome.attempts, error }, 'engine job failed; dead-lettered')
      out.failed.push({ record, reason: error, cause: 'failed', workspaceId, orgId: job.org_id, attempts: outcome.attempts })
      return
    }
    ok++
    engineJobsCounter.inc({ engine: engine.name, outcome: 'ok' })
    const o = outcome.value
    out.results.push({
      key: traceKey(workspaceId, job.trace_id),
      value: engineResultV1.encode({
        org_id: job.org_id,
        workspace_id: workspaceId,
        trace_id: job.trace_id,
        engine: engine.name,
        engine_version: engine.version,
        mode: o.mode,
        // The sample this result was computed in (null: every trace is analysed), served with it.
        payload_json: JSON.stringify({ ...o.payload, sampled: decision?.reason ? { rate: decision.rate, reason: decision.reason } : null }),
        extras_json: JSON.stringify(o.extras ?? {}),
        llm_input_tokens: o.usage?.inputTokens ?? 0,
        llm_output_tokens: o.usage?.outputTokens ?? 0,
        computed_at_ms: now(),
        expires_at_s: Math.max(...rows.map((r) => Number(r.expires_at_s))),
      }),
    })
  })
  const at = now()
  if (ok) out.runs.push({ workspace_id: workspaceId, engine: engine.name, finished_at_ms: at, ok: true })
  if (failures) out.runs.push({ workspace_id: workspaceId, engine: engine.name, finished_at_ms: at, ok: false })
  const c = countsOf(out, workspaceId, engine.name, at)
  c.analysed += ok
  c.failed += failures
}

/** The rows that say which traces the engine skipped, and why. */
function skipRows(deps: WorkerDeps, skipped: Skip[], atMs: number): EngineSkipRow[] {
  const hours = deps.sampling?.defaultRetentionHours ?? 0
  return skipped.map(({ job, decision }) => ({
    workspace_id: job.workspace_id,
    trace_id: job.trace_id,
    engine: deps.engine.name,
    reason: decision.reason ?? 'configured',
    sample_rate: decision.rate,
    skipped_at: String(atMs),
    // The trace's own expiry, as its results would have (trace start, else its completion, + the workspace's window).
    expires_at: (Number(BigInt(job.trace_start_unix_nano) / 1_000_000_000n) || Math.floor(job.completed_at_ms / 1000)) + workspaceRetentionHours(deps.state, job.workspace_id, hours) * 3600,
  }))
}

/** How often a sampling worker reports its state, and how long without a batch counts as idle. */
const REPORT_MS = 5000
const QUIET_MS = 2000

/**
 * Runs the worker; with sampling, it also reports its sample and lag every few
 * seconds, on /metrics and through `publish` (the engines service: the shared cache,
 * for ingestion health), and lets an idle worker's rate grow back.
 */
export async function startEngineWorker(
  deps: WorkerDeps & { maxBatchRecords?: number; publish?(status: EngineSamplingStatus): Promise<void> },
): Promise<Subscription> {
  const sub = await runConsumer(deps.bus, engineConsumer(deps))
  const sampler = deps.sampling?.sampler
  if (!sampler) return sub
  const now = deps.now ?? Date.now
  const engine = deps.engine.name
  const report = () => {
    const d = sampler.tick(now(), QUIET_MS)
    engineSampleRate.set({ engine }, d.rate)
    engineBacklogSeconds.set({ engine }, sampler.lagMs / 1000)
    deps.publish?.({ ...d, lag_ms: sampler.lagMs, measured_at_ms: sampler.measuredAtMs }).catch((err: unknown) => deps.log.warn({ err }, 'could not publish the sampling state'))
  }
  report()
  const timer = setInterval(report, REPORT_MS)
  timer.unref()
  return {
    ready: sub.ready,
    close: async () => {
      clearInterval(timer)
      await sub.close()
    },
  }
}
