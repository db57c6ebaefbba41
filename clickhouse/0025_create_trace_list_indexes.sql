-- trace_starts_v1 / trace_list_v1 / trace_grades_v1: what the trace list reads (queries/traces.ts
-- listTraces), so a page costs the same at a hundred million spans as at a million.
--
-- traces_v1 is keyed (workspace_id, trace_id): finding the newest traces there means
-- reading every trace row of the workspace (trace_start is not in its key, since it
-- can still move), and fetching a page's candidates by id reads a granule of 8,192
-- rows per id. Both grew with the data (a first page read every trace at 10M spans).
--
-- trace_starts_v1: one narrow row per traces_v1 row, keyed by start. The list's
-- candidate scan (ORDER BY trace_start DESC LIMIT k) reads it in key order, so only
-- the newest granules. Like traces_v1 before its parts merge, a trace may have
-- several rows (one per insert that touched it, each holding that insert's earliest
-- span; a late, earlier span adds a row with the earlier start); the list takes the
-- trace's start as the min over all its rows in trace_list_v1, never from here.
-- ReplacingMergeTree: a row repeated with the same start is one row.
--
-- trace_list_v1: the same rows as traces_v1 (a copy through the view below, so the
-- assembler's correction rows come along), in granules of 256 rows and compressed
-- blocks of 4-16 KiB (as spans_v1), so re-aggregating a page's few hundred
-- candidates by id decompresses a few hundred small blocks, not a block of 64 KiB
-- or more per candidate. Its sums are exact after a crash too: a kill can land
-- traces_v1's part of an insert without this copy's (a view insert is a part of its
-- own), and the replay's repeats add no sums, so the assembler's reconciliation
-- corrects this table against the spans as it does traces_v1
-- (queries/trace-totals.ts TOTALS_TABLES). Its other columns are min/max/any, which
-- the repeats write again; so are trace_starts_v1's rows and trace_grades_v1's
-- (newest wins; the results sink replays its batch).
--
-- trace_grades_v1: trace_scores_v1's rows, the same way, for the page's grades and
-- the grade_min filter on its candidates.
--
-- The first two are fed from traces_v1's inserts (one row per trace per insert), not
-- from spans_v1's, so ingest pays two small part writes per insert and no
-- aggregation; the third from trace_scores_v1's (the engines' results). Sharded with
-- traces_v1 (cityHash64(workspace_id, trace_id)): each view writes on the shard its
-- traces_v1 (or trace_scores_v1) row landed on. TTL: the trace's expiry, as
-- traces_v1. Retention deletes their rows with traces_v1's (queries/retention.ts
-- TRACE_INDEX_TABLES), trace_grades_v1's with trace_scores_v1's (PER_TRACE_TABLES).
CREATE TABLE IF NOT EXISTS trace_starts_v1
(
    workspace_id UUID,
    trace_start  DateTime64(9, 'UTC') COMMENT 'Earliest span start of one traces_v1 row (one insert): the trace starts at this or earlier' CODEC(Delta, ZSTD(1)),
    trace_id     String CODEC(ZSTD(1)),
    expires_at   DateTime('UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY (workspace_id, trace_start, trace_id)
TTL expires_at DELETE
COMMENT 'traces_v1 rows by start, for the trace list''s candidate scan; a trace''s start is the min over its rows in trace_list_v1.';

CREATE TABLE IF NOT EXISTS trace_list_v1
(
    workspace_id     UUID,
    trace_id         String CODEC(ZSTD(1)),
    org_id           SimpleAggregateFunction(any, UUID),
    project_id       SimpleAggregateFunction(any, String),
    trace_start      SimpleAggregateFunction(min, DateTime64(9, 'UTC')),
    trace_end        SimpleAggregateFunction(max, DateTime64(9, 'UTC')),
    has_llm          SimpleAggregateFunction(max, UInt8),
    last_received_at SimpleAggregateFunction(max, DateTime64(3, 'UTC')),
    span_count       SimpleAggregateFunction(sum, Int64),
    cost_usd_total   SimpleAggregateFunction(sum, Float64),
    input_tokens     SimpleAggregateFunction(sum, Int64),
    output_tokens    SimpleAggregateFunction(sum, Int64),
    expires_at       SimpleAggregateFunction(max, DateTime('UTC'))
)
ENGINE = AggregatingMergeTree
ORDER BY (workspace_id, trace_id)
TTL expires_at DELETE
SETTINGS index_granularity = 256, min_compress_block_size = 4096, max_compress_block_size = 16384
COMMENT 'traces_v1 in small granules, for looking traces up by id; GROUP BY trace_id and re-aggregate as traces_v1.';

CREATE TABLE IF NOT EXISTS trace_grades_v1
(
    workspace_id   UUID,
    trace_id       String CODEC(ZSTD(1)),
    grade          LowCardinality(String),
    grade_rank     Int8,
    score          Float64,
    scorer_version LowCardinality(String),
    scored_at      DateTime64(3, 'UTC'),
    expires_at     DateTime('UTC')
)
ENGINE = ReplacingMergeTree(scored_at)
ORDER BY (workspace_id, trace_id)
TTL expires_at DELETE
SETTINGS index_granularity = 256, min_compress_block_size = 4096, max_compress_block_size = 16384
COMMENT 'trace_scores_v1 in small granules, for looking grades up by id; newest scored_at wins.';

CREATE MATERIALIZED VIEW IF NOT EXISTS trace_starts_v1_mv TO trace_starts_v1 AS
SELECT workspace_id, trace_start, trace_id, expires_at
FROM traces_v1;

CREATE MATERIALIZED VIEW IF NOT EXISTS trace_list_v1_mv TO trace_list_v1 AS
SELECT workspace_id, trace_id, org_id, project_id, trace_start, trace_end, has_llm, last_received_at, span_count, cost_usd_total, input_tokens, output_tokens, expires_at
FROM traces_v1;

CREATE MATERIALIZED VIEW IF NOT EXISTS trace_grades_v1_mv TO trace_grades_v1 AS
SELECT workspace_id, trace_id, grade, grade_rank, score, scorer_version, scored_at, expires_at
FROM trace_scores_v1;

-- Traces stored before this migration, copied once (migrations run before any
-- service consumes). The guard keeps a migration re-run after a crash between
-- these statements and its record from copying the sums twice.
INSERT INTO trace_starts_v1 (workspace_id, trace_start, trace_id, expires_at)
SELECT workspace_id, trace_start, trace_id, expires_at
FROM traces_v1
WHERE (SELECT count() FROM trace_starts_v1) = 0;

INSERT INTO trace_list_v1 (workspace_id, trace_id, org_id, project_id, trace_start, trace_end, has_llm, last_received_at, span_count, cost_usd_total, input_tokens, output_tokens, expires_at)
SELECT workspace_id, trace_id, org_id, project_id, trace_start, trace_end, has_llm, last_received_at, span_count, cost_usd_total, input_tokens, output_tokens, expires_at
FROM traces_v1
WHERE (SELECT count() FROM trace_list_v1) = 0;

INSERT INTO trace_grades_v1 (workspace_id, trace_id, grade, grade_rank, score, scorer_version, scored_at, expires_at)
SELECT workspace_id, trace_id, grade, grade_rank, score, scorer_version, scored_at, expires_at
FROM trace_scores_v1;
