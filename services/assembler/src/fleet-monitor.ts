/**
 * fleet_monitor: each workspace's daily drift row and the anomalies across its
 * agents (drift_daily_v1), recomputed on a schedule, behind the engine's gate.
 *
 * A workspace whose fleet_monitor is off (its own setting or its organization's
 * gate) is not read, not written and gets no engine run: the job is skipped and
 * costs nothing; its stored days stay as they were. Workspaces are rolled up one at
 * a time and a failure is caught per workspace, so one bad workspace neither stops
 * the others nor hides its failure: it is recorded as a failed run, which ingestion
 * health shows.
 */
import type { ControlState } from '@svc/shared/control/state'
import { engineAllowed } from '@svc/shared/domain/engines'
import type { Logger } from '@svc/shared/log'
import { measureDrift, saveDrift } from '@svc/shared/store/queries/drift'
import { recordEngineRuns, type EngineRun } from '@svc/shared/store/queries/ingestion-health'
import type { Store } from '@svc/shared/store/types'

export interface FleetMonitorDeps {
  store: Store
  state: Pick<ControlState, 'activeWorkspaces' | 'settings' | 'log' | 'workspaces' | 'orgs'>
  baselineDays: number
  log: Logger
}

/** One roll-up at `nowMs`: the engine runs it recorded, one per workspace it was allowed in. */
export async function fleetMonitorOnce(deps: FleetMonitorDeps, nowMs = Date.now()): Promise<EngineRun[]> {
  const { store, state, log } = deps
  const runs: EngineRun[] = []
  for (const ws of state.activeWorkspaces()) {
    if (!engineAllowed(state, ws.id, 'fleet_monitor')) continue
    let ok = true
    try {
      await saveDrift(store, ws.id, await measureDrift(store, ws.id, nowMs, deps.baselineDays))
    } catch (err) {
      ok = false
      log.warn({ err, workspace_id: ws.id }, 'fleet_monitor roll-up failed for a workspace; its day row keeps the last figure')
    }
    runs.push({ workspace_id: ws.id, engine: 'fleet_monitor', finished_at_ms: Date.now(), ok })
  }
  await recordEngineRuns(store, runs)
  return runs
}
