/**
 * The hourly retention sweep: for every active workspace, delete the traces that
 * started before its window's hourly cutoff, whole (spans, trace rows and every
 * row derived from them: scores, engine results, alignment flags, completions),
 * and dead letters received before it (store/queries/retention.ts). Row TTL
 * already expires rows by the window in force when they were written; the sweep
 * applies a window shortened since. It deletes nothing it cannot confirm: it
 * counts first, and skips a workspace whose window changed while it counted, or
 * that was deleted meanwhile; one process per hour sweeps (a lock in the cache),
 * others skip that hour.
 */
import type { Cache } from '@svc/shared/cache/types'
import type { ControlState } from '@svc/shared/control/state'
import { retentionCutoffMs, workspaceRetentionHours } from '@svc/shared/domain/retention'
import type { Logger } from '@svc/shared/log'
import { countExpired, deleteExpired, type ExpiryCounts } from '@svc/shared/store/queries/retention'
import type { Store } from '@svc/shared/store/types'

export interface SweepResult {
  workspace_id: string
  hours: number
  cutoff: string
  spans_deleted: number
  traces_deleted: number
  /** Rows deleted per table (traces_v1 in traces). */
  rows_deleted: ExpiryCounts
}

export function retentionSweeper(deps: { store: Store; state: ControlState; cache: Cache; defaultHours: number; log: Logger }) {
  const { store, state, cache, log } = deps
  const hoursOf = (ws: string) => workspaceRetentionHours(state, ws, deps.defaultHours)

  /** One sweep at `nowMs`; null when another process holds this hour's sweep. */
  async function sweepOnce(nowMs = Date.now()): Promise<SweepResult[] | null> {
    const hour = Math.floor(nowMs / 3_600_000)
    if (!(await cache.setIfAbsent(`svc:retention-sweep:${hour}`, String(process.pid), 2 * 3_600_000))) return null
    const out: SweepResult[] = []
    for (const ws of state.activeWorkspaces()) {
      const hours = hoursOf(ws.id)
      const cutoffMs = retentionCutoffMs(nowMs, hours)
      try {
        const counted = await countExpired(store, ws.id, cutoffMs)
        if (Object.values(counted).every((n) => n === 0)) continue
        // Confirm before deleting: the window and the workspace are still what was counted against.
        if (hoursOf(ws.id) !== hours || state.workspaces.get(ws.id)?.deleted_at_ms !== null) {
          log.info({ workspace_id: ws.id }, 'retention changed during the sweep; skipped until the next one')
          continue
        }
        await deleteExpired(store, ws.id, cutoffMs)
        const r = { workspace_id: ws.id, hours, cutoff: new Date(cutoffMs).toISOString(), spans_deleted: counted.spans_v1, traces_deleted: counted.traces_v1, rows_deleted: counted }
        log.info(r, 'retention sweep deleted expired data')
        out.push(r)
      } catch (err) {
        log.warn({ err, workspace_id: ws.id }, 'retention sweep failed for a workspace; nothing deleted there this hour')
      }
    }
    return out
  }

  return { sweepOnce }
}
