/** The ways the services bound their own concurrency. */

/**
 * Runs the functions it is given one after another, in call order; a failure does
 * not stop the ones queued behind it. `idle()` settles once everything queued so
 * far has.
 */
export function oneAtATime() {
  let tail: Promise<unknown> = Promise.resolve()
  const run = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = tail.then(fn)
    tail = next.catch(() => {})
    return next
  }
  return Object.assign(run, { idle: (): Promise<unknown> => tail })
}

/** Runs `fn` over `items` with at most `limit` in flight, keeping input order in the results. */
export async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length)
  let next = 0
  const lane = async () => {
    while (next < items.length) {
      const i = next++
      out[i] = await fn(items[i]!)
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane))
  return out
}

/**
 * Runs the functions it is given with at most `limit` in flight, the others queued in
 * call order; a failure frees its slot like a success. For work that must not pile
 * up, such as password hashing (128 MiB each at the default scrypt cost).
 */
export function limitConcurrency(limit: number) {
  let active = 0
  const waiting: Array<() => void> = []
  return async <T>(fn: () => Promise<T>): Promise<T> => {
    // A finishing task hands its slot straight to the next waiter, so `active` stays counted.
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve))
    else active++
    try {
      return await fn()
    } finally {
      const next = waiting.shift()
      if (next) next()
      else active--
    }
  }
}

/**
 * Items a long loop handles between two turns of the event loop (every). On
 * bench:coding-agent, landed records/s with slices of 1,024 / 256 / 128 / 64:
 * 22,552-24,695 / 26,097-28,002 / 25,842-26,595 / 26,710-27,188 (accept p50 ~21 /
 * ~18 / ~16 / ~14 ms): smaller slices answer sooner and ingest accepts more, but
 * below 256 the consumer lands no more of it.
 */
export const SLICE_ITEMS = 256

/**
 * For a background consumer's long synchronous loops on the thread that also serves
 * the hot path (the all-in-one's main thread: a batch of up to 20,000 coding-agent
 * records decoded and mapped in one go held it for tens of milliseconds, and every
 * ingest request waiting on that thread waited for the whole batch):
 * `if (due()) await nextTurn()` lets them run every `n` items. bench:coding-agent,
 * whose exporters each send one request at a time: landed 20,964-22,883 records/s
 * without (accept p95 66-84 ms), 26,097-28,002 with slices of 256 (accept p95
 * 44-47 ms). The hot path's own consumer does not yield: there (slices of 1,024)
 * it let ingest accept a third more spans than assembly could land, and freshness
 * under load got worse, not better.
 */
export function every(n = SLICE_ITEMS): () => boolean {
  let i = 0
  return () => ++i % n === 0
}

/** Resolves on the event loop's next turn, after the I/O callbacks already waiting. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))
