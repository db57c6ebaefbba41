-- trace_scores_v1: the content-reliability grade of a trace, written by the
-- content_reliability engine. The newest row per trace wins (ReplacingMergeTree on
-- scored_at); read with argMax(..., scored_at) or FINAL.
--
-- grade_rank follows the spec's ranks (D=0 ... A+=8) so grade_min is a range
-- filter; -1 means scored but ungradeable (empty grade, non-empty scorer_version).
-- A trace with no row here has never been scored.
CREATE TABLE IF NOT EXISTS trace_scores_v1
(
    workspace_id   UUID,
    trace_id       String,
    grade          LowCardinality(String) COMMENT 'D, C, C+, B-, B, B+, A-, A, A+ or empty',
    grade_rank     Int8                   COMMENT '0 (D) to 8 (A+); -1 when ungradeable',
    score          Float64                COMMENT 'Reliability score 0-100',
    scorer_version LowCardinality(String),
    scored_at      DateTime64(3, 'UTC'),
    expires_at     DateTime('UTC')
)
ENGINE = ReplacingMergeTree(scored_at)
ORDER BY (workspace_id, trace_id)
TTL expires_at DELETE
COMMENT 'Latest grade per trace (newest scored_at wins).'
