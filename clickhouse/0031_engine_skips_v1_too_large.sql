-- engine_skips_v1.reason gains a value: too_large, a trace with more spans than
-- SVC_ENGINE_MAX_TRACE_SPANS (default 20,000), skipped by every engine before its
-- spans were loaded (services/engines/src/runtime/worker.ts), with sample_rate 1.
-- Only the column's comment changes; rows already written keep their reasons.
ALTER TABLE engine_skips_v1
    COMMENT COLUMN reason 'backlog: the engine was behind (adaptive rate); configured: outside SVC_ENGINE_SAMPLE_RATE; too_large: more spans than SVC_ENGINE_MAX_TRACE_SPANS (sample_rate 1)';
