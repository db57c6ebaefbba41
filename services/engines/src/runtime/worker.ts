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
 * recorded per trace (through the results sink into engine_skips_v1: the endpoints
 * say "skipped") and counted (job-tally.ts, engine_jobs_hourly_v1, and /metrics); the
 * results of the others say which sample they were computed in (`sampled`).
 */
import { engineJobFailedV1, engineResultV1, traceCompletedV1, traceKey, type TraceCompletedRecord } from '@svc/shared/bus/records'
import { runConsumer, type ConsumerSpec, type DeadLetter, type Delivered, type Rejection } from '@svc/shared/bus/run-consumer'
import { engineGroup, engineJobsTopic, TOPICS } from '@svc/shared/bus/topics'
import type { BatchContext, Bus, ConsumedRecord, OutgoingRecord, Subscription } from '@svc/shared/bus/types'
import type { BackgroundLane } from '@svc/shared/background-lane'
import type { ControlState } from '@svc/shared/control/state'
import type { EngineSamplingStatus, SkipReason } from '@svc/shared/domain/engine-sampling'
import { engineAllowed } from '@svc/shared/domain/engines'
import { workspaceRetentionHours } from '@svc/shared/domain/retention'
import { mapBounded } from '@svc/shared/concurrency'
import { groupBy } from '@svc/shared/group-by'
import type { Logger } from '@svc/shared/log'
import { engineBacklogSeconds, engineJobsCounter, engineSampleRate } from '@svc/shared/metrics'
import { spansOfTraces, storedTraceSizes, type StoredSize } from '@svc/shared/store/queries/engine-results'
import { recordEngineRuns, type EngineRun } from '@svc/shared/store/queries/ingestion-health'
import type { Store } from '@svc/shared/store/types'
import { traceViewFromRows } from '../trace-view.js'
import { JobTally, type JobOutcome } from './job-tally.js'
import { SKIPPED_MODE, type SkippedPayload } from './result-sink.js'
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
   * Beside a hot path (the all-in-one): every engine's batches take turns in the
   * process's background lane, waiting while the hot path is busy, so analysis uses
   * the time assembly leaves free rather than racing it for the cores and the store.
   */
  background?: BackgroundLane
  /**
   * SVC_ENGINE_MAX_TRACE_SPANS and SVC_ENGINE_MAX_TRACE_BYTES: a trace with more stored spans, or attribute bytes, is
   * skipped as too_large before its spans are loaded, and a batch's spans are loaded in parts under both; absent: no bound.
   */
  maxTrace?: StoredSize
  /** Which sample of the traces to analyse (sampling.ts); absent: every trace, however late. */
  sampling?: { sampler: BacklogSampler }
  /** The deployment's retention, for the expiry of a skipped trace's row (its workspace's own window wins). */
  defaultRetentionHours?: number
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

type Failed = { ok: false; error: unknown; attempts: number }
type Attempted<T> = { ok: true; value: T; attempts: number } | Failed

