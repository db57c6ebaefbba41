/**
 * The hourly roll-ups (usage_hourly_v1, latency_hourly_v1) count each span once
 * even after a crash between a spans_v1 part and the parts its views write
 * (clickhouse/0022_rollups_count_batches.sql): every assembler batch has an id,
 * stored on its spans and recorded by each roll-up row that counted it, so a
 * replay can tell which stored first copies a roll-up never counted and add them.
 */
import type { Store } from '../types.js'
import type { TraceRef } from './trace-totals.js'

const HOUR_MS = 3_600_000

/**
 * Batch ids: the hour in the high 32 bits, then a per-process token and a counter,
 * so a roll-up row's bitmap of the batches it counted stays a few runs per process
 * and hour, and the reconciliation can ignore batches too old to be replayed.
 * A fresh id for every attempt: a retried batch must not pass for the one that
 * failed half way.
 */
export function batchIds(random: () => number = Math.random) {
  // A random start tells processes apart; each 65,536 batches move to the next token.
  let token = Math.floor(random() * 0x10000)
  let counter = 0
  return (nowMs = Date.now()): string => {
    if (counter === 0x10000) {
      token = (token + 1) & 0xffff
      counter = 0
    }
    const low = (token << 16) | counter++
    return ((BigInt(Math.floor(nowMs / HOUR_MS)) << 32n) | BigInt(low >>> 0)).toString()
  }
}

/** Batches older than this are not looked at: the roll-ups forget theirs after 8 days (the column's TTL). */
export const RECONCILE_BATCHES_WITHIN_MS = 7 * 24 * HOUR_MS

/** The first batch id of the hour `ms` falls in. */
const firstBatchOfHour = (ms: number) => (BigInt(Math.floor(ms / HOUR_MS)) << 32n).toString()

/**
 * The stored first copies (first_delivery = 1) of these traces' spans, one per span,
 * with their bucket's key and figures, and the recent batches that stored them.
 * `bucket` and `figures` are the roll-up's own expressions.
 */
const copies = (bucket: string, figures: string) => `
    SELECT workspace_id, trace_id, span_id, ${bucket}, ${figures}, groupArray(batch_id) AS batch_ids
    FROM spans_v1
    WHERE workspace_id IN {workspaces:Array(UUID)} AND trace_id IN {traces:Array(String)} AND first_delivery = 1 AND batch_id >= {since:UInt64}
    GROUP BY workspace_id, trace_id, span_id`

/**
 * Copies no roll-up row counted: neither the batch that stored them nor an earlier
 * reconciliation of that batch's copies of the trace (cityHash64(batch, workspace,
 * trace), recorded by the correction row) is in their bucket's bitmap.
 */
const UNCOUNTED = 'NOT arrayExists(k -> bitmapContains(s.b, k) OR bitmapContains(s.b, cityHash64(k, c.workspace_id, c.trace_id)), c.batch_ids)'
const CORRECTION_IDS = 'groupBitmapState(cityHash64(c.batch_ids[1], c.workspace_id, c.trace_id))'

const USAGE = `INSERT INTO usage_hourly_v1 (workspace_id, hour, project_id, model, provider, spans, traces, llm_calls, unpriced_calls, input_tokens, output_tokens, cache_read_tokens, reasoning_tokens, cost_usd, written_at, batches)
WITH
    copies AS (${copies(
      "toDateTime(toStartOfHour(any(start_time)), 'UTC') AS hour, any(project_id) AS proj, any(model) AS mdl, any(provider) AS prov",
      "any(parent_span_id) = '' AS root, any(is_llm) AS llm, any(cost_source) = 'unpriced' AS unpriced, any(input_tokens) AS i, any(output_tokens) AS o, any(cache_read_tokens) AS cr, any(reasoning_tokens) AS r, any(cost_usd) AS cost",
    )}),
    seen AS (
    SELECT workspace_id, hour, project_id, model, provider, groupBitmapMergeState(batches) AS b
    FROM usage_hourly_v1
    WHERE workspace_id IN {workspaces:Array(UUID)} AND hour IN (SELECT DISTINCT hour FROM copies)
    GROUP BY workspace_id, hour, project_id, model, provider)
SELECT c.workspace_id, c.hour, c.proj, c.mdl, c.prov,
       toUInt64(count()), toUInt64(countIf(c.root)), toUInt64(countIf(c.llm = 1)), toUInt64(countIf(c.unpriced)),
       sum(c.i), sum(c.o), sum(c.cr), sum(c.r), sum(c.cost), now(), ${CORRECTION_IDS}
FROM copies AS c
LEFT JOIN seen AS s ON s.workspace_id = c.workspace_id AND s.hour = c.hour AND s.project_id = c.proj AND s.model = c.mdl AND s.provider = c.prov
WHERE ${UNCOUNTED}
GROUP BY c.workspace_id, c.hour, c.proj, c.mdl, c.prov`

const PHASE = "multiIf(any(span_type) = 'chain', 'agent', any(span_type) = '', 'other', any(span_type))"

const LATENCY = `INSERT INTO latency_hourly_v1 (workspace_id, hour, phase, calls, errors, duration_ms, written_at, batches)
WITH
    copies AS (${copies(`toDateTime(toStartOfHour(any(start_time)), 'UTC') AS hour, ${PHASE} AS phase`, "any(status_code) = 'ERROR' AS err, any(duration_ns) AS d")}),
    seen AS (
    SELECT workspace_id, hour, phase, groupBitmapMergeState(batches) AS b
    FROM latency_hourly_v1
    WHERE workspace_id IN {workspaces:Array(UUID)} AND hour IN (SELECT DISTINCT hour FROM copies)
    GROUP BY workspace_id, hour, phase)
SELECT c.workspace_id, c.hour, c.phase, toUInt64(count()), toUInt64(countIf(c.err)), quantilesTDigestState(0.5, 0.95, 0.99)(c.d / 1e6), now(), ${CORRECTION_IDS}
FROM copies AS c
LEFT JOIN seen AS s ON s.workspace_id = c.workspace_id AND s.hour = c.hour AND s.phase = c.phase
WHERE ${UNCOUNTED}
GROUP BY c.workspace_id, c.hour, c.phase`

/**
 * Adds to the hourly roll-ups every stored first copy of these traces' spans that
 * a roll-up did not count (its batch's view part was lost), each once; repeating it
 * adds nothing. Roll-ups only add, so latency's quantile state gains exactly the
 * missing durations. Call it before the replayed batch is stored (its own copies
 * are counted by its own insert), as the only writer of these traces (the
 * assembler owning their partition).
 */
export async function reconcileRollups(store: Store, traces: TraceRef[], nowMs = Date.now()): Promise<void> {
  if (traces.length === 0) return
  const params = {
    workspaces: [...new Set(traces.map((t) => t.workspace_id))],
    traces: [...new Set(traces.map((t) => t.trace_id))],
    since: firstBatchOfHour(nowMs - RECONCILE_BATCHES_WITHIN_MS),
  }
  await store.command(USAGE, params, { tag: 'assembler.reconcile-usage' })
  await store.command(LATENCY, params, { tag: 'assembler.reconcile-latency' })
}
