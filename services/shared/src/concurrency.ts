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
