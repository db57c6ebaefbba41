import { ENGINES_OFF_BY_DEFAULT, TRACE_ENGINES, type EngineName, type TraceEngine } from '../bus/topics.js'
import { settingOf, type SettingsSource } from '../control/settings.js'

/**
 * A workspace's engine switches as stored (name -> boolean). A name missing from the
 * map takes its default: on, except the engines that are off until turned on.
 */
export function engineEnabled(settings: Partial<Record<string, boolean>>, name: EngineName): boolean {
  const v = settings[name]
  return typeof v === 'boolean' ? v : !ENGINES_OFF_BY_DEFAULT.has(name)
}

/** What the gate rule needs of the control state. */
export interface EngineGateState extends SettingsSource {
  workspaces: ReadonlyMap<string, { org_id: string }>
  orgs: ReadonlyMap<string, { engine_gates: Record<string, boolean> }>
}

/**
 * Whether an engine runs for a workspace: its workspace setting and its
 * organization's gate must both allow it (spec "Engine settings"). An organization
 * gate only ever closes: a name missing from it, or true, leaves the workspace's
 * own setting in charge.
 */
export function engineAllowed(state: EngineGateState, workspaceId: string, name: EngineName): boolean {
  if (!engineEnabled(settingOf(state, workspaceId, 'engines'), name)) return false
  const orgId = state.workspaces.get(workspaceId)?.org_id
  return orgId === undefined || state.orgs.get(orgId)?.engine_gates[name] !== false
}

/** The trace engines that get jobs for a workspace. */
export function enabledTraceEngines(state: EngineGateState, workspaceId: string): TraceEngine[] {
  return TRACE_ENGINES.filter((e) => engineAllowed(state, workspaceId, e))
}
