-- engine_skips_v1.reason gains a value: too_large, a trace with more spans than
-- SVC_ENGINE_MAX_TRACE_SPANS (default 20,000) or more attribute bytes than
-- SVC_ENGINE_MAX_TRACE_BYTES (128 MiB), skipped by every engine before its spans were
-- loaded (services/engines/src/runtime/worker.ts), with sample_rate 1.
-- Only the column's comment changes; rows already written keep their reasons.
ALTER TABLE engine_skips_v1
    COMMENT COLUMN reason 'backlog: the engine was behind (adaptive rate); configured: outside SVC_ENGINE_SAMPLE_RATE; too_large: more spans or attribute bytes than SVC_ENGINE_MAX_TRACE_SPANS or SVC_ENGINE_MAX_TRACE_BYTES (sample_rate 1)';
