/**
 * The engines' sampling as other processes see it: each engine worker publishes the
 * sample it analyses and how far behind it is in the shared cache, which
 * GET .../health/ingestion reads (services/engines/src/runtime/sampling.ts decides).
 */
import type { Cache } from '../cache/types.js'

/** Why an engine analyses a sample: SVC_ENGINE_SAMPLE_RATE, or its own backlog (the adaptive rate). */
export const SAMPLE_REASONS = ['configured', 'backlog'] as const
export type SampleReason = (typeof SAMPLE_REASONS)[number]

/** The sample a result was computed in, or a skipped trace fell outside; reason null: every trace. */
export interface SampleDecision {
  rate: number
  reason: SampleReason | null
}

/**
 * Why an engine skipped a trace: outside the sample (above), or too_large: more spans
 * or bytes than SVC_ENGINE_MAX_TRACE_SPANS or _BYTES, so it was never loaded (a trace id a producer
 * reuses forever must not take a worker's memory).
 */
export const SKIP_REASONS = [...SAMPLE_REASONS, 'too_large'] as const
export type SkipReason = (typeof SKIP_REASONS)[number]

export interface EngineSamplingStatus extends SampleDecision {
  /** How long the oldest job of the worker's last batch waited on the jobs topic (0 when idle). */
  lag_ms: number
  measured_at_ms: number
}

const key = (engine: string) => `engines:sampling:v1:${engine}`

/** The newest state a worker of the engine published (the last writer wins when several run); gone after `ttlMs`. */
export async function publishSamplingStatus(cache: Cache, engine: string, s: EngineSamplingStatus, ttlMs: number): Promise<void> {
  await cache.set(key(engine), JSON.stringify(s), ttlMs)
}

/** The engines with a live worker state (one whose process stopped has none). */
export async function readSamplingStatus(cache: Cache, engines: readonly string[]): Promise<Map<string, EngineSamplingStatus>> {
  const raw = await Promise.all(engines.map((e) => cache.get(key(e))))
  const out = new Map<string, EngineSamplingStatus>()
  raw.forEach((r, i) => {
    if (!r) return
    try {
      out.set(engines[i]!, JSON.parse(r) as EngineSamplingStatus)
    } catch {
      // A value this version cannot read counts as none.
    }
  })
  return out
}
