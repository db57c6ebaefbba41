-- Exact hourly roll-ups after a crash (usage_hourly_v1, latency_hourly_v1).
--
-- A spans_v1 insert and the parts its views write are separate parts: a crash (or
-- an insert that fails half way) can store a batch's spans without a roll-up's
-- part. The batch is replayed (its offsets were not committed), finds its spans
-- stored and marks them repeats (first_delivery = 0), so without more the roll-up
-- never counts them: an hour short by one batch.
--
-- So each assembler batch has an id (batch_id, fresh for every attempt), stored on
-- its spans, and each roll-up row records which batches it counted (batches, a
-- bitmap; merges take the union). A part and its bitmap land together or not at
-- all, so after a replay the assembler can tell, for every stored first copy of a
-- replayed trace, whether each roll-up counted it, and adds exactly what is
-- missing (reconcileRollups in store/queries/rollups.ts), recording those
-- corrections in the bitmap too (as a hash of batch and trace), so repeating the
-- reconciliation adds nothing. Roll-ups only ever add, never subtract, which is
-- what keeps latency's t-digest states exact: calls and errors count each span
-- once, and the quantile state holds each span's duration once.
--
-- The bitmaps are only needed while a replay can still come (the bus keeps
-- records for days): the column's TTL clears a row's bitmap 8 days after its last
-- write (written_at), so rows for old hours stay as small as before.

ALTER TABLE spans_v1
    ADD COLUMN IF NOT EXISTS batch_id UInt64 DEFAULT 0 COMMENT 'The assembler batch (one insert attempt) that stored this copy; 0 for copies written otherwise' CODEC(Delta, ZSTD(1));

ALTER TABLE usage_hourly_v1
    ADD COLUMN IF NOT EXISTS written_at SimpleAggregateFunction(max, DateTime('UTC')) COMMENT 'Last write to the row',
    ADD COLUMN IF NOT EXISTS batches AggregateFunction(groupBitmap, UInt64) COMMENT 'Assembler batches (and reconciliations) counted in the row, until 8 days after its last write' TTL written_at + INTERVAL 8 DAY;

ALTER TABLE latency_hourly_v1
    ADD COLUMN IF NOT EXISTS written_at SimpleAggregateFunction(max, DateTime('UTC')) COMMENT 'Last write to the row',
    ADD COLUMN IF NOT EXISTS batches AggregateFunction(groupBitmap, UInt64) COMMENT 'Assembler batches (and reconciliations) counted in the row, until 8 days after its last write' TTL written_at + INTERVAL 8 DAY;

-- The views, now recording their batches: MODIFY QUERY swaps a view's query in
-- place, so no insert running meanwhile (another process) misses a view.
ALTER TABLE usage_hourly_v1_mv MODIFY QUERY
SELECT
    workspace_id,
    toStartOfHour(start_time)                 AS hour,
    project_id,
    model,
    provider,
    toUInt64(count())                         AS spans,
    toUInt64(countIf(parent_span_id = ''))    AS traces,
    toUInt64(countIf(is_llm = 1))             AS llm_calls,
    toUInt64(countIf(cost_source = 'unpriced')) AS unpriced_calls,
    sum(input_tokens)                         AS input_tokens,
    sum(output_tokens)                        AS output_tokens,
    sum(cache_read_tokens)                    AS cache_read_tokens,
    sum(reasoning_tokens)                     AS reasoning_tokens,
    sum(cost_usd)                             AS cost_usd,
    max(now())                                AS written_at,
    groupBitmapState(batch_id)                AS batches
FROM spans_v1
WHERE first_delivery = 1
GROUP BY workspace_id, hour, project_id, model, provider;

ALTER TABLE latency_hourly_v1_mv MODIFY QUERY
SELECT
    workspace_id,
    toStartOfHour(start_time)                                    AS hour,
    multiIf(span_type = 'chain', 'agent', span_type = '', 'other', span_type) AS phase,
    toUInt64(count())                                            AS calls,
    toUInt64(countIf(status_code = 'ERROR'))                     AS errors,
    quantilesTDigestState(0.5, 0.95, 0.99)(duration_ns / 1e6)    AS duration_ms,
    max(now())                                                   AS written_at,
    groupBitmapState(batch_id)                                   AS batches
FROM spans_v1
WHERE first_delivery = 1
GROUP BY workspace_id, hour, phase;
