/**
 * workspaces_v1 (clickhouse/0023): the workspaces of the control state, written to
 * ClickHouse so the analytics views can leave deleted workspaces out, apply each
 * workspace's current retention window and show slugs and names instead of UUIDs.
 *
 * ClickHouse cannot read the control topic, so the assembler copies what the
 * views need from its folded state: every row at start, then the rows that
 * changed (a check every few seconds compares each workspace's row with what
 * this process last wrote). Rows are pure functions of the state, so several
 * assemblers writing them agree; the newest synced_at wins on merge.
 */
import type { ControlState } from '@svc/shared/control/state'
import { workspaceRetentionHours } from '@svc/shared/domain/retention'
import type { Logger } from '@svc/shared/log'
import type { Store } from '@svc/shared/store/index'

export interface WorkspaceRow {
  workspace_id: string
  org_id: string
  org_slug: string
  org_name: string
  workspace_slug: string
  workspace_name: string
  retention_hours: number
  /** Epoch ms as a string (DateTime64(3) ticks). */
  created_at: string
  deleted_at: string | null
}

/** Every workspace of the state (deleted ones too: their data must stay hidden), as workspaces_v1 rows without synced_at. */
export function workspaceRows(state: ControlState, defaultRetentionHours: number): WorkspaceRow[] {
  const rows: WorkspaceRow[] = []
  for (const ws of state.workspaces.values()) {
    const org = state.orgs.get(ws.org_id)
    rows.push({
      workspace_id: ws.id,
      org_id: ws.org_id,
      org_slug: org?.slug ?? '',
      org_name: org?.name ?? '',
      workspace_slug: ws.slug,
      workspace_name: ws.name,
      retention_hours: workspaceRetentionHours(state, ws.id, defaultRetentionHours),
      created_at: String(ws.created_at_ms),
      deleted_at: ws.deleted_at_ms === null ? null : String(ws.deleted_at_ms),
    })
  }
  return rows
}

/** How often the state is compared with what was written: the delay before a rename, deletion or new window shows in analytics. */
export const WORKSPACE_SYNC_MS = 2000

export function workspaceSync(deps: { store: Store; state: ControlState; defaultRetentionHours: number; log: Logger }) {
  const written = new Map<string, string>()
  return {
    /** Writes the rows that differ from what this process last wrote; resolves to how many. */
    async syncOnce(nowMs = Date.now()): Promise<number> {
      const changed = workspaceRows(deps.state, deps.defaultRetentionHours).filter((r) => written.get(r.workspace_id) !== JSON.stringify(r))
      if (changed.length === 0) return 0
      await deps.store.insert('workspaces_v1', changed.map((r) => ({ ...r, synced_at: String(nowMs) })), { tag: 'assembler.workspace-sync' })
      for (const r of changed) written.set(r.workspace_id, JSON.stringify(r))
      deps.log.debug({ workspaces: changed.length }, 'workspaces_v1 synced')
      return changed.length
    },
  }
}
