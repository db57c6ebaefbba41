-- traces_v1_mv: folds each spans_v1 insert block into traces_v1. Runs inside the
-- insert, so a trace is listable as soon as its spans are stored.
CREATE MATERIALIZED VIEW IF NOT EXISTS traces_v1_mv TO traces_v1 AS
SELECT
    workspace_id,
    trace_id,
    any(org_id)        AS org_id,
    any(project_id)    AS project_id,
    min(start_time)    AS trace_start,
    max(end_time)      AS trace_end,
    max(is_llm)        AS has_llm,
    max(received_at)   AS last_received_at,
    max(expires_at)    AS expires_at
FROM spans_v1
GROUP BY workspace_id, trace_id
