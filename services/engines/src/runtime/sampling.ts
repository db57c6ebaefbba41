/**
 * Which traces an engine analyses when it cannot analyse them all: a sample chosen
 * by a hash of the trace id, at a rate that is the configured one
 * (SVC_ENGINE_SAMPLE_RATE) or lower while the engine is behind.
 *
 * The hash makes samples nested: a trace in a sample of rate r is in every sample
 * of a higher rate. So every engine analyses the same traces at the same rate, and
 * the traces the most sampled engine analysed are analysed by every engine.
 *
 * The adaptive rate bounds the backlog: the worker measures how long jobs waited on
 * the jobs topic (the oldest job of each batch it takes, and each job again as its
 * analysis starts, so a long batch cannot outlast the bound), and while that lag is
 * over the bound (SVC_ENGINE_MAX_LAG_SECONDS) halves its rate (to a tenth once the
 * lag is a fifth over it), at most once a tenth of the bound; a skipped job (a hash
 * and a row, no span load, no model) then takes the place of an analysed one until
 * the lag is back under the bound. Below half the bound the rate grows back, by a
 * quarter per tenth of the bound that has passed since the last change, so an engine
 * that was idle after a burst is back at the full rate at its next job. Each cut lets
 * the lag grow by at most a tenth of the bound and at least doubles how fast the
 * worker drains: simulated (sampling.test.ts, worker.test.ts), the longest wait stays
 * under 1.5 times the bound for bursts of 10 and 100 times the engine's capacity,
 * and for 400 jobs arriving at once.
 */
import { createHash } from 'node:crypto'
import type { SampleDecision } from '@svc/shared/domain/engine-sampling'

/** Where a trace falls in [0, 1): the same in every engine and process. */
export function samplePoint(traceId: string): number {
  return createHash('sha256').update(traceId).digest().readUInt32BE(0) / 2 ** 32
}

/** Whether a trace is in a sample of this rate; a trace in a sample is in every larger one. */
export const inSample = (traceId: string, rate: number): boolean => rate >= 1 || samplePoint(traceId) < rate

/** The lowest adaptive rate: one trace in a thousand is still analysed however far behind. */
export const MIN_SAMPLE_RATE = 0.001

export interface SamplerOptions {
  /** SVC_ENGINE_SAMPLE_RATE: the share analysed at most, in (0, 1]. */
  configuredRate: number
  /** SVC_ENGINE_MAX_LAG_SECONDS in ms; 0: no adaptive sampling, every job is analysed however old. */
  maxLagMs: number
}

/** One engine worker's sampling state: fed the lag of each batch, it says which sample to analyse. */
export class BacklogSampler {
  /** The adaptive rate (1 while the engine keeps up). */
  adaptiveRate = 1
  /** The age of the oldest job of the last batch, and when it was measured. */
  lagMs = 0
  measuredAtMs = 0
  private changedAtMs = -Infinity
  private readonly stepMs: number

  constructor(readonly opts: SamplerOptions) {
    this.stepMs = Math.max(250, opts.maxLagMs / 10)
  }

  /** The sample to analyse now. */
  decision(): SampleDecision {
    const configured = Math.min(1, this.opts.configuredRate)
    if (this.adaptiveRate < configured) return { rate: this.adaptiveRate, reason: 'backlog' }
    return { rate: configured, reason: configured < 1 ? 'configured' : null }
  }

  /** A batch was taken whose oldest job waited `lagMs`: adapt, then say which sample to analyse. */
  observe(lagMs: number, nowMs: number): SampleDecision {
    this.lagMs = Math.max(0, lagMs)
    this.measuredAtMs = nowMs
    const bound = this.opts.maxLagMs
    const since = nowMs - this.changedAtMs
    if (bound > 0 && since >= this.stepMs) {
      if (this.lagMs > bound && this.adaptiveRate > MIN_SAMPLE_RATE) {
        // Halved; cut to a tenth once the lag is a fifth over the bound (a burst that arrived all at once).
        this.adaptiveRate = Math.max(MIN_SAMPLE_RATE, this.adaptiveRate * (this.lagMs > 1.2 * bound ? 0.1 : 0.5))
        this.changedAtMs = nowMs
      } else if (this.lagMs <= bound / 2 && this.adaptiveRate < 1) {
        this.adaptiveRate = Math.min(1, this.adaptiveRate * 1.25 ** (since / this.stepMs))
        this.changedAtMs = nowMs
      }
    }
    return this.decision()
  }

  /** Nothing is waiting (no batch for a while): the same as a batch without lag. */
  idle(nowMs: number): SampleDecision {
    return this.observe(0, nowMs)
  }

  private active = 0
  private lastEndMs = -Infinity

  /** The worker took a batch (observe) and is working on it. */
  begin(): void {
    this.active++
  }

  end(nowMs: number): void {
    this.active--
    this.lastEndMs = nowMs
  }

  /**
   * A periodic look: with no batch in progress and none for `quietMs`, the bus has
   * nothing for this worker, so nothing waits and the rate may grow back.
   */
  tick(nowMs: number, quietMs: number): SampleDecision {
    if (this.active === 0 && nowMs - this.lastEndMs >= quietMs) return this.idle(nowMs)
    return this.decision()
  }
}
