-- phase_traces_v1: what the latency drill-down reads (queries/usage.ts phaseTraces:
-- the traces behind a phase of /usage/latency, slowest or latest errored first), so
-- it reads a few hundred rows instead of every span of the phase in the window.
--
-- One row per (trace, phase, hour its spans started in, metric) from each spans_v1
-- insert: metric 'slow' holds the longest span's duration_ns, 'errors' (only when a
-- span errored) the start of the latest erroring span, ns since the epoch. Keyed
-- (workspace_id, phase, metric, value, ...), the drill-down reads one phase's rows
-- in reverse key order from the top value down, so the slowest (or latest) first,
-- and stops after a few rows per trace shown; the hour column keeps its window
-- exact (windows are whole hours). A trace spread over several inserts has several
-- rows, of which the reads take the max. Every delivery counts, not only first ones:
-- a repeated span has the same duration and start, so a max cannot change, and a
-- replay after a crash still lands its row.
--
-- The view's ARRAY JOIN takes its array in parentheses: the clustered rendering
-- (store/cluster.ts) reads `JOIN <name>` as a table to point at its local.
--
-- ReplacingMergeTree: a repeated row (same value, trace and hour) is one. Sharded
-- with the spans (cityHash64(workspace_id, trace_id)), as the view writes on their
-- shard. TTL: the trace's expiry, as spans_v1; retention deletes the rows of expired
-- traces with traces_v1's (queries/retention.ts TRACE_INDEX_TABLES).
CREATE TABLE IF NOT EXISTS phase_traces_v1
(
    workspace_id UUID,
    phase        LowCardinality(String) COMMENT 'As latency_hourly_v1 names it (chains are agent, no span type is other)',
    metric       LowCardinality(String) COMMENT 'slow or errors',
    value        UInt64                 COMMENT 'slow: longest span of the phase, ns; errors: start of the latest erroring span, ns since the epoch',
    trace_id     String CODEC(ZSTD(1)),
    hour         DateTime('UTC')        COMMENT 'Start of the UTC hour the spans started in',
    expires_at   DateTime('UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY (workspace_id, phase, metric, value, trace_id, hour)
TTL expires_at DELETE
COMMENT 'Per trace, phase and hour: its slowest span and latest erroring span, for the latency drill-down; take the max per trace.';

CREATE MATERIALIZED VIEW IF NOT EXISTS phase_traces_v1_mv TO phase_traces_v1 AS
SELECT workspace_id, phase, m.1 AS metric, m.2 AS value, trace_id, hour, expires_at
FROM
(
    SELECT workspace_id, multiIf(span_type = 'chain', 'agent', span_type = '', 'other', span_type) AS phase, trace_id, toStartOfHour(start_time) AS hour,
           max(duration_ns) AS slowest, toUInt64(maxIf(toUnixTimestamp64Nano(start_time), status_code = 'ERROR')) AS latest_error,
           countIf(status_code = 'ERROR') AS errors, max(expires_at) AS expires_at
    FROM spans_v1
    GROUP BY workspace_id, phase, trace_id, hour
)
ARRAY JOIN (if(errors > 0, [('slow', slowest), ('errors', latest_error)], [('slow', slowest)])) AS m;

-- Spans stored before this migration, once (migrations run before any service
-- consumes; the rows are idempotent, so a re-run after a crash adds nothing).
INSERT INTO phase_traces_v1 (workspace_id, phase, metric, value, trace_id, hour, expires_at)
SELECT workspace_id, phase, m.1 AS metric, m.2 AS value, trace_id, hour, expires_at
FROM
(
    SELECT workspace_id, multiIf(span_type = 'chain', 'agent', span_type = '', 'other', span_type) AS phase, trace_id, toStartOfHour(start_time) AS hour,
           max(duration_ns) AS slowest, toUInt64(maxIf(toUnixTimestamp64Nano(start_time), status_code = 'ERROR')) AS latest_error,
           countIf(status_code = 'ERROR') AS errors, max(expires_at) AS expires_at
    FROM spans_v1
    GROUP BY workspace_id, phase, trace_id, hour
)
ARRAY JOIN (if(errors > 0, [('slow', slowest), ('errors', latest_error)], [('slow', slowest)])) AS m;
