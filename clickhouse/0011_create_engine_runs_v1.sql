-- engine_runs_v1: per workspace and engine, when the engine last finished a job and
-- how many runs and failures it had, written by the engine workers. Ingestion health
-- reads it: an engine that has jobs waiting (trace completions older than the stall
-- threshold) but no run since is stalled, most often for want of an LLM credential.
--
-- ORDER BY (workspace_id, engine): read per workspace. Additive rows (max, sums), so
-- concurrent workers never overwrite each other.
CREATE TABLE IF NOT EXISTS engine_runs_v1
(
    workspace_id UUID,
    engine       LowCardinality(String),
    last_run_at  SimpleAggregateFunction(max, DateTime64(3, 'UTC')) COMMENT 'When a job of this engine last finished (successfully or not)',
    last_ok_at   SimpleAggregateFunction(max, DateTime64(3, 'UTC')) COMMENT 'When a job last succeeded',
    runs         SimpleAggregateFunction(sum, UInt64),
    failures     SimpleAggregateFunction(sum, UInt64)
)
ENGINE = AggregatingMergeTree
ORDER BY (workspace_id, engine)
COMMENT 'Engine activity per workspace; re-aggregate (max, sum) per (workspace_id, engine) when reading.'
