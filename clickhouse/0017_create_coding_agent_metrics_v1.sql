-- coding_agent_metrics_v1: the metric data points coding agents export (Claude
-- Code's claude_code.token.usage, cost.usage, lines_of_code.count, commit.count,
-- pull_request.count, active_time.total, ...), one row per point, landed by the
-- coding-agent consumer from coding-agent.metrics.v1 (docs/coding-agent.md).
--
-- `delta` is what the point adds: the value itself for delta temporality, the
-- difference to the series' previous point for cumulative temporality (a series
-- is metric name + attribute set + start time, `series_id`; a drop of a monotonic
-- value is a reset and counts the new value). The previous point is read from
-- this table, so a restart or a replayed batch computes the same delta and the
-- row collapses onto its first copy. Gauges keep their value (delta 0).
-- Histograms keep count and sum (value = sum; delta / count_delta their increase).
--
-- ReplacingMergeTree: a point delivered twice (exporter retry, replay after a
-- crash) has the same key and the same delta; reads use FINAL.
-- ORDER BY (workspace_id, metric_name, series_id, time_ns): the consumer looks up
-- a series' latest point before a time, and the usage rollup reads a workspace's
-- few metric names over a window.
-- TTL 400 days, like the other roll-ups.
CREATE TABLE IF NOT EXISTS coding_agent_metrics_v1
(
    workspace_id  String,
    metric_name   LowCardinality(String),
    series_id     String                 COMMENT 'sha256 (hex, 32 chars) of workspace, metric name, sorted attributes and start time',
    time_ns       UInt64                 COMMENT 'timeUnixNano of the point',
    start_ns      UInt64                 COMMENT 'startTimeUnixNano (0 when unset)',
    metric_type   LowCardinality(String) COMMENT 'sum, gauge, histogram',
    temporality   LowCardinality(String) COMMENT 'delta, cumulative, none (gauge)',
    agent         LowCardinality(String) COMMENT 'claude_code, codex or the exporter''s service.name',
    employee      String                 COMMENT 'user.email, else user.account_uuid / user.account_id, else empty',
    session_id    String                 COMMENT 'session.id (Claude Code) or conversation.id (Codex)',
    model         LowCardinality(String),
    type          LowCardinality(String) COMMENT 'The point''s type attribute: input/output/cacheRead/cacheCreation (tokens), added/removed (lines), user/cli (active time)',
    value         Float64                COMMENT 'As sent: the (cumulative or delta) value; a histogram''s sum',
    count         UInt64                 COMMENT 'A histogram''s count as sent',
    delta         Float64                COMMENT 'What this point adds (see above)',
    count_delta   Int64,
    attributes    Map(String, String)    CODEC(ZSTD(3)),
    received_at   DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY (workspace_id, metric_name, series_id, time_ns)
TTL toDateTime(intDiv(time_ns, 1000000000)) + INTERVAL 400 DAY DELETE
COMMENT 'Coding-agent metric points with their delta; one row per (series, time).'
