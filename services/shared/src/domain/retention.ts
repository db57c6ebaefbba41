/**
 * Workspace retention: the effective window, and the hourly cutoff that previews,
 * confirm tokens and the sweeper share. The setting itself (the allowed windows
 * among them) is in the settings catalog, control/settings.ts.
 *
 * A workspace with retention disabled (or never set) keeps the deployment default
 * (SVC_DEFAULT_RETENTION_HOURS); enabling it applies its own window.
 */
import { settingOf, type RetentionSetting, type SettingsSource } from '../control/settings.js'

/** Below this, daily roll-ups (drift, correlation, savings) run less often than data expires. */
export const ROLLUP_SAFE_HOURS = 48

const HOUR_MS = 3_600_000

export function effectiveRetentionHours(setting: RetentionSetting | null, defaultHours: number): number {
  return setting?.enabled ? setting.hours : defaultHours
}

/**
 * Spans that started before this are outside a window of `hours`. The cutoff moves
 * in whole hours, so a preview, its confirm token and the sweeper agree on what
 * "would be deleted" for an hour at a time.
 */
export function retentionCutoffMs(nowMs: number, hours: number): number {
  return Math.floor(nowMs / HOUR_MS) * HOUR_MS - hours * HOUR_MS
}

/** The effective window of a workspace as the folded control state has it. */
export function workspaceRetentionHours(state: SettingsSource, workspaceId: string, defaultHours: number): number {
  return effectiveRetentionHours(settingOf(state, workspaceId, 'retention'), defaultHours)
}

/**
 * Reads apply a workspace's current retention at once (physical deletion by TTL
 * follows later): a trace that started before this, in epoch nanoseconds, is not served.
 */
export function retentionFloorNs(state: SettingsSource, workspaceId: string, defaultHours: number, nowMs = Date.now()): bigint {
  return BigInt(nowMs - workspaceRetentionHours(state, workspaceId, defaultHours) * HOUR_MS) * 1_000_000n
}
