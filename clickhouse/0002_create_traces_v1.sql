-- traces_v1: one row per trace once merged, for the trace list's first phase
-- (find a page of trace ids by start time cheaply, then load their columns from
-- spans_v1).
--
-- Fed only by traces_v1_mv from spans_v1 inserts. Every column is an idempotent
-- aggregate (min, max, any), so a span inserted twice changes nothing: redelivery
-- can never double-count here. Sums (cost, tokens, span count) are deliberately not
-- kept: they are computed from de-duplicated spans for the page being shown.
--
-- ORDER BY (workspace_id, trace_id): the key of the aggregation. trace_start is not
-- in the key because it can still move when a late, earlier span arrives. Until
-- parts merge a trace may have several rows: always GROUP BY trace_id and re-apply
-- the aggregates (min(trace_start), max(trace_end), ...).
CREATE TABLE IF NOT EXISTS traces_v1
(
    workspace_id     UUID,
    trace_id         String CODEC(ZSTD(1)),
    org_id           SimpleAggregateFunction(any, UUID),
    project_id       SimpleAggregateFunction(any, String)                 COMMENT 'Project of the first span seen',
    trace_start      SimpleAggregateFunction(min, DateTime64(9, 'UTC'))   COMMENT 'Min of span start times',
    trace_end        SimpleAggregateFunction(max, DateTime64(9, 'UTC'))   COMMENT 'Max of span end times',
    has_llm          SimpleAggregateFunction(max, UInt8)                  COMMENT '1 when any span carries LLM content',
    last_received_at SimpleAggregateFunction(max, DateTime64(3, 'UTC'))   COMMENT 'Newest span arrival, drives completion',
    expires_at       SimpleAggregateFunction(max, DateTime('UTC'))
)
ENGINE = AggregatingMergeTree
ORDER BY (workspace_id, trace_id)
TTL expires_at DELETE
COMMENT 'One row per trace after merges; GROUP BY trace_id and re-aggregate when reading.'
