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
    toInt64(sum(first_delivery))                          AS span_count,
    sum(if(first_delivery = 1, cost_usd, 0))              AS cost_usd_total,
    toInt64(sum(if(first_delivery = 1, input_tokens, 0)))  AS input_tokens,
    toInt64(sum(if(first_delivery = 1, output_tokens, 0))) AS output_tokens,
    max(expires_at)    AS expires_at
FROM spans_v1
GROUP BY workspace_id, trace_id
