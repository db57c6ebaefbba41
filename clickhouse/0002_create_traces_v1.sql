-- traces_v1: one row per trace once merged, for the trace list's first phase
-- (find a page of trace ids by start time cheaply, then load their columns from
-- spans_v1).
--
-- Fed by traces_v1_mv from spans_v1 inserts. min, max and any are idempotent, so
-- a span stored twice changes nothing there. The sums (span_count, cost, tokens)
-- add only rows with first_delivery = 1: the assembler looks up which spans of a
-- batch are already stored (spans of one trace are consumed in order by one
-- consumer, and each batch is stored before the next is read) and marks repeats 0,
-- so a client retry adds nothing. That keeps the list's totals a lookup of one
-- small row per trace instead of a read of its spans.
--
-- The one writer besides the view is the assembler's reconciliation: an insert and
-- its view insert are two parts, and a crash can land between them, so after a
-- replay (and whenever a batch repeats stored spans) the assembler recomputes the
-- affected traces' sums from de-duplicated spans_v1 rows and inserts the
-- difference as a correction row. Sums are signed for that reason.
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
    span_count       SimpleAggregateFunction(sum, Int64)                  COMMENT 'Distinct spans stored',
    cost_usd_total   SimpleAggregateFunction(sum, Float64)                COMMENT 'Sum of span costs (USD), each span once',
    input_tokens     SimpleAggregateFunction(sum, Int64)                  COMMENT 'Sum of LLM input tokens, each span once',
    output_tokens    SimpleAggregateFunction(sum, Int64)                  COMMENT 'Sum of LLM output tokens, each span once',
    expires_at       SimpleAggregateFunction(max, DateTime('UTC'))
)
ENGINE = AggregatingMergeTree
ORDER BY (workspace_id, trace_id)
TTL expires_at DELETE
COMMENT 'One row per trace after merges; GROUP BY trace_id and re-aggregate when reading.'
