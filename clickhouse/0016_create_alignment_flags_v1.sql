-- alignment_flags_v1: the alignment engine's flags, one row per flagged sentence of
-- a trace's final output, landed by the engine-results sink from the `flags` extra
-- of alignment results (GET .../alignment/flags and /by-user read it).
--
-- A trace analysed again (a late span re-opens it, a job is delivered twice) writes
-- its flags again with a newer computed_at; reads keep only the flags of each
-- trace's newest alignment run (max computed_at of the trace's alignment row in
-- engine_results_v1), so a flag the newer run no longer raises disappears.
-- ReplacingMergeTree(computed_at) collapses identical replays.
--
-- end_user is svc.end_user of the trace ('' when the producer never set it), for
-- the per-user aggregation. unclear = confidence below the engine's threshold
-- (listed only with include_unclear=true). TTL: the trace's own expiry.
CREATE TABLE IF NOT EXISTS alignment_flags_v1
(
    workspace_id   UUID,
    trace_id       String,
    flag_id        String                 COMMENT 'Stable per (trace, output sentence, rule)',
    doc_id         String                 COMMENT 'Document of the policy excerpt, or description',
    policy_excerpt String,
    agent_output   String                 COMMENT 'The output sentence that diverges',
    severity       LowCardinality(String) COMMENT 'high, medium or low (from the rule''s modality)',
    confidence     Float32,
    unclear        UInt8,
    end_user       String,
    mode           LowCardinality(String) COMMENT 'deterministic or llm',
    computed_at    DateTime64(3, 'UTC')   COMMENT 'The engine run that raised it (= created_at in the API)',
    expires_at     DateTime('UTC')
)
ENGINE = ReplacingMergeTree(computed_at)
ORDER BY (workspace_id, trace_id, flag_id)
TTL expires_at DELETE
COMMENT 'Alignment flags per trace; reads keep the newest run of each trace';
