/**
 * The background lane of a process that also runs a hot path (the all-in-one: spans
 * from ingest through assembly to ClickHouse). Background consumers (the engines,
 * their results sink and document worker, the coding-agent consumer) take turns in
 * one lane, one batch at a time, and a batch waits to start while the hot path is
 * busy, so their decoding, analysis and inserts use the time assembly leaves free
 * rather than competing with it for the cores and the store while spans arrive.
 *
 * A batch waits at most `maxWaitMs`, then runs anyway: under sustained load the
 * background still progresses (a batch per wait), its lag grows, and what bounds
 * it is its own (engine sampling; ingest refusing coding-agent records once their
 * consumer is SVC_MAX_LAG_SECONDS behind). Standalone processes have no lane.
 */
import { oneAtATime } from './concurrency.js'

export interface BackgroundLane {
  /** Runs `fn` once the hot path is idle (or `maxWaitMs` has passed, or `ctx` is closing), after every batch queued before it. */
  run<T>(fn: () => Promise<T>, ctx?: { readonly closing: boolean }): Promise<T>
}

/** The longest a batch waits for a busy hot path (a Kafka consumer must not hold a batch past its session timeout). */
const MAX_WAIT_MS = 10_000
const POLL_MS = 100

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export function backgroundLane(hotPathBusy: () => boolean, opts: { maxWaitMs?: number; pollMs?: number } = {}): BackgroundLane {
  const lane = oneAtATime()
  const maxWaitMs = opts.maxWaitMs ?? MAX_WAIT_MS
  const pollMs = opts.pollMs ?? POLL_MS
  return {
    run: (fn, ctx) =>
      lane(async () => {
        for (const until = Date.now() + maxWaitMs; hotPathBusy() && Date.now() < until && !ctx?.closing; ) await sleep(pollMs)
        return fn()
      }),
  }
}
