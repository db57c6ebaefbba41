import { ENGINES_OFF_BY_DEFAULT, TRACE_ENGINES, type EngineName, type TraceEngine } from '../bus/topics.js'

/**
 * A workspace's engine switches as stored (name -> boolean). A name missing from the
 * map takes its default: on, except the engines that are off until turned on.
 */
export function engineEnabled(settings: Partial<Record<string, boolean>>, name: EngineName): boolean {
  const v = settings[name]
  return typeof v === 'boolean' ? v : !ENGINES_OFF_BY_DEFAULT.has(name)
}

export function enabledTraceEngines(settings: Partial<Record<string, boolean>>): TraceEngine[] {
  return TRACE_ENGINES.filter((e) => engineEnabled(settings, e))
}
