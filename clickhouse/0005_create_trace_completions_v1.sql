-- trace_completions_v1: when the assembler last emitted engine jobs for a trace and
-- how fresh the trace was then. After a crash the assembler compares this with
-- traces_v1.last_received_at to find traces whose jobs were never emitted, so a
-- restart loses no completion (jobs are at least once; engines keep the newest).
CREATE TABLE IF NOT EXISTS trace_completions_v1
(
    workspace_id     UUID,
    trace_id         String,
    last_received_at DateTime64(3, 'UTC') COMMENT 'traces_v1.last_received_at covered by this completion',
    span_count       UInt32,
    completed_at     DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(completed_at)
ORDER BY (workspace_id, trace_id)
TTL toDateTime(completed_at) + INTERVAL 30 DAY DELETE
COMMENT 'Latest engine-job emission per trace.'
