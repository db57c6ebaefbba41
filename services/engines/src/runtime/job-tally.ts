/**
 * The jobs an engine's worker handled, per workspace, hour and outcome, for ingestion
 * health (engine_jobs_hourly_v1), and the workspaces whose jobs it only skipped, which
 * count as a successful run (engine_runs_v1): an engine that samples is not stalled.
 *
 * Written every few seconds (startEngineWorker) rather than with each batch: a worker
 * skipping most of its jobs takes a batch every few milliseconds, and inserts of a
 * few rows each would load the store that ingest and assembly write to. A crash loses
 * at most those seconds of counts; the skipped traces themselves are recorded with
 * their batch (engine.results.v1, landed in engine_skips_v1).
 */
import { recordEngineJobCounts, recordEngineRuns, type EngineJobCounts } from '@svc/shared/store/queries/ingestion-health'
import type { Store } from '@svc/shared/store/types'

export type JobOutcome = 'analysed' | 'skipped' | 'failed'

export class JobTally {
  private counts = new Map<string, EngineJobCounts>()
  private sampling = new Map<string, number>()

  constructor(readonly engine: string) {}

  add(workspaceId: string, atMs: number, outcome: JobOutcome, n = 1): void {
    if (n <= 0) return
    const key = `${workspaceId}:${Math.floor(atMs / 3_600_000)}`
    let c = this.counts.get(key)
    if (!c) this.counts.set(key, (c = { workspace_id: workspaceId, engine: this.engine, at_ms: atMs, analysed: 0, skipped: 0, failed: 0 }))
    c[outcome] += n
  }

  /** The workspace's jobs of a batch were all skipped: handled, as a run that succeeded. */
  sampled(workspaceId: string, atMs: number): void {
    this.sampling.set(workspaceId, Math.max(atMs, this.sampling.get(workspaceId) ?? 0))
  }

  /** Writes what was added since the last flush; on failure keeps it for the next one. */
  async flush(store: Store): Promise<void> {
    const counts = [...this.counts.values()]
    const sampling = [...this.sampling]
    this.counts = new Map()
    this.sampling = new Map()
    try {
      await Promise.all([
        recordEngineJobCounts(store, counts),
        recordEngineRuns(store, sampling.map(([workspace_id, at]) => ({ workspace_id, engine: this.engine, finished_at_ms: at, ok: true }))),
      ])
    } catch (err) {
      for (const c of counts) for (const o of ['analysed', 'skipped', 'failed'] as const) this.add(c.workspace_id, c.at_ms, o, c[o])
      for (const [ws, at] of sampling) this.sampled(ws, at)
      throw err
    }
  }
}
