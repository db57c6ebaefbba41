-- engine_results_v1: what the reconstruction engines found, one row per trace and
-- engine, landed by the engine-results sink from engine.results.v1. The API's
-- GET .../traces/{trace_id}/<engine> endpoints read it; analysts can too: the
-- payload is the endpoint's JSON body, so JSONExtract works on the documented
-- fields (docs/engines.md), e.g.
--   SELECT trace_id, JSONExtractFloat(payload, 'total_estimated_savings_usd')
--   FROM engine_results_v1 FINAL WHERE engine = 'savings'
--
-- ReplacingMergeTree(computed_at): a trace is analysed again when a late span
-- re-opens it, and a job can be delivered twice; the newest result wins on merge
-- and reads take argMax(..., computed_at) so they are right before the merge too.
--
-- ORDER BY (workspace_id, trace_id, engine): every read fetches one trace's results.
-- TTL expires_at: results live exactly as long as the trace they describe (the
-- trace's start + the workspace's retention when the result was written).
CREATE TABLE IF NOT EXISTS engine_results_v1
(
    workspace_id      UUID,
    trace_id          String,
    engine            LowCardinality(String) COMMENT 'content_reliability, decision_trace, decomposition, sources, correlation, savings, external_crosscheck, alignment',
    engine_version    LowCardinality(String) COMMENT 'Version of the algorithm that produced the payload',
    mode              LowCardinality(String) COMMENT 'deterministic, or llm when the organization''s model was asked',
    payload           String                 COMMENT 'The result as JSON, in the shape the API serves'  CODEC(ZSTD(3)),
    llm_input_tokens  UInt64                 COMMENT 'Tokens the engine sent to the LLM for this result (0 in deterministic mode)',
    llm_output_tokens UInt64,
    computed_at       DateTime64(3, 'UTC'),
    expires_at        DateTime('UTC')
)
ENGINE = ReplacingMergeTree(computed_at)
ORDER BY (workspace_id, trace_id, engine)
TTL expires_at DELETE
COMMENT 'Latest result per (trace, engine): newest computed_at wins.'
