/**
 * A consumer's batch size per partition, following its backlog. Caught up, records
 * arrive a few at a time and a small batch is handled (and visible) soonest; behind,
 * every batch costs its fixed work (a lookup, an insert statement, a commit) once
 * for all its records, so batches grow to drain the backlog in fewer, larger steps.
 *
 * The limit doubles after a batch that left at least another full batch waiting,
 * and halves after one that emptied the partition while filling less than half of
 * the limit, between `min` and `max`: from caught up to `max` in log2(max / min)
 * batches, and back once the backlog is gone.
 */
export class BatchSize {
  private current: number

  constructor(
    readonly min: number,
    readonly max: number,
  ) {
    if (!(min >= 1 && max >= min)) throw new Error(`batch size bounds must satisfy 1 <= min <= max (got ${min}, ${max})`)
    this.current = min
  }

  /** Records to take in the next batch. */
  get limit(): number {
    return this.current
  }

  /** A batch of `taken` records was handled; `backlog`: records still waiting behind it (unknown: leave the limit). */
  observe(taken: number, backlog: number | undefined): void {
    if (backlog === undefined) return
    if (backlog >= this.current) this.current = Math.min(this.max, this.current * 2)
    else if (backlog === 0 && taken < this.current / 2) this.current = Math.max(this.min, Math.floor(this.current / 2))
  }
}

/** One BatchSize per topic partition, created on first use with its topic's bounds. */
export function batchSizes(bounds: (topic: string) => { min: number; max: number }): {
  limit(topic: string, partition: number): number
  observe(topic: string, partition: number, taken: number, backlog: number | undefined): void
} {
  const sizes = new Map<string, BatchSize>()
  const of = (topic: string, partition: number) => {
    const k = `${topic}\u0000${partition}`
    let s = sizes.get(k)
    if (!s) {
      const { min, max } = bounds(topic)
      sizes.set(k, (s = new BatchSize(min, max)))
    }
    return s
  }
  return {
    limit: (topic, partition) => of(topic, partition).limit,
    observe: (topic, partition, taken, backlog) => of(topic, partition).observe(taken, backlog),
  }
}
