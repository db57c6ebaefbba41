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
 */
import { engineJobFailedV1, engineResultV1, traceCompletedV1, traceKey, type TraceCompletedRecord } from '@svc/shared/bus/records'
import { runConsumer, type ConsumerSpec, type DeadLetter, type Delivered, type Rejection } from '@svc/shared/bus/run-consumer'
import { engineGroup, engineJobsTopic, TOPICS } from '@svc/shared/bus/topics'
import type { BatchContext, Bus, ConsumedRecord, OutgoingRecord, Subscription } from '@svc/shared/bus/types'
import type { ControlState } from '@svc/shared/control/state'
import { engineAllowed } from '@svc/shared/domain/engines'
import { mapBounded } from '@svc/shared/concurrency'
import type { Logger } from '@svc/shared/log'
import { engineJobsCounter } from '@svc/shared/metrics'
import { spansOfTraces, type EngineInputSpan } from '@svc/shared/store/queries/engine-results'
import { recordEngineRuns, type EngineRun } from '@svc/shared/store/queries/ingestion-health'
import type { Store } from '@svc/shared/store/types'
import { traceViewFromRows } from '../trace-view.js'
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

/** One engine's worker as a consumer (group engine-<name>), run by runConsumer. */
export function engineConsumer(deps: WorkerDeps & { maxBatchRecords?: number }): ConsumerSpec<TraceCompletedRecord> {
  const analyse = batchAnalysis(deps)
  const bg = deps.background
  const now = deps.now ?? Date.now
  return {
    group: engineGroup(deps.engine.name),
    topics: { [engineJobsTopic(deps.engine.name)]: traceCompletedV1 },
    maxBatchRecords: deps.maxBatchRecords ?? 100,
    log: deps.log,
    handle: !bg
      ? (batch) => analyse(batch)
      : (batch, ctx: BatchContext) =>
          bg.lane(async () => {
            for (const until = Date.now() + MAX_YIELD_MS; bg.busy() && Date.now() < until && !ctx.closing; ) await sleep(100)
            return analyse(batch)
          }),
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

function batchAnalysis(deps: WorkerDeps) {
  const { engine, state, log } = deps
  const now = deps.now ?? Date.now
  return async (batch: Array<Delivered<TraceCompletedRecord>>): Promise<Rejection[]> => {
    // At-least-once delivery and re-opened traces can put one trace in a batch twice: keep its newest job.
    const jobs = new Map<string, { job: TraceCompletedRecord; record: ConsumedRecord }>()
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
    if (live.length === 0) return []

    const byWorkspace = new Map<string, typeof live>()
    for (const j of live) {
      const list = byWorkspace.get(j.job.workspace_id) ?? []
      list.push(j)
      byWorkspace.set(j.job.workspace_id, list)
    }

    const results: OutgoingRecord[] = []
    const failed: Rejection[] = []
    const runs: EngineRun[] = []
    for (const [workspaceId, group] of byWorkspace) {
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
        for (const { record } of group) failed.push({ record, reason: error, cause: 'failed', workspaceId, attempts: context.attempts })
        runs.push({ workspace_id: workspaceId, engine: engine.name, finished_at_ms: now(), ok: false })
        continue
      }
      const ctx = context.value
      let ok = 0
      let failures = 0
      await mapBounded(group, deps.concurrency, async ({ job, record }) => {
        const rows = byTrace.get(job.trace_id)
        // Aged out (or deleted) before its turn: nothing is left to analyse.
        if (!rows) return engineJobsCounter.inc({ engine: engine.name, outcome: 'gone' })
        const view = traceViewFromRows(workspaceId, job.trace_id, rows)
        const outcome = await withRetries<EngineOutcome>(() => engine.run(view, ctx), deps.retry)
        const key = traceKey(workspaceId, job.trace_id)
        if (outcome.ok) {
          ok++
          engineJobsCounter.inc({ engine: engine.name, outcome: 'ok' })
          const o = outcome.value
          results.push({
            key,
            value: engineResultV1.encode({
              org_id: job.org_id,
              workspace_id: workspaceId,
              trace_id: job.trace_id,
              engine: engine.name,
              engine_version: engine.version,
              mode: o.mode,
              payload_json: JSON.stringify(o.payload),
              extras_json: JSON.stringify(o.extras ?? {}),
              llm_input_tokens: o.usage?.inputTokens ?? 0,
              llm_output_tokens: o.usage?.outputTokens ?? 0,
              computed_at_ms: now(),
              expires_at_s: Math.max(...rows.map((r) => Number(r.expires_at_s))),
            }),
          })
        } else {
          failures++
          engineJobsCounter.inc({ engine: engine.name, outcome: 'failed' })
          const error = outcome.error instanceof Error ? outcome.error.message : String(outcome.error)
          log.warn({ workspace_id: workspaceId, trace_id: job.trace_id, attempts: outcome.attempts, error }, 'engine job failed; dead-lettered')
          failed.push({ record, reason: error, cause: 'failed', workspaceId, orgId: job.org_id, attempts: outcome.attempts })
        }
      })
      const at = now()
      if (ok) runs.push({ workspace_id: workspaceId, engine: engine.name, finished_at_ms: at, ok: true })
      if (failures) runs.push({ workspace_id: workspaceId, engine: engine.name, finished_at_ms: at, ok: false })
    }
    // Results before the runs that report them, and the failed jobs' dead letters (written
    // by the runner) after both: a crash in between re-runs the batch, never loses it.
    if (results.length) await deps.bus.produce(TOPICS.engineResults, results)
    await recordEngineRuns(deps.store, runs)
    return failed
  }
}

export async function startEngineWorker(deps: WorkerDeps & { maxBatchRecords?: number }): Promise<Subscription> {
  return runConsumer(deps.bus, engineConsumer(deps))
}
