-- The engines' sampling (services/engines/src/runtime/sampling.ts): when traces
-- complete faster than an engine can analyse them, its worker analyses a sample
-- (SVC_ENGINE_SAMPLE_RATE, or lower while its jobs wait longer than
-- SVC_ENGINE_MAX_LAG_SECONDS) and skips the rest. A skipped job is recorded, never
-- dropped silently: here per trace, for the engine endpoints, and per hour, for
-- ingestion health.
--
-- engine_skips_v1: one row per (trace, engine) the engine skipped; the endpoint of
-- a trace without a result says it was skipped and why instead of "not yet". The
-- worker sends each skip with its batch's results (engine.results.v1, mode
-- 'skipped'), and the results sink lands them, many per insert.
-- ReplacingMergeTree(skipped_at): a job delivered twice is one row. A result written
-- for the trace (analysed when it re-opened, or before) is served instead: reads
-- only look here when engine_results_v1 has nothing. ORDER BY (workspace_id,
-- trace_id, engine) as engine_results_v1: a read fetches one trace. TTL: the
-- trace's own expiry, as every row derived from a trace.
CREATE TABLE IF NOT EXISTS engine_skips_v1
(
    workspace_id UUID,
    trace_id     String,
    engine       LowCardinality(String),
    reason       LowCardinality(String) COMMENT 'backlog: the engine was behind (adaptive rate); configured: outside SVC_ENGINE_SAMPLE_RATE',
    sample_rate  Float64                COMMENT 'The share of traces the engine analysed when it skipped this one',
    skipped_at   DateTime64(3, 'UTC'),
    expires_at   DateTime('UTC')
)
ENGINE = ReplacingMergeTree(skipped_at)
ORDER BY (workspace_id, trace_id, engine)
TTL expires_at DELETE
COMMENT 'Traces an engine skipped (sampling); a result in engine_results_v1 for the same trace and engine supersedes the row.';

-- engine_jobs_hourly_v1: per workspace, engine and hour, the jobs an engine analysed,
-- skipped (sampling) and failed (dead-lettered), written by each worker every few
-- seconds (runtime/job-tally.ts), so ingestion health shows the skipped share of the
-- last hour without scanning results. Figures, not a ledger: a crash loses the last
-- seconds' counts, and a batch handled again after one counts again. ORDER BY
-- (workspace_id, engine, hour): read per workspace over recent hours. TTL: 400 days,
-- as the other roll-ups.
CREATE TABLE IF NOT EXISTS engine_jobs_hourly_v1
(
    workspace_id UUID,
    engine       LowCardinality(String),
    hour         DateTime('UTC')                      COMMENT 'Start of the UTC hour the jobs were handled in',
    analysed     SimpleAggregateFunction(sum, UInt64) COMMENT 'Jobs analysed (a result written)',
    skipped      SimpleAggregateFunction(sum, UInt64) COMMENT 'Jobs outside the sample (engine_skips_v1 has the traces)',
    failed       SimpleAggregateFunction(sum, UInt64) COMMENT 'Jobs dead-lettered after their retries'
)
ENGINE = AggregatingMergeTree
ORDER BY (workspace_id, engine, hour)
TTL hour + INTERVAL 400 DAY DELETE
COMMENT 'Engine jobs per hour by outcome; sum the columns when reading.';
