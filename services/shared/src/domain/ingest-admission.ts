/**
 * Ingest's admission as other processes see it: each ingest process publishes what
 * it admits against (the span consumer's lag, the embedded log's disk use) and
 * counts the requests it refused per workspace and hour in the shared cache, which
 * GET .../health/ingestion reads (services/ingest/src/admission.ts decides).
 */
import type { Cache } from '../cache/types.js'

/** Why ingest refuses new records: the pipeline is over SVC_MAX_LAG_SECONDS behind, or the embedded log is at its disk budget. */
export const REFUSAL_REASONS = ['lag', 'disk'] as const
export type RefusalReason = (typeof REFUSAL_REASONS)[number]

export interface AdmissionStatus {
  /** What a span request is answered now: null admits it. */
  refusing: RefusalReason | null
  /** Age of the oldest span the assembler has not stored, ms; null when no assembler has reported. */
  lag_ms: number | null
  /** SVC_MAX_LAG_SECONDS in ms (0: no bound). */
  max_lag_ms: number
  /** The embedded log's bytes and budget; null on Kafka. */
  log_bytes: number | null
  log_max_bytes: number | null
  measured_at_ms: number
}

const statusKey = (ns: string) => `ingest:admission:v1:${ns}`
const refusedKey = (ns: string, workspaceId: string, hour: number) => `ingest:refused:v1:${ns}:${workspaceId}:${hour}`
const HOUR_MS = 3_600_000

/** The newest status an ingest process published (the last writer wins; every ingest process reads the same lag); gone after `ttlMs`. */
export async function publishAdmissionStatus(cache: Cache, ns: string, s: AdmissionStatus, ttlMs: number): Promise<void> {
  await cache.set(statusKey(ns), JSON.stringify(s), ttlMs)
}

export async function readAdmissionStatus(cache: Cache, ns: string): Promise<AdmissionStatus | null> {
  const raw = await cache.get(statusKey(ns))
  if (!raw) return null
  try {
    return JSON.parse(raw) as AdmissionStatus
  } catch {
    // A value this version cannot read counts as none.
    return null
  }
}

/** Adds refused requests per workspace to the hour of `nowMs` (kept two hours, so the previous hour stays readable). */
export async function countRefusals(cache: Cache, ns: string, byWorkspace: ReadonlyMap<string, number>, nowMs: number): Promise<void> {
  const hour = Math.floor(nowMs / HOUR_MS)
  await Promise.all([...byWorkspace].map(([ws, n]) => cache.incrBy(refusedKey(ns, ws, hour), n, 3 * HOUR_MS)))
}

/** Requests of the workspace refused since the start of the previous hour (as spans_last_hour counts). */
export async function refusalsSincePreviousHour(cache: Cache, ns: string, workspaceId: string, nowMs: number): Promise<number> {
  const hour = Math.floor(nowMs / HOUR_MS)
  const [prev, cur] = await Promise.all([cache.get(refusedKey(ns, workspaceId, hour - 1)), cache.get(refusedKey(ns, workspaceId, hour))])
  return (Number(prev) || 0) + (Number(cur) || 0)
}
