/**
 * One engine's worker: consumes engine.<name>.jobs.v1 as the group engine-<name>
 * (so each engine keeps its own position and scales out by partitions), analyses
 * each finished trace, and writes the results to engine.results.v1 for the sink.
 *
 * A job whose engine is switched off for its workspace (or gated off by its
 * organization) is dropped before anything is loaded or called: it costs nothing.
 * A failing job is retried with exponential backoff, then written whole to
 * engine.<name>.jobs.v1.dlq; either way engine_runs_v1 records the outcome, which
 * is what ingestion health reads to call an engine stalled.
 */
import { engineJobFailedV1, engineResultV1, traceCompletedV1, traceKey, type TraceCompletedRecord } from '@svc/shared/bus/records'
import { engineGroup, engineJobsDlqTopic, engineJobsTopic, TOPICS } from '@svc/shared/bus/topics'
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

export function engineBatchHandler(deps: WorkerDeps) {
  const analyse = batchAnalysis(deps)
  const bg = deps.background
  if (!bg) return (records: ConsumedRecord[]) => analyse(records)
  return (records: ConsumedRecord[], ctx?: BatchContext) =>
    bg.lane(async () => {
      for (const until = Date.now() + MAX_YIELD_MS; bg.busy() && Date.now() < until && !ctx?.closing; ) await sleep(100)
      await analyse(records)
    })
}

function batchAnalysis(deps: WorkerDeps) {
  const { engine, state, log } = deps
  const now = deps.now ?? Date.now
  return async (records: ConsumedRecord[]): Promise<void> => {
    // At-least-once delivery and re-opened traces can put one trace in a batch twice: keep its newest job.
    const jobs = new Map<string, { job: TraceCompletedRecord; raw: Buffer }>()
    for (const r of records) {
      let job: TraceCompletedRecord
      try {
        job = traceCompletedV1.decode(r.value)
      } catch (err) {
        log.error({ err, topic: r.topic, partition: r.partition, offset: r.offset }, 'undecodable engine job dropped')
        continue
      }
      const key = traceKey(job.workspace_id, job.trace_id)
      const seen = jobs.get(key)
      if (!seen || seen.job.completed_at_ms <= job.completed_at_ms) jobs.set(key, { job, raw: r.value })
    }
    const live = [...jobs.values()].filter(({ job }) => {
      const ws = state.workspaces.get(job.workspace_id)
      const run = ws !== undefined && ws.deleted_at_ms === null && engineAllowed(state, job.workspace_id, engine.name)
      if (!run) engineJobsCounter.inc({ engine: engine.name, outcome: 'skipped' })
      return run
    })
    if (live.length === 0) return

    const byWorkspace = new Map<string, typeof live>()
    for (const j of live) {
      const list = byWorkspace.get(j.job.workspace_id) ?? []
      list.push(j)
      byWorkspace.set(j.job.workspace_id, list)
    }

    const results: OutgoingRecord[] = []
    const failed: OutgoingRecord[] = []
    const runs: EngineRun[] = []
    for (const [workspaceId, group] of byWorkspace) {
      const spans = await spansOfTraces(deps.store, workspaceId, group.map((g) => g.job.trace_id))
      const byTrace = new Map<string, EngineInputSpan[]>()
      for (const s of spans) {
        const list = byTrace.get(s.trace_id) ?? []
        list.push(s)
        byTrace.set(s.trace_id, list)
      }
      const ctx = await deps.contextFor(group[0]!.job.org_id, workspaceId)
      let ok = 0
      let failures = 0
      await mapBounded(group, deps.concurrency, async ({ job, raw }) => {
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
          failed.push({
            key,
            value: engineJobFailedV1.encode({ engine: engine.name, job: raw, workspace_id: workspaceId, trace_id: job.trace_id, error: error.slice(0, 2000), attempts: outcome.attempts, failed_at_ms: now() }),
          })
        }
      })
      const at = now()
      if (ok) runs.push({ workspace_id: workspaceId, engine: engine.name, finished_at_ms: at, ok: true })
      if (failures) runs.push({ workspace_id: workspaceId, engine: engine.name, finished_at_ms: at, ok: false })
    }
    // Results before the runs that report them: a crash in between re-runs the batch, never loses it.
    await Promise.all([
      results.length ? deps.bus.produce(TOPICS.engineResults, results) : null,
      failed.length ? deps.bus.produce(engineJobsDlqTopic(engine.name), failed) : null,
    ])
    await recordEngineRuns(deps.store, runs)
  }
}

export async function startEngineWorker(deps: WorkerDeps & { maxBatchRecords?: number }): Promise<Subscription> {
  return deps.bus.subscribe({
    group: engineGroup(deps.engine.name),
    topics: [engineJobsTopic(deps.engine.name)],
    fromBeginning: true,
    maxBatchRecords: deps.maxBatchRecords ?? 100,
    onBatch: engineBatchHandler(deps),
  })
}
