-- drift_daily_v1: one row per workspace and UTC day, the drift of the day's traffic
-- (the recent window: the last 24 hours) against the baseline window before it
-- (shared/src/domain/drift.ts). Written by the assembler's drift roll-up, which runs
-- hourly and replaces the day's row, so today's figure stays current and past days
-- keep the last figure computed on them.
--
-- ORDER BY (workspace_id, day): current = the newest day, history = a range of days.
CREATE TABLE IF NOT EXISTS drift_daily_v1
(
    workspace_id         UUID,
    day                  Date,
    drift_score          Float64                COMMENT '0 (no drift) to 1',
    status               LowCardinality(String) COMMENT 'ok, warn or alert',
    baseline_window_days UInt16,
    dimensions           String                 COMMENT 'JSON array of { name, recent, baseline, delta, direction }',
    computed_at          DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(computed_at)
ORDER BY (workspace_id, day)
TTL day + INTERVAL 400 DAY DELETE
COMMENT 'Daily drift per workspace; the newest computed_at per (workspace_id, day) wins (use FINAL or argMax).'
