/**
 * A batch's spans_v1 rows as the span consumer would store them, for tests that
 * build rows without running the consumer (replay.test.ts, analytics.testkit.ts):
 * one copy per span by the consumer's own rule (SpanCopies), first_delivery 0 on
 * copies already stored or repeated.
 */
import { traceKey } from '@svc/shared/bus/records'
import { SpanCopies, spanKey, type SpanRow } from './assemble.js'

/** SpanCopies over rows at hand: the rows kept, in batch order, with their keys. */
export function newestPerSpan(rows: SpanRow[]): { rows: SpanRow[]; keys: string[] } {
  const copies = new SpanCopies()
  const traces = new Map<string, Map<string, number>>()
  for (const r of rows) {
    const trace = traceKey(r.workspace_id, r.trace_id)
    let seen = traces.get(trace)
    if (!seen) traces.set(trace, (seen = new Map()))
    copies.add(seen, r.span_id, Number(r.received_at))
  }
  const kept = copies.kept()
  const out = kept ? kept.map((i) => rows[i]!) : rows
  return { rows: out, keys: out.map(spanKey) }
}

/**
 * Marks repeats so traces_v1 sums each span once: a span already stored (found by
 * the caller's lookup) or seen earlier in the same batch gets first_delivery 0.
 * Returns how many rows were repeats. `keys`: the rows' spanKeys, when already built.
 */
export function markFirstDeliveries(rows: SpanRow[], stored: ReadonlySet<string>, keys: readonly string[] = rows.map(spanKey)): number {
  const seen = new Set<string>()
  let repeats = 0
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!
    const key = keys[i]!
    const repeat = stored.has(key) || seen.has(key)
    row.first_delivery = repeat ? 0 : 1
    if (repeat) repeats++
    seen.add(key)
  }
  return repeats
}