async function withRetries<T>(fn: () => Promise<T>, policy: RetryPolicy): Promise<Attempted<T>> {
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
type Skip = Job & { decision: { rate: number; reason: SkipReason | null } }

/** One engine's worker as a consumer (group engine-<name>), run by runConsumer; its job counts are in `tally`, for whoever runs it to flush. */
export function engineConsumer(deps: WorkerDeps & { maxBatchRecords?: number }): ConsumerSpec<TraceCompletedRecord> & { tally: JobTally } {
  const tally = new JobTally(deps.engine.name)
  const analyse = batchAnalysis(deps, tally)
  const bg = deps.background
  const now = deps.now ?? Date.now
  const sampler = deps.sampling?.sampler
  return {
    tally,
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
        return await bg.run(() => analyse(kept, skipped), ctx)
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
  /** Jobs by workspace and outcome, told to the tally once the batch is written. */
  counts: Array<[workspaceId: string, outcome: JobOutcome, n: number]>
  skipped: Skip[]
}

function batchAnalysis(deps: WorkerDeps, tally: JobTally) {
  const now = deps.now ?? Date.now
  return async (live: Job[], skipped: Skip[]): Promise<Rejection[]> => {
    const byWorkspace = groupBy(live, (j) => j.job.workspace_id)
    const out: BatchOutput = { results: [], failed: [], runs: [], counts: [], skipped }
    for (const [workspaceId, group] of byWorkspace) await analyseWorkspace(deps, workspaceId, group, out)

    // The skipped traces ride with the results to the sink, which lands them in engine_skips_v1: durable before the batch commits.
    const at = now()
    out.results.push(...skipped.map((s) => skipRecord(deps, s, at)))
    for (const { job } of skipped) out.counts.push([job.workspace_id, 'skipped', 1])
    for (const { decision } of skipped) engineJobsCounter.inc({ engine: deps.engine.name, outcome: decision.reason === 'too_large' ? 'too_large' : 'sampled_out' })
    // Results and skips before the runs that report them, and the failed jobs' dead letters
    // (written by the runner) after both: a crash in between re-runs the batch, never loses it.
    if (out.results.length) await deps.bus.produce(TOPICS.engineResults, out.results)
    await recordEngineRuns(deps.store, out.runs)
    for (const [ws, outcome, n] of out.counts) tally.add(ws, at, outcome, n)
    // A workspace whose jobs were all skipped has no run above: skipping them was handling them.
    for (const ws of new Set(skipped.map((s) => s.job.workspace_id))) if (!out.runs.some((r) => r.workspace_id === ws)) tally.sampled(ws, at)
    return out.failed
  }
}

/**
 * Bytes of a result's payload and extras, at most: a record past the broker's message.max.bytes (1 MiB by default)
 * is refused at every try, and would hold the results sink's batch, so such a result fails its job (dead-lettered
 * with the reason) instead. No result of the labelled sets comes near it; a hostile trace's could.
 */
const MAX_RESULT_BYTES = 900 * 1024

type Run = { ok: true; value: EngineOutcome; payloadJson: string; extrasJson: string } | Failed

/** An engine's outcome as the JSON it is sent as (with the sample it was computed in), or a failure when that is too large to send. */
function fitsRecord(r: Attempted<EngineOutcome>, sampled: object | null): Run {
  if (!r.ok) return r
  const payloadJson = JSON.stringify({ ...r.value.payload, sampled })
  const extrasJson = JSON.stringify(r.value.extras ?? {})
  const bytes = Buffer.byteLength(payloadJson) + Buffer.byteLength(extrasJson)
  if (bytes > MAX_RESULT_BYTES) return { ok: false, error: new Error(`result of ${bytes} bytes is over the ${MAX_RESULT_BYTES} one record may carry`), attempts: r.attempts }
  return { ok: true, value: r.value, payloadJson, extrasJson }
}

/**
 * The jobs whose traces are within deps.maxTrace, in parts whose spans are loaded together (within it too, or one
 * trace); the others are skipped as too_large. Sized in the store, not taken from the job: a re-opened trace's job
 * counts only the spans since it re-opened.
 */
async function loadParts(deps: WorkerDeps, workspaceId: string, group: Job[], out: BatchOutput): Promise<Job[][]> {
  const max = deps.maxTrace
  if (max === undefined) return [group]
  const sizes = await storedTraceSizes(deps.store, workspaceId, group.map((g) => g.job.trace_id))
  const none: StoredSize = { spans: 0, bytes: 0 }
  const over = (s: StoredSize) => s.spans > max.spans || s.bytes > max.bytes
  const plus = (a: StoredSize, b: StoredSize): StoredSize => ({ spans: a.spans + b.spans, bytes: a.bytes + b.bytes })
  const parts: Job[][] = []
  const part: Job[] = []
  let inPart = none
  for (const j of group) {
    const size = sizes.get(j.job.trace_id) ?? none
    if (over(size)) {
      out.skipped.push({ ...j, decision: { rate: 1, reason: 'too_large' } })
      continue
    }
    if (part.length && over(plus(inPart, size))) {
      parts.push(part.splice(0))
      inPart = none
    }
    part.push(j)
    inPart = plus(inPart, size)
  }
  if (part.length) parts.push(part)
  return parts
}

/** One workspace's jobs of a batch: its context once, then their spans a part at a time (loadParts), then each job. */
async function analyseWorkspace(deps: WorkerDeps, workspaceId: string, all: Job[], out: BatchOutput): Promise<void> {
  const { engine, log } = deps
  const now = deps.now ?? Date.now
  const sampler = deps.sampling?.sampler
  const parts = await loadParts(deps, workspaceId, all, out)
  const group = parts.flat()
  if (!group.length) return
  // A context that cannot be built (a credential that no longer unseals) fails these jobs like a run would.
  const context = await withRetries(() => deps.contextFor(group[0]!.job.org_id, workspaceId), deps.retry)
  if (!context.ok) {
    const error = context.error instanceof Error ? context.error.message : String(context.error)
    log.warn({ workspace_id: workspaceId, jobs: group.length, error }, 'engine context failed; jobs dead-lettered')
    engineJobsCounter.inc({ engine: engine.name, outcome: 'failed' }, group.length)
    for (const { record } of group) out.failed.push({ record, reason: error, cause: 'failed', workspaceId, attempts: context.attempts })
    out.runs.push({ workspace_id: workspaceId, engine: engine.name, finished_at_ms: now(), ok: false })
    out.counts.push([workspaceId, 'failed', group.length])
    return
  }
  const ctx = context.value
  let ok = 0
  let failures = 0
  for (const part of parts) {
    const byTrace = groupBy(await spansOfTraces(deps.store, workspaceId, part.map((g) => g.job.trace_id)), (s) => s.trace_id)
    await mapBounded(part, deps.concurrency, async ({ job, record }) => {
      // Checked again as the job starts: a batch that took long must not outlast the lag bound.
      const decision = sampler?.observe(now() - record.timestamp, now())
      if (decision && !inSample(job.trace_id, decision.rate)) return void out.skipped.push({ job, record, decision })
      const rows = byTrace.get(job.trace_id)
      // Aged out (or deleted) before its turn: nothing is left to analyse.
      if (!rows) return engineJobsCounter.inc({ engine: engine.name, outcome: 'gone' })
      const view = traceViewFromRows(workspaceId, job.trace_id, rows)
      // The sample this result was computed in (null: every trace is analysed), served with it.
      const sampled = decision?.reason ? { rate: decision.rate, reason: decision.reason } : null
      const outcome = fitsRecord(await withRetries<EngineOutcome>(() => engine.run(view, ctx), deps.retry), sampled)
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
      const { value: o, payloadJson, extrasJson } = outcome
      out.results.push({
        key: traceKey(workspaceId, job.trace_id),
        value: engineResultV1.encode({
          org_id: job.org_id,
          workspace_id: workspaceId,
          trace_id: job.trace_id,
          engine: engine.name,
          engine_version: engine.version,
          mode: o.mode,
          payload_json: payloadJson,
          extras_json: extrasJson,
          llm_input_tokens: o.usage?.inputTokens ?? 0,
          llm_output_tokens: o.usage?.outputTokens ?? 0,
          computed_at_ms: now(),
          expires_at_s: Math.max(...rows.map((r) => Number(r.expires_at_s))),
        }),
      })
    })
  }
  const at = now()
  if (ok) out.runs.push({ workspace_id: workspaceId, engine: engine.name, finished_at_ms: at, ok: true })
  if (failures) out.runs.push({ workspace_id: workspaceId, engine: engine.name, finished_at_ms: at, ok: false })
  out.counts.push([workspaceId, 'analysed', ok], [workspaceId, 'failed', failures])
}

/**
 * A skipped trace as the sink takes it: an EngineResult of mode `skipped` whose
 * payload says why, at which rate, landed in engine_skips_v1 (result-sink.ts).
 */
function skipRecord(deps: WorkerDeps, { job, decision }: Skip, atMs: number): OutgoingRecord {
  const hours = workspaceRetentionHours(deps.state, job.workspace_id, deps.defaultRetentionHours ?? 0)
  const payload: SkippedPayload = { trace_id: job.trace_id, skipped: decision.reason ?? 'configured', sample_rate: decision.rate }
  return {
    key: traceKey(job.workspace_id, job.trace_id),
    value: engineResultV1.encode({
      org_id: job.org_id,
      workspace_id: job.workspace_id,
      trace_id: job.trace_id,
      engine: deps.engine.name,
      engine_version: deps.engine.version,
      mode: SKIPPED_MODE,
      payload_json: JSON.stringify(payload),
      extras_json: '{}',
      llm_input_tokens: 0,
      llm_output_tokens: 0,
      computed_at_ms: atMs,
      // The trace's own expiry, as its results would have (trace start, else its completion, + the workspace's window).
      expires_at_s: (Number(BigInt(job.trace_start_unix_nano) / 1_000_000_000n) || Math.floor(job.completed_at_ms / 1000)) + hours * 3600,
    }),
  }
}

/** How often a worker writes its job counts and reports its sampling state, and how long without a batch counts as idle. */
const REPORT_MS = 5000
const QUIET_MS = 2000

/**
 * Runs the worker. Every few seconds it writes its job counts (job-tally.ts) and,
 * with sampling, reports its sample and lag, on /metrics and through `publish` (the
 * engines service: the shared cache, for ingestion health), and lets an idle
 * worker's rate grow back.
 */
export async function startEngineWorker(
  deps: WorkerDeps & { maxBatchRecords?: number; publish?(status: EngineSamplingStatus): Promise<void> },
): Promise<Subscription> {
  const spec = engineConsumer(deps)
  const sub = await runConsumer(deps.bus, spec)
  const sampler = deps.sampling?.sampler
  const now = deps.now ?? Date.now
  const engine = deps.engine.name
  const flush = () => spec.tally.flush(deps.store).catch((err: unknown) => deps.log.warn({ err }, 'could not record the engine job counts; kept for the next try'))
  const report = () => {
    void flush()
    if (!sampler) return
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
      await flush()
    },
  }
}
